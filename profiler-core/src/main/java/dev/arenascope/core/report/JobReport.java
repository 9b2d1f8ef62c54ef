package dev.arenascope.core.report;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.format.Bytes;

/**
 * What a job's report says: the rank table and job figures ({@link JobSummary}), the worst rank's sites
 * against the median rank's (each at its own peak, aligned by site), and the job's gates with their
 * verdicts. Written by {@link #write(ReportFormat, Writer)} as HTML (a section of small multiples: one
 * sparkline of live bytes per rank on one byte axis), Markdown (text sparklines, for terminals and
 * reviews) or JSON (the keys of {@code arenascope stats} on a job, plus the gates and the sparklines).
 *
 * @param job            the rank table and figures
 * @param worstVsMedian  the worst rank's sites at its peak against the median rank's at its peak; null
 *                       when they are the same rank or either has no sites
 * @param imbalanceGatePct {@code --fail-on-imbalance} in percent, or null
 * @param peakLimitBytes {@code --fail-on-peak} in bytes, or null
 * @param generator      the tool and version
 * @param source         what the job was read from (the arguments, in words)
 */
public record JobReport(JobSummary job, SiteDiff worstVsMedian, Double imbalanceGatePct, Long peakLimitBytes,
                        String generator, String source) {

    /** Sites listed in the worst-against-median table. */
    public static final int TOP_SITES = 15;

    /**
     * One gate that failed.
     *
     * @param gate  {@code imbalance} or {@code peak}
     * @param rank  the rank that failed it (the worst rank; for the peak the largest over the limit)
     * @param line  one line saying so, for stderr and the banner
     */
    public record GateFailure(String gate, String rank, String line) {}

    /** The report of {@code job}, with the worst-against-median sites diff when both ranks have sites. */
    public static JobReport of(JobSummary job, Double imbalanceGatePct, Long peakLimitBytes, String generator, String source) {
        SiteDiff diff = null;
        RankSummary w = job.worstRank();
        RankSummary m = job.medianRank();
        if (w != null && m != null && !w.rank().equals(m.rank()) && w.sitesAtPeak() != null && m.sitesAtPeak() != null) {
            diff = SiteDiff.between(m.sitesAtPeak(), w.sitesAtPeak());
        }
        return new JobReport(job, diff, imbalanceGatePct, peakLimitBytes, generator == null ? "arenascope" : generator,
                source == null ? "" : source);
    }

    /** The gates that failed, imbalance first; empty when none was set or all passed. */
    public List<GateFailure> gateFailures() {
        List<GateFailure> out = new ArrayList<>();
        RankSummary w = job.worst() == null ? null : job.worstRank();
        RankSummary m = job.median() == null ? null : job.medianRank();
        if (imbalanceGatePct != null && w != null && job.imbalancePct() > imbalanceGatePct) {
            out.add(new GateFailure("imbalance", w.rank(), String.format(Locale.ROOT,
                    "imbalance: %s peaks at %s, %.1f%% over the median %s (%s), gate %s",
                    w.rank(), Bytes.format(w.peakLiveBytes()), job.imbalancePct(), Bytes.format(m.peakLiveBytes()), m.rank(),
                    pct(imbalanceGatePct))));
        }
        if (peakLimitBytes != null) {
            List<RankSummary> over = job.over(peakLimitBytes);
            if (!over.isEmpty()) {
                RankSummary r = over.getFirst();
                out.add(new GateFailure("peak", r.rank(), "peak: " + r.rank() + " peaks at " + Bytes.format(r.peakLiveBytes())
                        + " (" + r.peakLiveBytes() + " bytes), over the limit " + Bytes.format(peakLimitBytes)
                        + (over.size() > 1 ? "; " + (over.size() - 1) + " more rank" + (over.size() > 2 ? "s" : "") + " over it" : "")));
            }
        }
        return out;
    }

    /** Whether any gate was set. */
    public boolean gated() {
        return imbalanceGatePct != null || peakLimitBytes != null;
    }

    static String pct(double p) {
        return p == Math.rint(p) ? String.format(Locale.ROOT, "%.0f%%", p) : String.format(Locale.ROOT, "%.2f%%", p);
    }

    /** Writes the report in {@code format}. The writer is not closed. */
    public void write(ReportFormat format, Writer out) throws IOException {
        switch (format) {
            case HTML -> JobHtml.write(this, out);
            case MARKDOWN -> JobMarkdown.write(this, out);
            case JSON -> JobJson.write(this, out);
        }
    }

    /** The report as a string in {@code format}. */
    public String render(ReportFormat format) {
        var sw = new StringWriter();
        try {
            write(format, sw);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sw.toString();
    }
}
