package dev.arenascope.core.report;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.format.Bytes;

/**
 * A job's report as Markdown, readable as plain text in a terminal too: the gates' verdict, the job's
 * figures, one line of block characters per rank (live bytes, one byte axis), the rank table, the
 * job's columns and the worst rank's sites against the median's. Stateless.
 */
final class JobMarkdown {
    static final int SPARK_WIDTH = 48;

    private JobMarkdown() {}

    static void write(JobReport r, Writer out) throws IOException {
        JobSummary s = r.job();
        StringBuilder sb = new StringBuilder();
        sb.append("# Job memory report: ").append(s.ranks().size()).append(" ranks\n\n_").append(esc(r.generator()));
        if (!r.source().isEmpty()) {
            sb.append(" · ").append(esc(r.source()));
        }
        sb.append("_\n\n");
        if (r.gated()) {
            List<JobReport.GateFailure> failed = r.gateFailures();
            if (failed.isEmpty()) {
                sb.append("**Gates passed.**\n\n");
            }
            for (JobReport.GateFailure f : failed) {
                sb.append("**Gate failed:** ").append(esc(f.line())).append("\n\n");
            }
        }
        for (String[] k : JobTables.kpis(r)) {
            sb.append("- **").append(esc(k[0])).append(":** ").append(esc(k[1])).append(" (").append(esc(k[2])).append(")\n");
        }
        sb.append('\n');
        List<RankSummary> read = s.read();
        if (!read.isEmpty()) {
            long axis = read.stream().mapToLong(RankSummary::peakLiveBytes).max().orElse(0);
            int nameWidth = read.stream().mapToInt(x -> x.rank().length()).max().orElse(4);
            sb.append("## Live bytes per rank\n\nEach rank over its own run, one byte axis (a full block is ")
                    .append(esc(Bytes.format(axis))).append(").\n\n```\n");
            for (RankSummary x : read) {
                sb.append(String.format(Locale.ROOT, "%-" + nameWidth + "s %s %10s%s%n", x.rank(), JobCharts.text(x, axis, SPARK_WIDTH),
                        Bytes.format(x.peakLiveBytes()), x.rank().equals(s.worst()) ? "  worst" : ""));
            }
            sb.append("```\n\n");
        }
        table(sb, "Rank table", JobTables.RANK_COLUMNS, JobTables.RANK_NUMERIC, JobTables.ranks(s));
        table(sb, "Across the ranks", JobTables.JOB_COLUMNS, List.of(false, true, false, true, true, true, true), JobTables.job(s));
        if (r.worstVsMedian() != null) {
            sb.append("Sites live at each rank's own peak, aligned by site, largest difference first.\n\n");
            table(sb, "Why " + s.worst() + " holds more than " + s.median(), JobTables.DIFF_COLUMNS, List.of(true, true, true, false, false),
                    JobTables.diff(r.worstVsMedian(), JobReport.TOP_SITES));
        }
        out.write(sb.toString());
    }

    private static void table(StringBuilder sb, String title, List<String> columns, List<Boolean> numeric, List<List<String>> rows) {
        sb.append("## ").append(esc(title)).append("\n\n|");
        for (String c : columns) {
            sb.append(' ').append(esc(c)).append(" |");
        }
        sb.append("\n|");
        for (Boolean n : numeric) {
            sb.append(n ? "---:|" : "---|");
        }
        sb.append('\n');
        for (List<String> row : rows) {
            sb.append('|');
            for (String c : row) {
                sb.append(' ').append(esc(c)).append(" |");
            }
            sb.append('\n');
        }
        sb.append('\n');
    }

    /** Text that cannot break a table or start markup: pipes, backticks, angle brackets, emphasis and links escaped. */
    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '|', '`', '*', '_', '[', ']', '<', '>', '\\', '#' -> b.append('\\').append(c);
                case '\n', '\r', '\t' -> b.append(' ');
                default -> b.append(c < 0x20 ? ' ' : c);
            }
        }
        return b.toString();
    }
}
