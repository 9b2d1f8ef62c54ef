package dev.arenascope.core.report;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

import dev.arenascope.core.analysis.Figure;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.Printable;

/**
 * Writes a report as GitHub-flavoured Markdown: the same tables as the HTML report, for pasting into a
 * review. With a baseline, each figure reads {@code now (was X, +N%)} and regressions come first. Stateless.
 */
public final class MarkdownReportWriter {
    private MarkdownReportWriter() {}

    public static void write(Report r, Writer out) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("# Memory report: ").append(esc(r.trace().session().name())).append("\n\n");
        sb.append('_').append(esc(r.generator()));
        if (!r.source().isEmpty()) {
            sb.append(" · trace `").append(code(r.source())).append('`');
        }
        if (r.hasBaseline()) {
            sb.append(" · baseline `").append(code(r.baselineSource().isEmpty() ? r.diff().baseline().session().name() : r.baselineSource())).append('`');
        }
        sb.append("_\n\n");
        if (r.hasBaseline()) {
            List<TraceDiff.Change> failed = r.gateFailures();
            if (r.gatePct() != null) {
                sb.append(failed.isEmpty()
                        ? "**Gate passed:** no peak grew more than " + pct(r.gatePct()) + " against the baseline.\n\n"
                        : "**Gate failed:** " + Counts.of(failed.size(), "peak") + " grew more than "
                        + pct(r.gatePct()) + " against the baseline.\n\n");
            }
            ReportTable reg = ReportTables.regressions(r);
            if (reg.rows().isEmpty()) {
                sb.append("## Regressions\n\nNo figure got worse against the baseline.\n\n");
            } else {
                table(sb, reg);
            }
        }
        sb.append("## Session\n\n| | |\n|---|---|\n");
        for (String[] kv : ReportTables.session(r)) {
            sb.append("| ").append(esc(kv[0])).append(" | ").append(esc(kv[1])).append(" |\n");
        }
        sb.append('\n');
        for (ReportTable t : ReportTables.all(r)) {
            table(sb, t);
        }
        if (r.hasBaseline()) {
            ReportTable imp = ReportTables.improvements(r);
            if (!imp.rows().isEmpty()) {
                table(sb, imp);
            }
            List<String> added = ReportTables.addedSubjects(r);
            if (!added.isEmpty()) {
                sb.append("## Added: only in this trace\n\nNot compared, so neither regressions nor improvements.\n\n");
                added.forEach(s -> sb.append("- ").append(esc(s)).append('\n'));
                sb.append('\n');
            }
            List<String> removed = ReportTables.removedSubjects(r);
            if (!removed.isEmpty()) {
                sb.append("## Removed: only in the baseline\n\n");
                removed.forEach(s -> sb.append("- ").append(esc(s)).append('\n'));
                sb.append('\n');
            }
        }
        out.write(sb.toString());
    }

    private static String pct(double p) {
        return Units.format(Figure.Unit.RATIO, p / 100);
    }

    private static void table(StringBuilder sb, ReportTable t) {
        sb.append("## ").append(esc(t.title())).append("\n\n");
        if (!t.note().isEmpty()) {
            sb.append(esc(t.note())).append("\n\n");
        }
        sb.append('|');
        for (String c : t.columns()) {
            sb.append(' ').append(esc(c)).append(" |");
        }
        sb.append("\n|");
        for (Boolean n : t.numeric()) {
            sb.append(n ? "---:|" : "---|");
        }
        sb.append('\n');
        for (List<ReportTable.Cell> row : t.rows()) {
            sb.append('|');
            for (ReportTable.Cell c : row) {
                sb.append(' ').append(cell(c, t.id())).append(" |");
            }
            sb.append('\n');
        }
        if (t.omitted() > 0) {
            sb.append("\n_").append(t.omitted()).append(" more not shown (all are in the JSON report)._\n");
        }
        sb.append('\n');
    }

    private static String cell(ReportTable.Cell c, String tableId) {
        String text = esc(c.text());
        if (c.emphasis()) {
            text = "**" + text + "**";
        }
        String sub = c.sub() == null ? "" : " · " + esc(c.sub());
        TraceDiff.Change ch = c.change();
        if (ch == null || tableId.equals("regressions") || tableId.equals("improvements")) {
            if (ch != null && ch.regression()) {
                return "**" + text + "** ⚠" + sub;
            }
            return text + sub;
        }
        if (ch.presence() == TraceDiff.Presence.ADDED) {
            return text + " (added)" + sub;
        }
        if (ch.deltaPct() == 0 || Double.isNaN(ch.deltaPct())) {
            return text + " (same)" + sub;
        }
        String was = ch.was() == null ? Units.NONE : Units.format(ch.was());
        String mark = ch.regression() ? " ⚠" : "";
        return text + " (was " + esc(was) + ", " + Units.changePct(ch) + mark + ")" + sub;
    }

    /**
     * Text from the trace as Markdown that renders as that text: Markdown's own characters escaped
     * ({@code \\ | * _ [ ] ` !}, so no name makes a link, image, emphasis or cell), HTML's escaped as
     * entities ({@code & < >}, so {@code <script>} or {@code <img onerror>} stay text in every renderer
     * that passes HTML through), and control characters and line breaks as spaces.
     */
    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\', '|', '*', '_', '[', ']', '`', '!' -> sb.append('\\').append(c);
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                default -> sb.append(Printable.unsafe(c) ? ' ' : c);
            }
        }
        return sb.toString();
    }

    /** Text for a code span: no backtick to close it early, no line break. */
    private static String code(String s) {
        return Printable.line(s.replace('`', '\''));
    }
}
