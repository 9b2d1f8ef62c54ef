package dev.arenascope.core.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.format.Bytes;

/** The tables of a job report as rows of text, shared by the HTML and the Markdown writers. Stateless. */
final class JobTables {
    private JobTables() {}

    static final List<String> RANK_COLUMNS = List.of("rank", "peak live", "peak reserved", "peak at", "step", "OOM",
            "allocations", "top site at the peak", "notes");
    static final List<Boolean> RANK_NUMERIC = List.of(false, true, true, true, false, true, true, false, false);

    static List<List<String>> ranks(JobSummary s) {
        List<List<String>> rows = new ArrayList<>();
        for (RankSummary r : s.ranks()) {
            List<String> notes = new ArrayList<>();
            if (r.rank().equals(s.worst())) {
                notes.add("worst");
            }
            if (r.rank().equals(s.median())) {
                notes.add("median");
            }
            if (s.outliers().contains(r.rank())) {
                notes.add("outlier");
            }
            if (r.duplicateName()) {
                notes.add("same name as another file");
            }
            if (!r.loaded()) {
                rows.add(List.of(r.rank(), Units.NONE, Units.NONE, Units.NONE, Units.NONE, Units.NONE, Units.NONE, Units.NONE,
                        "not read: " + r.failureLine()));
                continue;
            }
            if (r.problem() != null) {
                notes.add("damaged: " + r.problem());
            }
            SiteBreakdown.Row top = r.topSite();
            rows.add(List.of(r.rank(), Bytes.format(r.peakLiveBytes()),
                    r.peakReservedBytes() < 0 ? Units.NONE : Bytes.format(r.peakReservedBytes()),
                    r.peakAtNs() < 0 ? Units.NONE : Units.duration(r.peakAtNs()),
                    r.step() == null ? Units.NONE : r.step(), Units.count(r.outOfMemory()), Units.count(r.allocations()),
                    top == null ? Units.NONE : top.label() + " (" + Bytes.format(top.bytes()) + ")",
                    String.join("; ", notes)));
        }
        return rows;
    }

    static final List<String> JOB_COLUMNS = List.of("figure", "max", "max rank", "median", "min", "max / median", "max − min");

    static List<List<String>> job(JobSummary s) {
        List<List<String>> rows = new ArrayList<>();
        for (JobSummary.Column c : s.columns()) {
            double mm = c.maxOverMedian();
            rows.add(List.of(c.label(), value(c, c.max()), c.maxRank(), value(c, c.median()), value(c, c.min()),
                    Double.isNaN(mm) ? Units.NONE : String.format(Locale.ROOT, "%.3f", mm), value(c, c.spread())));
        }
        return rows;
    }

    private static String value(JobSummary.Column c, long v) {
        return c.bytes() ? Bytes.format(v) : Units.count(v);
    }

    static final List<String> DIFF_COLUMNS = List.of("median rank", "worst rank", "delta", "status", "site");

    static List<List<String>> diff(SiteDiff d, int limit) {
        List<List<String>> rows = new ArrayList<>();
        for (SiteDiff.Entry e : d.entries()) {
            if (e.status() == SiteDiff.Status.SAME) {
                continue;
            }
            if (rows.size() == limit) {
                break;
            }
            String where = e.frames().size() > 1 ? e.label() + " ← " + e.frames().get(1).label() : e.label();
            rows.add(List.of(Bytes.format(e.baselineBytes()), Bytes.format(e.currentBytes()),
                    (e.deltaBytes() >= 0 ? "+" : "−") + Bytes.format(Math.abs(e.deltaBytes())),
                    e.status().name().toLowerCase(Locale.ROOT), where));
        }
        return rows;
    }

    /** KPI tiles: label, value, sub. */
    static List<String[]> kpis(JobReport r) {
        JobSummary s = r.job();
        List<String[]> k = new ArrayList<>();
        k.add(new String[] {"Ranks", Units.count(s.ranks().size()), s.failed().isEmpty() ? "all read" : s.failed().size() + " not read"});
        RankSummary w = s.worst() == null ? null : s.worstRank();
        RankSummary m = s.median() == null ? null : s.medianRank();
        if (w != null) {
            k.add(new String[] {"Worst rank", w.rank(), Bytes.format(w.peakLiveBytes()) + " peak live"
                    + (w.step() == null ? "" : " in " + w.step())});
            k.add(new String[] {"Median rank", m.rank(), Bytes.format(m.peakLiveBytes()) + " peak live"});
            k.add(new String[] {"Imbalance", String.format(Locale.ROOT, "%.1f%%", s.imbalancePct()),
                    "worst over median; spread " + Bytes.format(s.column("peak_live_bytes").spread())});
            k.add(new String[] {"Outliers", s.outliers().isEmpty() ? "none" : String.join(", ", s.outliers()),
                    "peak live far from the median"});
            long ooms = s.read().stream().mapToLong(RankSummary::outOfMemory).sum();
            k.add(new String[] {"Out of memory", Units.count(ooms), ooms == 0 ? "no rank ran out"
                    : s.read().stream().filter(x -> x.outOfMemory() > 0).count() + " rank(s)"});
        }
        return k;
    }
}
