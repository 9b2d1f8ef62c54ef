package dev.arenascope.app.commands.sites;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.analysis.SiteSource;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Printable;
import dev.arenascope.core.report.JsonOutput;
import dev.arenascope.core.report.SiteJson;

/**
 * The three ways {@code arenascope sites} prints an answer: a readable table or tree, stable JSON
 * (schema in {@code docs/guide/sites.md}) and the collapsed-stack lines flame-graph tools read.
 */
final class SitesOutput {
    private SitesOutput() {}

    /** What to print. */
    record Answer(String trace, SiteBreakdown sites, boolean byCategory, SiteTree tree, String baselineTrace, SiteDiff diff) {}

    // ---------------------------------------------------------------- folded

    /**
     * One line per site, {@code outer;...;inner BYTES}, as flamegraph.pl, inferno and speedscope read
     * collapsed stacks: frames never contain {@code ;} or a line break, the weight is the last
     * space-separated word, and the weights add up to the answer's total. Sites of 0 bytes are left out.
     */
    static void folded(SiteBreakdown sb, PrintStream out) {
        for (SiteBreakdown.Row r : sb.rows()) {
            if (r.bytes() <= 0) {
                continue;
            }
            out.print(foldedStack(r));
            out.print(' ');
            out.println(r.bytes());
        }
    }

    /**
     * The longest folded stack written, in characters (the pickle importer's bound on a stack's text):
     * a deeper one keeps its innermost frames under a {@code [N outer frames]} root, so the output
     * stays proportional to the trace, however deep its stack chains.
     */
    static final int MAX_FOLDED = 1 << 16;

    static String foldedStack(SiteBreakdown.Row r) {
        if (r.frames().isEmpty()) {
            return clean(r.label());
        }
        // innermost first until the bound, then outermost first
        List<String> kept = new ArrayList<>();
        int length = 0;
        int k = 0;
        for (; k < r.frames().size(); k++) {
            String f = clean(r.frames().get(k).label());
            if (length + f.length() + 1 > MAX_FOLDED) {
                break;
            }
            kept.add(f);
            length += f.length() + 1;
        }
        StringBuilder sb = new StringBuilder(length + 24);
        if (k < r.frames().size()) {
            sb.append('[').append(r.frames().size() - k).append(" outer frames]");
        }
        for (int i = kept.size() - 1; i >= 0; i--) {
            if (sb.length() > 0) {
                sb.append(';');
            }
            sb.append(kept.get(i));
        }
        return sb.toString();
    }

    private static String clean(String frame) {
        String s = Printable.line(frame.replace(';', ':').replace('\n', ' ').replace('\r', ' ').replace('\t', ' ')).strip();
        return s.isEmpty() ? "?" : s;
    }

    // ---------------------------------------------------------------- text

    static void text(Answer a, PrintStream out) {
        SiteBreakdown sb = a.sites();
        out.println(Printable.line(a.trace() + ", memory " + sb.memory() + ": " + sb.question()));
        out.println(sourceLine(sb));
        out.println("total " + Bytes.format(sb.totalBytes()) + " (" + String.format(Locale.ROOT, "%,d", sb.totalBytes())
                + " bytes) in " + String.format(Locale.ROOT, "%,d", sb.totalCount()) + " allocations");
        out.println();
        if (a.tree() != null) {
            out.println(String.format(Locale.ROOT, "%12s %6s %12s  %s", "total", "%", "self", a.tree().bottomUp()
                    ? "frame (bottom-up: where allocated, then callers)" : "frame (top-down: outermost first)"));
            for (SiteTree.Node n : a.tree().root().children()) {
                printNode(n, 0, sb.totalBytes(), out, new int[] {0});
            }
        } else {
            out.println(String.format(Locale.ROOT, "%12s %6s %9s  %s", "bytes", "%", "count", a.byCategory() ? "category" : "site (innermost frame first)"));
            for (SiteBreakdown.Row r : sb.rows()) {
                out.println(String.format(Locale.ROOT, "%12s %6s %9s  %s", Bytes.format(r.bytes()), pct(r.bytes(), sb.totalBytes()),
                        String.format(Locale.ROOT, "%,d", r.count()), Printable.line(r.label())));
                for (int k = 1; k < Math.min(r.frames().size(), 6); k++) {
                    out.println(String.format(Locale.ROOT, "%30s    <- %s", "", Printable.line(r.frames().get(k).label())));
                }
                if (r.frames().size() > 6) {
                    out.println(String.format(Locale.ROOT, "%30s    <- ... %d more", "", r.frames().size() - 6));
                }
            }
        }
        if (a.diff() != null) {
            out.println();
            out.println("against " + Printable.line(a.baselineTrace()) + ": " + Bytes.format(a.diff().baseline().totalBytes()) + " -> "
                    + Bytes.format(sb.totalBytes()));
            out.println(String.format(Locale.ROOT, "%12s %12s %12s  %-8s %s", "baseline", "now", "delta", "status", "site"));
            for (SiteDiff.Entry e : a.diff().entries()) {
                if (e.status() == SiteDiff.Status.SAME) {
                    continue;
                }
                out.println(String.format(Locale.ROOT, "%12s %12s %12s  %-8s %s", Bytes.format(e.baselineBytes()),
                        Bytes.format(e.currentBytes()), (e.deltaBytes() >= 0 ? "+" : "-") + Bytes.format(Math.abs(e.deltaBytes())),
                        e.status().name().toLowerCase(Locale.ROOT), Printable.line(e.label())));
            }
        }
    }

