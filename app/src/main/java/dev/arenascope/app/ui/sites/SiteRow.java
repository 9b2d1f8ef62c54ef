package dev.arenascope.app.ui.sites;

import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.trace.StackFrame;

/**
 * One line of the site view's tree table: a site of the flat table (its callers as child lines), a node
 * of a call tree, a category, or a site only the baseline has. Immutable.
 *
 * @param kind          what the line is
 * @param frame         the line's frame (a site's innermost, a node's, a caller), null for categories and {@code (no site)}
 * @param label         what the first column shows when there is no frame
 * @param siteFrames    a site's frames, innermost first ({@link Kind#SITE}, {@link Kind#CALLER}, {@link Kind#REMOVED})
 * @param path          a node's frames from the root down ({@link Kind#NODE})
 * @param bytes         bytes the question counts here (a node: its total)
 * @param self          a node's own bytes (those of sites ending there); a site's or category's bytes
 * @param count         allocations
 * @param baselineBytes the baseline's bytes at the same place (compare mode), -1 without a baseline
 */
public record SiteRow(Kind kind, StackFrame frame, String label, List<StackFrame> siteFrames, List<StackFrame> path,
                      long bytes, long self, long count, long baselineBytes) {

    /** What a line is. */
    public enum Kind {
        /** A site of the flat table. */
        SITE,
        /** A caller of its parent site (shown, not counted again). */
        CALLER,
        /** A node of a top-down or bottom-up tree. */
        NODE,
        /** A category. */
        CATEGORY,
        /** A site or category only the baseline has (compare mode): 0 bytes now. */
        REMOVED
    }

    public SiteRow {
        siteFrames = siteFrames == null ? List.of() : List.copyOf(siteFrames);
        path = path == null ? List.of() : List.copyOf(path);
    }

    static SiteRow site(SiteBreakdown.Row r, long baseline) {
        return new SiteRow(Kind.SITE, r.frames().isEmpty() ? null : r.frames().getFirst(), r.label(), r.frames(), List.of(),
                r.bytes(), r.bytes(), r.count(), baseline);
    }

    static SiteRow caller(SiteRow site, int k) {
        return new SiteRow(Kind.CALLER, site.siteFrames.get(k), site.siteFrames.get(k).label(), site.siteFrames, List.of(), -1, -1, -1, -1);
    }

    static SiteRow node(SiteTree.Node n, List<StackFrame> path, long baseline) {
        return new SiteRow(Kind.NODE, n.frame(), n.frame() == null ? "all sites" : n.frame().label(), List.of(), path,
                n.totalBytes(), n.selfBytes(), n.count(), baseline);
    }

    static SiteRow category(SiteBreakdown.Row r, long baseline) {
        return new SiteRow(Kind.CATEGORY, null, r.label(), List.of(), List.of(), r.bytes(), r.bytes(), r.count(), baseline);
    }

    static SiteRow removed(String label, List<StackFrame> frames, long baselineBytes, boolean category) {
        return new SiteRow(Kind.REMOVED, category || frames.isEmpty() ? null : frames.getFirst(), label, frames, List.of(), 0, 0, 0,
                baselineBytes);
    }

    /** Whether selecting the line selects allocations (callers select their site's). */
    public boolean selectable() {
        return kind != Kind.REMOVED;
    }

    /** The function (or the label without a frame), the first column. */
    public String name() {
        return frame == null ? label : frame.function().isEmpty() ? label : frame.function();
    }

    /** {@code file:line} of the frame, or "". */
    public String location() {
        if (frame == null || frame.file().isEmpty()) {
            return "";
        }
        return frame.file() + (frame.line() > 0 ? ":" + frame.line() : "");
    }

    /** Bytes now minus the baseline's (compare mode). */
    public long delta() {
        return bytes - Math.max(0, baselineBytes);
    }

    /** Whether the line's function or file holds {@code needle} (lower case), any of a site's frames included. */
    public boolean matches(String needle) {
        if (needle.isEmpty()) {
            return true;
        }
        if (label.toLowerCase(Locale.ROOT).contains(needle)) {
            return true;
        }
        List<StackFrame> fs = kind == Kind.NODE ? (frame == null ? List.of() : List.of(frame)) : siteFrames;
        for (StackFrame f : fs) {
            if (f.function().toLowerCase(Locale.ROOT).contains(needle) || f.file().toLowerCase(Locale.ROOT).contains(needle)) {
                return true;
            }
        }
        return false;
    }

    /** Picks the analysis rows behind this line, for {@link SiteAnalysis#members}; null when none can be. */
    SiteAnalysis.RowMatcher matcher(SiteTree tree) {
        return switch (kind) {
            case SITE, CALLER -> {
                List<StackFrame> want = siteFrames;
                String l = label;
                yield (lab, frames) -> frames.equals(want) && (!want.isEmpty() || lab.equals(l));
            }
            case NODE -> tree == null ? null : tree.matcher(path);
            case CATEGORY -> {
                String l = label;
                yield (lab, frames) -> lab.equals(l);
            }
            case REMOVED -> null;
        };
    }
}
