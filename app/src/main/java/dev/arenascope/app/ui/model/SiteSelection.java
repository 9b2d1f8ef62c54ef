package dev.arenascope.app.ui.model;

import java.util.List;

import dev.arenascope.core.trace.StackFrame;

/**
 * An allocation site the user picked (in the site view, or through an allocation's stripe), which the
 * timeline highlights: the allocations of {@code memory} whose site path matches. Frames are compared by
 * location ({@link StackFrame#sameLocation}), so a selection made from one site analysis matches the
 * paths of another of the same trace. Immutable.
 *
 * @param memory the memory's id
 * @param frames the site's frames, innermost first, as {@link dev.arenascope.core.analysis.SiteAnalysis}
 *               paths give them (internal frames hidden); empty: allocations without a site
 * @param match  which paths count as this site's
 */
public record SiteSelection(int memory, List<StackFrame> frames, Match match) {

    /** Which site paths a selection covers. */
    public enum Match {
        /** Exactly this path (an allocation's own site). */
        EXACT,
        /** Every path through this node seen from the root: its outermost frames are these (a top-down tree node). */
        CALLERS,
        /** Every path ending in these frames: its innermost frames are these (a bottom-up tree node). */
        CALLEES
    }

    public SiteSelection {
        frames = List.copyOf(frames);
    }

    /** The exact site {@code frames} (innermost first) of {@code memory}. */
    public static SiteSelection exact(int memory, List<StackFrame> frames) {
        return new SiteSelection(memory, frames, Match.EXACT);
    }

    /** The innermost frame's label, or {@code (no site)}. */
    public String label() {
        return frames.isEmpty() ? "(no site)" : frames.getFirst().label();
    }

    /** Whether a path of this memory (frames innermost first) is this site's. */
    public boolean matches(List<StackFrame> path) {
        return switch (match) {
            case EXACT -> path.size() == frames.size() && same(path, 0, frames, 0, frames.size());
            case CALLERS -> path.size() >= frames.size()
                    && same(path, path.size() - frames.size(), frames, 0, frames.size());
            case CALLEES -> path.size() >= frames.size() && same(path, 0, frames, 0, frames.size());
        };
    }

    private static boolean same(List<StackFrame> a, int from, List<StackFrame> b, int bFrom, int n) {
        for (int i = 0; i < n; i++) {
            if (!a.get(from + i).sameLocation(b.get(bFrom + i))) {
                return false;
            }
        }
        return true;
    }
}
