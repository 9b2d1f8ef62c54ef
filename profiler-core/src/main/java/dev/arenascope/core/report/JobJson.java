package dev.arenascope.core.report;

import java.io.IOException;
import java.io.Writer;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;

/**
 * A job as JSON: {@code ranks[]} (one object per rank, failed ones with their {@code failure}) and
 * {@code job{}} (worst and median rank, imbalance, per column max / median / min, outliers), as
 * {@code arenascope stats} prints them for a job and the job report embeds them. Keys are listed in
 * {@code docs/guide/jobs.md}; bytes are integers, an undefined number is {@code null}. Stateless.
 */
public final class JobJson {
    /** The job report's schema id. */
    public static final String SCHEMA = "arenascope.job-report/1";

    private JobJson() {}

    /** Writes the {@code ranks} and {@code job} fields into an open object. */
    public static void fields(JsonGenerator g, JobSummary s, boolean sparklines) throws IOException {
        g.writeArrayFieldStart("ranks");
        for (RankSummary r : s.ranks()) {
            rank(g, s, r, sparklines);
        }
        g.writeEndArray();
        g.writeObjectFieldStart("job");
        g.writeNumberField("ranks", s.ranks().size());
        g.writeNumberField("read", s.read().size());
        g.writeNumberField("failed", s.failed().size());
        g.writeNumberField("damaged", s.read().stream().filter(r -> r.problem() != null).count());
        nullableString(g, "worst_rank", s.worst());
        nullableString(g, "median_rank", s.median());
        if (s.worst() == null) {
            g.writeNullField("imbalance_pct");
        } else {
            g.writeNumberField("imbalance_pct", round(s.imbalancePct()));
        }
        g.writeArrayFieldStart("outliers");
        for (String o : s.outliers()) {
            g.writeString(o);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("duplicate_names");
        for (RankSummary r : s.ranks()) {
            if (r.duplicateName()) {
                g.writeString(r.rank());
            }
        }
        g.writeEndArray();
        g.writeObjectFieldStart("columns");
        for (JobSummary.Column c : s.columns()) {
            g.writeObjectFieldStart(c.key());
            g.writeNumberField("ranks", c.ranks());
            g.writeNumberField("max", c.max());
            g.writeStringField("max_rank", c.maxRank());
            g.writeNumberField("median", c.median());
            g.writeNumberField("min", c.min());
            JsonOutput.number(g, "max_over_median", round(c.maxOverMedian()));
            g.writeNumberField("max_minus_min", c.spread());
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void rank(JsonGenerator g, JobSummary s, RankSummary r, boolean sparklines) throws IOException {
        g.writeStartObject();
        g.writeStringField("rank", r.rank());
        if (r.number() >= 0) {
            g.writeNumberField("number", r.number());
        } else {
            g.writeNullField("number");
        }
        g.writeStringField("file", r.file());
        g.writeStringField("status", !r.loaded() ? "failed" : r.problem() != null ? "damaged" : "ok");
        nullableString(g, "failure", r.failureLine());
        nullableString(g, "problem", r.problem());
        g.writeBooleanField("duplicate_name", r.duplicateName());
        g.writeBooleanField("worst", r.rank().equals(s.worst()));
        g.writeBooleanField("median", r.rank().equals(s.median()));
        g.writeBooleanField("outlier", s.outliers().contains(r.rank()));
        nullableString(g, "memory", r.memory());
        g.writeNumberField("peak_live_bytes", r.peakLiveBytes());
        nullableLong(g, "peak_reserved_bytes", r.peakReservedBytes());
        nullableLong(g, "peak_at_ns", r.peakAtNs());
        nullableString(g, "step", r.step());
        g.writeStringField("step_source", r.stepSource().name().toLowerCase(Locale.ROOT));
        g.writeNumberField("out_of_memory", r.outOfMemory());
        g.writeNumberField("allocations", r.allocations());
        g.writeNumberField("events", r.events());
        g.writeNumberField("duration_ns", r.durationNs());
        SiteBreakdown.Row top = r.topSite();
        if (top == null) {
            g.writeNullField("top_site");
        } else {
            g.writeObjectFieldStart("top_site");
            g.writeStringField("label", top.label());
            g.writeNumberField("bytes", top.bytes());
            g.writeNumberField("count", top.count());
            SiteJson.frames(g, top.frames());
            g.writeEndObject();
        }
        if (sparklines) {
            g.writeArrayFieldStart("live_over_time");
            for (long v : r.liveOverTime()) {
                g.writeNumber(v);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** Writes the job report. */
    static void write(JobReport r, Writer out) throws IOException {
        JsonGenerator g = JsonOutput.open(out);
        g.writeStartObject();
        g.writeStringField("schema", SCHEMA);
        g.writeStringField("generator", r.generator());
        g.writeStringField("source", r.source());
        fields(g, r.job(), true);
        g.writeObjectFieldStart("gates");
        if (r.imbalanceGatePct() == null) {
            g.writeNullField("imbalance_pct");
        } else {
            g.writeNumberField("imbalance_pct", r.imbalanceGatePct());
        }
        if (r.peakLimitBytes() == null) {
            g.writeNullField("peak_bytes");
        } else {
            g.writeNumberField("peak_bytes", r.peakLimitBytes());
        }
        g.writeArrayFieldStart("failed");
        for (JobReport.GateFailure f : r.gateFailures()) {
            g.writeStartObject();
            g.writeStringField("gate", f.gate());
            g.writeStringField("rank", f.rank());
            g.writeStringField("line", f.line());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeFieldName("worst_vs_median");
        SiteDiff d = r.worstVsMedian();
        if (d == null) {
            g.writeNull();
        } else {
            g.writeStartObject();
            g.writeStringField("rank", r.job().worst());
            g.writeStringField("baseline_rank", r.job().median());
            g.writeNumberField("total_bytes", d.current().totalBytes());
            g.writeNumberField("baseline_total_bytes", d.baseline().totalBytes());
            g.writeArrayFieldStart("diff");
            for (SiteDiff.Entry e : d.entries()) {
                if (e.status() == SiteDiff.Status.SAME) {
                    continue;
                }
                SiteJson.diffEntry(g, e, SiteJson.Keys.SNAKE);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndObject();
        JsonOutput.end(g);
    }

    private static void nullableString(JsonGenerator g, String k, String v) throws IOException {
        if (v == null) {
            g.writeNullField(k);
        } else {
            g.writeStringField(k, v);
        }
    }

    private static void nullableLong(JsonGenerator g, String k, long v) throws IOException {
        if (v < 0) {
            g.writeNullField(k);
        } else {
            g.writeNumberField(k, v);
        }
    }

    private static double round(double v) {
        return Double.isFinite(v) ? Math.round(v * 10_000) / 10_000.0 : v;
    }
}
