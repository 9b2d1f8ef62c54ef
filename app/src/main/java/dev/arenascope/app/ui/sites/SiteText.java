package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.List;

import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteSource;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * The site view's small pure helpers: its words (the source line, the threshold's parsing), the
 * one-level tree a by-category answer is drawn from, and finding a selection made elsewhere among the
 * answer's sites by code location. Static, stateless; safe on any thread.
 */
final class SiteText {
    private SiteText() {}

    /** A one-level tree of categories, for the flame graph of a by-category answer. */
    static SiteTree categoryTree(SiteBreakdown sb) {
        List<SiteTree.Node> kids = new ArrayList<>();
        int id = 0;
        for (SiteBreakdown.Row r : sb.rows()) {
            kids.add(new SiteTree.Node(new StackFrame(id++, r.label(), "", 0, 0), r.bytes(), r.bytes(), r.count(), List.of()));
        }
        return new SiteTree(new SiteTree.Node(null, 0, sb.totalBytes(), sb.totalCount(), List.copyOf(kids)), false);
    }

    static String sourceLine(SiteBreakdown sb) {
        String s = switch (sb.source()) {
            case STACKS -> "Sites from call stacks" + (sb.internalHidden() ? "; runtime-internal frames hidden" : "");
            case SCOPES -> "No allocation carries a call stack: sites are the scopes open at each allocation";
            case NONE -> "No allocation carries a call stack or a scope: all bytes fall under one site";
        };
        return sb.sampling() == null || sb.source() != SiteSource.STACKS ? s : s + "; stacks sampled (" + sb.sampling() + ")";
    }

    static String capitalise(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** The site of {@code sel}'s first allocation as this answer groups it (internal frames as asked), or null. */
    static List<StackFrame> framesOf(SiteSelection sel, SiteAnswer a, TraceView shown) {
        TraceView t = a.request().trace();
        if (sel.memory() != a.request().memory() || sel.members().count() == 0 || t != shown) {
            return null;
        }
        long first = sel.members().allocationEvents()[0];
        if (first < 0 || first >= t.eventCount()) {
            return null;
        }
        int site = t.event(first).site();
        List<StackFrame> all = t.stack(site);
        if (a.request().internal()) {
            return all;
        }
        List<StackFrame> kept = all.stream().filter(f -> !f.internal()).toList();
        return kept.isEmpty() ? all : kept;
    }

    /** The answer's own frames (its interned ids) at the locations of {@code frames}, or null when no site of it has them. */
    static List<StackFrame> ownFrames(SiteAnswer a, List<StackFrame> frames) {
        for (SiteBreakdown.Row r : a.sites().rows()) {
            if (sameLocations(r.frames(), frames)) {
                return r.frames();
            }
        }
        return null;
    }

    static boolean sameLocations(List<StackFrame> x, List<StackFrame> y) {
        if (x.size() != y.size() || x.isEmpty()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            if (!x.get(i).sameLocation(y.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** A duration as {@code 1ms}, {@code 250us}, {@code 2s}, {@code 500ns} (a bare number is milliseconds). */
    static long parseDuration(String text) {
        double ns;
        try {
            ns = Durations.parse(text, 1e6);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("The temporaries' threshold must be a time like 1ms, 250us or 2s, not '" + text + "'");
        }
        if (!(ns >= 1) || ns > Long.MAX_VALUE / 2.0) {
            throw new IllegalArgumentException("The temporaries' threshold must be at least 1 ns, not '" + text + "'");
        }
        return Math.round(ns);
    }

}
