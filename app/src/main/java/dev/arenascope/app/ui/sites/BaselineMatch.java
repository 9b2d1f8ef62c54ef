package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.trace.StackFrame;

/**
 * The baseline's bytes at the same place as a line of the current answer, for compare mode. Places
 * match by code location (function, file, line), as {@link dev.arenascope.core.analysis.SiteDiff}
 * matches sites: frame ids differ between traces. A site by its frames (or its label without frames,
 * which is how categories and {@code (no site)} match); a tree node by its path from the root.
 * Immutable once built.
 */
final class BaselineMatch {
    private record Loc(String function, String file, int line) {
        static Loc of(StackFrame f) {
            return new Loc(f.function(), f.file(), f.line());
        }
    }

    private final Map<List<Loc>, Long> rows = new HashMap<>();
    private final Map<List<Loc>, Long> nodes = new HashMap<>();

    BaselineMatch(SiteBreakdown baseline, SiteTree baselineTree) {
        for (SiteBreakdown.Row r : baseline.rows()) {
            rows.merge(rowKey(r.label(), r.frames()), r.bytes(), Long::sum);
        }
        if (baselineTree != null) {
            record Work(SiteTree.Node n, List<Loc> path) {}
            List<Work> stack = new ArrayList<>();
            stack.add(new Work(baselineTree.root(), List.of()));
            while (!stack.isEmpty()) {
                Work w = stack.removeLast();
                nodes.merge(w.path, w.n.totalBytes(), Long::sum);
                for (SiteTree.Node c : w.n.children()) {
                    List<Loc> p = new ArrayList<>(w.path.size() + 1);
                    p.addAll(w.path);
                    p.add(Loc.of(c.frame()));
                    stack.add(new Work(c, p));
                }
            }
        }
    }

    private static List<Loc> rowKey(String label, List<StackFrame> frames) {
        if (frames.isEmpty()) {
            return List.of(new Loc(label, "", -1));
        }
        List<Loc> k = new ArrayList<>(frames.size());
        for (StackFrame f : frames) {
            k.add(Loc.of(f));
        }
        return k;
    }

    /** The baseline's bytes at the site (or category) {@code label}/{@code frames}; 0 when it had none. */
    long row(String label, List<StackFrame> frames) {
        return rows.getOrDefault(rowKey(label, frames), 0L);
    }

    /** The baseline's bytes through the tree node at {@code path} (frames from the root down); 0 when it had none. */
    long node(List<StackFrame> path) {
        List<Loc> k = new ArrayList<>(path.size());
        for (StackFrame f : path) {
            k.add(Loc.of(f));
        }
        return nodes.getOrDefault(k, 0L);
    }
}