    private static final int TREE_LINES = 200;

    private static void printNode(SiteTree.Node n, int depth, long total, PrintStream out, int[] lines) {
        if (lines[0]++ >= TREE_LINES) {
            if (lines[0] == TREE_LINES + 1) {
                out.println("  ... (more nodes; --format json has the whole tree)");
            }
            return;
        }
        out.println(String.format(Locale.ROOT, "%12s %6s %12s  %s%s", Bytes.format(n.totalBytes()), pct(n.totalBytes(), total),
                Bytes.format(n.selfBytes()), "  ".repeat(depth), Printable.line(n.frame().label())));
        for (SiteTree.Node c : n.children()) {
            printNode(c, depth + 1, total, out, lines);
        }
    }

    static String sourceLine(SiteBreakdown sb) {
        String s = switch (sb.source()) {
            case STACKS -> "sites from call stacks" + (sb.internalHidden() ? "; runtime-internal frames hidden (--internal shows them)" : "");
            case SCOPES -> "no allocation carries a call stack: sites are the scopes open at each allocation"
                    + " (record with --stacks for the methods)";
            case NONE -> "no allocation carries a call stack or a scope: all bytes fall under one site";
        };
        return sb.sampling() == null ? s : s + "; stacks sampled (" + sb.sampling() + "): counts are of sampled allocations";
    }

    private static String pct(long part, long whole) {
        return whole <= 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }

    // ---------------------------------------------------------------- json

    static void json(Answer a, PrintStream out) throws IOException {
        SiteBreakdown sb = a.sites();
        JsonGenerator g = JsonOutput.open(out);
        g.writeStartObject();
        g.writeStringField("trace", a.trace());
        g.writeStringField("memory", sb.memory());
        g.writeStringField("question", sb.question());
        g.writeNumberField("from_ns", sb.fromNs());
        g.writeNumberField("to_ns", sb.toNs());
        g.writeStringField("source", sb.source().name().toLowerCase(Locale.ROOT));
        if (sb.sampling() == null) {
            g.writeNullField("sampled");
        } else {
            g.writeStringField("sampled", sb.sampling());
        }
        g.writeBooleanField("internal_frames_hidden", sb.internalHidden());
        g.writeStringField("grouped_by", a.byCategory() ? "category" : "site");
        g.writeNumberField("total_bytes", sb.totalBytes());
        g.writeNumberField("total_count", sb.totalCount());
        g.writeArrayFieldStart("sites");
        for (SiteBreakdown.Row r : sb.rows()) {
            g.writeStartObject();
            g.writeNumberField("bytes", r.bytes());
            g.writeNumberField("count", r.count());
            g.writeNumberField("still_live_bytes", r.stillLiveBytes());
            if (a.byCategory()) {
                g.writeStringField("category", r.label());
            } else {
                g.writeStringField("label", r.label());
            }
            SiteJson.frames(g, r.frames());
            g.writeEndObject();
        }
        g.writeEndArray();
        if (a.tree() != null) {
            g.writeFieldName(a.tree().bottomUp() ? "bottom_up" : "top_down");
            writeNode(g, a.tree().root());
        }
        if (a.diff() != null) {
            g.writeObjectFieldStart("baseline");
            g.writeStringField("trace", a.baselineTrace());
            g.writeNumberField("total_bytes", a.diff().baseline().totalBytes());
            g.writeNumberField("total_count", a.diff().baseline().totalCount());
            g.writeEndObject();
            g.writeArrayFieldStart("diff");
            for (SiteDiff.Entry e : a.diff().entries()) {
                SiteJson.diffEntry(g, e, SiteJson.Keys.SNAKE);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
        JsonOutput.end(g);
    }

    private static void writeNode(JsonGenerator g, SiteTree.Node n) throws IOException {
        // iterative over an explicit stack: deep recursive Python stacks must not overflow ours
        record Work(SiteTree.Node node, int next) {}
        List<Work> stack = new ArrayList<>();
        startNode(g, n);
        stack.add(new Work(n, 0));
        while (!stack.isEmpty()) {
            Work w = stack.removeLast();
            if (w.next < w.node.children().size()) {
                stack.add(new Work(w.node, w.next + 1));
                SiteTree.Node c = w.node.children().get(w.next);
                startNode(g, c);
                stack.add(new Work(c, 0));
            } else {
                g.writeEndArray();
                g.writeEndObject();
            }
        }
    }

    private static void startNode(JsonGenerator g, SiteTree.Node n) throws IOException {
        g.writeStartObject();
        if (n.frame() != null) {
            g.writeStringField("function", n.frame().function());
            g.writeStringField("file", n.frame().file());
            g.writeNumberField("line", n.frame().line());
        }
        g.writeNumberField("self_bytes", n.selfBytes());
        g.writeNumberField("total_bytes", n.totalBytes());
        g.writeNumberField("count", n.count());
        g.writeArrayFieldStart("children");
    }

    /** Whether a source needs a note on stderr for folded output (which has no room for one). */
    static boolean noteworthy(SiteBreakdown sb) {
        return sb.source() != SiteSource.STACKS || sb.sampling() != null;
    }
}
