package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.StackFrame;

/**
 * A by-site {@link SiteBreakdown} as a call tree. <b>Top-down</b>: the root's children are the
 * outermost frames, each node's children the frames it called. <b>Bottom-up</b>: the root's children
 * are the innermost frames (where the bytes were allocated), each node's children its callers. A node
 * is one path from the root, so a recursive frame appears once per depth.
 *
 * @param root the root (no frame; its total is the breakdown's total)
 */
public record SiteTree(Node root, boolean bottomUp) {

    /**
     * One node.
     *
     * @param frame      the frame, null at the root
     * @param selfBytes  bytes of the sites whose path ends here (top-down: allocated in this frame itself;
     *                   bottom-up: the path's outermost frame)
     * @param totalBytes bytes of every site whose path passes through here
     * @param count      allocations of those sites
     * @param children   by total bytes, largest first
     */
    public record Node(StackFrame frame, long selfBytes, long totalBytes, long count, List<Node> children) {}

    /** The top-down tree of {@code sites} (which must be grouped by site). */
    public static SiteTree topDown(SiteBreakdown sites) {
        return build(sites, false);
    }

    /** The bottom-up tree of {@code sites}. */
    public static SiteTree bottomUp(SiteBreakdown sites) {
        return build(sites, true);
    }

    /**
     * Picks the answer's rows that pass through the node reached from the root by {@code path} (the
     * nodes' frames from the root's child down to the node): for {@link SiteAnalysis#members}, the
     * allocations behind that node. The empty path is the root: every row.
     */
    public SiteAnalysis.RowMatcher matcher(List<StackFrame> path) {
        List<StackFrame> p = List.copyOf(path);
        boolean up = bottomUp;
        return (label, frames) -> {
            int n = frames.size();
            if (n < p.size()) {
                return false;
            }
            for (int k = 0; k < p.size(); k++) {
                if (!frames.get(up ? k : n - 1 - k).equals(p.get(k))) {
                    return false;
                }
            }
            return true;
        };
    }

    private static final class Builder {
        final StackFrame frame;
        long self;
        long total;
        long count;
        final Map<StackFrame, Builder> children = new LinkedHashMap<>();

        Builder(StackFrame frame) {
            this.frame = frame;
        }

        Node freeze() {
            List<Node> kids = new ArrayList<>();
            for (Builder b : children.values()) {
                kids.add(b.freeze());
            }
            kids.sort((a, b) -> Long.compare(b.totalBytes(), a.totalBytes()));
            return new Node(frame, self, total, count, List.copyOf(kids));
        }
    }

    private static SiteTree build(SiteBreakdown sites, boolean bottomUp) {
        Builder root = new Builder(null);
        for (SiteBreakdown.Row r : sites.rows()) {
            root.total += r.bytes();
            root.count += r.count();
            List<StackFrame> path = r.frames(); // innermost first
            Builder at = root;
            int n = path.size();
            for (int k = 0; k < n; k++) {
                StackFrame f = path.get(bottomUp ? k : n - 1 - k);
                at = at.children.computeIfAbsent(f, Builder::new);
                at.total += r.bytes();
                at.count += r.count();
            }
            at.self += r.bytes();
        }
        return new SiteTree(root.freeze(), bottomUp);
    }
}
