package dev.arenascope.core.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.format.Bytes;

/**
 * A job's report as one self-contained HTML file, in the look of the single-trace report: the gates'
 * verdict, the job's figures, the ranks as small multiples (one sparkline of live bytes per rank on one
 * byte axis), the rank table, the job's columns and the worst rank's sites against the median's. No
 * scripts, no network. Stateless.
 */
final class JobHtml {
    private static final String CSS = css();

    private JobHtml() {}

    private static String css() {
        try (InputStream in = JobHtml.class.getResourceAsStream("report.css")) {
            if (in == null) {
                throw new IllegalStateException("report.css is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void write(JobReport r, Writer out) throws IOException {
        JobSummary s = r.job();
        StringBuilder sb = new StringBuilder(64 * 1024);
        String title = "Job memory report: " + s.ranks().size() + " ranks";
        sb.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<meta name=\"generator\" content=\"").append(Html.esc(r.generator())).append("\">\n")
                .append("<title>").append(Html.esc(title)).append("</title>\n<style>\n").append(CSS).append("</style>\n</head>\n<body>\n");
        sb.append("<header class=\"top\">\n<div class=\"brand\">ArenaScope <span>job memory report</span></div>\n<h1>")
                .append(Html.esc(s.ranks().size() + " ranks")).append("</h1>\n<p class=\"meta\">");
        if (!r.source().isEmpty()) {
            sb.append("<b>").append(Html.esc(r.source())).append("</b>");
        }
        sb.append("</p>\n</header>\n<main>\n");
        if (r.gated()) {
            List<JobReport.GateFailure> failed = r.gateFailures();
            if (failed.isEmpty()) {
                sb.append("<div class=\"banner pass\">Gates passed").append(gates(r)).append("</div>\n");
            } else {
                for (JobReport.GateFailure f : failed) {
                    sb.append("<div class=\"banner fail\">").append(Html.esc(f.line())).append("</div>\n");
                }
            }
        }
        sb.append("<section class=\"kpis\" aria-label=\"summary\">\n");
        for (String[] k : JobTables.kpis(r)) {
            sb.append("<div class=\"kpi\"><div class=\"label\">").append(Html.esc(k[0])).append("</div><div class=\"value\">")
                    .append(Html.esc(k[1])).append("</div><div class=\"sub\">").append(Html.esc(k[2])).append("</div></div>\n");
        }
        sb.append("</section>\n");
        smallMultiples(sb, s);
        table(sb, "ranks", "Rank table", "Per rank, its main memory (the largest peak): peak live and reserved, when and in which "
                + "step the peak came (ProfilerStep annotations, else markers), out-of-memory events, allocations, and the site "
                + "holding the most at the peak.", JobTables.RANK_COLUMNS, JobTables.RANK_NUMERIC, JobTables.ranks(s));
        table(sb, "job", "Across the ranks", "Over the ranks read: the largest, median (lower) and smallest value of each "
                + "column, the largest against the median, and the spread.", JobTables.JOB_COLUMNS,
                List.of(false, true, false, true, true, true, true), JobTables.job(s));
        if (r.worstVsMedian() != null) {
            table(sb, "worst-vs-median", "Why " + s.worst() + " holds more than " + s.median(),
                    "Live bytes per site at each rank's own peak, aligned by site (function, file and line), largest "
                            + "difference first: " + Bytes.format(r.worstVsMedian().current().totalBytes()) + " against "
                            + Bytes.format(r.worstVsMedian().baseline().totalBytes()) + ". arenascope sites --rank "
                            + s.worst() + " --baseline-rank " + s.median() + " has the rest.",
                    JobTables.DIFF_COLUMNS, List.of(true, true, true, false, false), JobTables.diff(r.worstVsMedian(), JobReport.TOP_SITES));
        }
        sb.append("</main>\n<footer>").append(Html.esc(r.generator()))
                .append(" · keys as in docs/guide/jobs.md · the same figures as JSON with --format json</footer>\n</body>\n</html>\n");
        out.write(sb.toString());
    }

    private static String gates(JobReport r) {
        StringBuilder g = new StringBuilder();
        if (r.imbalanceGatePct() != null) {
            g.append("imbalance ").append(String.format(Locale.ROOT, "%.1f%%", r.job().imbalancePct()))
                    .append(" within ").append(JobReport.pct(r.imbalanceGatePct()));
        }
        if (r.peakLimitBytes() != null) {
            if (r.imbalanceGatePct() != null) {
                g.append("; ");
            }
            g.append("every peak within ").append(Bytes.format(r.peakLimitBytes()));
        }
        return " <small>(" + Html.esc(g.toString()) + ")</small>";
    }

    private static void smallMultiples(StringBuilder sb, JobSummary s) {
        List<RankSummary> read = s.read();
        if (read.isEmpty()) {
            return;
        }
        long axis = read.stream().mapToLong(RankSummary::peakLiveBytes).max().orElse(0);
        sb.append("<section id=\"small-multiples\">\n<h2>Live bytes per rank</h2>\n<p class=\"note\">One sparkline per rank, each over "
                + "its own run, all on one byte axis: full height is the job's largest peak, ").append(Html.esc(Bytes.format(axis)))
                .append(". The dot marks each rank's peak.</p>\n<div class=\"sparks\">\n");
        for (RankSummary r : read) {
            boolean worst = r.rank().equals(s.worst());
            sb.append("<div class=\"sparkcard").append(worst ? " worst" : "").append("\"><div class=\"sparkhead\"><b>")
                    .append(Html.esc(r.rank())).append("</b> <span>").append(Html.esc(Bytes.format(r.peakLiveBytes())))
                    .append(r.step() == null ? "" : " · " + Html.esc(r.step())).append("</span></div>")
                    .append(JobCharts.svg(r, axis, worst)).append("</div>\n");
        }
        sb.append("</div>\n</section>\n");
    }

    private static void table(StringBuilder sb, String id, String title, String note, List<String> columns, List<Boolean> numeric,
                              List<List<String>> rows) {
        sb.append("<section id=\"").append(id).append("\">\n<h2>").append(Html.esc(title)).append("</h2>\n<p class=\"note\">")
                .append(Html.esc(note)).append("</p>\n<div class=\"tablewrap\">\n<table>\n<thead><tr>");
        for (int i = 0; i < columns.size(); i++) {
            sb.append(numeric.get(i) ? "<th class=\"num\">" : "<th>").append(Html.esc(columns.get(i))).append("</th>");
        }
        sb.append("</tr></thead>\n<tbody>\n");
        for (List<String> row : rows) {
            sb.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                sb.append(i == 0 ? "<td class=\"name\">" : numeric.get(i) ? "<td class=\"num\">" : "<td>").append(Html.esc(row.get(i))).append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</tbody>\n</table>\n</div>\n</section>\n");
    }
}
