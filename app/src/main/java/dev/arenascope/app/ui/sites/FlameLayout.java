package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.trace.StackFrame;

/**
 * The rectangles of an icicle (a flame graph with the root on top) of one {@link SiteTree}: each node a
 * box one row below its parent, as wide as its share of its parent's bytes, children left to right
 * largest first. Positions are fractions of the root's width ({@code [0, 1]}), so the painter only
 * scales; built once per answer (one pass over the tree), off or on the FX thread. Immutable.
 */
final class FlameLayout {
    /** Node {@code i}: its tree node, parent box (-1 for the root), depth (root 0) and horizontal extent. */
    final SiteTree.Node[] node;
    final int[] parent;
    final int[] depth;
    final double[] x0;
    final double[] x1;
    /** Baseline bytes at the same location path (compare mode), else null. */
    final long[] baselineBytes;
    final int size;
    /** The box of the allocations without a stack (the root's own bytes, under it at depth 1), -1 when there are none. */
    final int unsited;
    final int maxDepth;
    final long total;

    private FlameLayout(SiteTree tree, BaselineMatch baseline) {
        List<SiteTree.Node> nodes = new ArrayList<>();
        int cap = 256;
        int[] par = new int[cap];
        int[] dep = new int[cap];
        double[] a = new double[cap];
        double[] b = new double[cap];
        SiteTree.Node root = tree.root();
        long rootTotal = Math.max(1, root.totalBytes());
        nodes.add(root);
        par[0] = -1;
        a[0] = 0;
        b[0] = 1;
        int deepest = 0;
        // breadth-first: each box's children follow in order; the explicit queue is the list itself
        for (int i = 0; i < nodes.size(); i++) {
            SiteTree.Node n = nodes.get(i);
            double x = a[i];
            for (SiteTree.Node c : n.children()) {
                int k = nodes.size();
                if (k == par.length) {
                    cap *= 2;
                    par = Arrays.copyOf(par, cap);
                    dep = Arrays.copyOf(dep, cap);
                    a = Arrays.copyOf(a, cap);
                    b = Arrays.copyOf(b, cap);
                }
                nodes.add(c);
                par[k] = i;
                dep[k] = dep[i] + 1;
                deepest = Math.max(deepest, dep[k]);
                a[k] = x;
                x += c.totalBytes() / (double) rootTotal;
                b[k] = x;
            }
        }
        if (root.selfBytes() > 0) { // allocations without a stack: a box of their own after the root's children
            int k = nodes.size();
            if (k == par.length) {
                cap *= 2;
                par = Arrays.copyOf(par, cap);
                dep = Arrays.copyOf(dep, cap);
                a = Arrays.copyOf(a, cap);
                b = Arrays.copyOf(b, cap);
            }
            double x = 0;
            for (SiteTree.Node c : root.children()) {
                x += c.totalBytes() / (double) rootTotal;
            }
            nodes.add(new SiteTree.Node(null, root.selfBytes(), root.selfBytes(), root.count() - childCount(root), List.of()));
            par[k] = 0;
            dep[k] = 1;
            deepest = Math.max(deepest, 1);
            a[k] = x;
            b[k] = x + root.selfBytes() / (double) rootTotal;
            unsited = k;
        } else {
            unsited = -1;
        }
        size = nodes.size();
        node = nodes.toArray(new SiteTree.Node[0]);
        parent = Arrays.copyOf(par, size);
        depth = Arrays.copyOf(dep, size);
        x0 = Arrays.copyOf(a, size);
        x1 = Arrays.copyOf(b, size);
        maxDepth = deepest;
        total = root.totalBytes();
        if (baseline == null) {
            baselineBytes = null;
        } else {
            baselineBytes = new long[size];
            for (int i = 0; i < size; i++) {
                baselineBytes[i] = baseline.node(path(i));
            }
        }
    }

    /** The layout of {@code tree}; with {@code baseline}, each box also gets the baseline's bytes at its path. */
    static FlameLayout of(SiteTree tree, BaselineMatch baseline) {
        return new FlameLayout(tree, baseline);
    }

    private static long childCount(SiteTree.Node n) {
        long c = 0;
        for (SiteTree.Node k : n.children()) {
            c += k.count();
        }
        return c;
    }

    /** The frames from the root's child down to box {@code i} (empty for the root): {@link SiteTree#matcher}'s path. */
    List<StackFrame> path(int i) {
        List<StackFrame> p = new ArrayList<>();
        if (i == unsited) {
            return p;
        }
        for (int k = i; k > 0; k = parent[k]) {
            p.addFirst(node[k].frame());
        }
        return p;
    }

    /** The box whose path is {@code path}, or -1. */
    int find(List<StackFrame> path) {
        int at = 0;
        for (StackFrame f : path) {
            int next = -1;
            for (int k = at + 1; k < size && next < 0; k++) {
                if (parent[k] == at && node[k].frame().equals(f)) {
                    next = k;
                }
            }
            if (next < 0) {
                return -1;
            }
            at = next;
        }
        return at;
    }

    /** Whether box {@code i}'s frame names {@code needle} (lower case) in its function or file. */
    boolean matches(int i, String needle) {
        StackFrame f = node[i].frame();
        return f != null && (f.function().toLowerCase(Locale.ROOT).contains(needle) || f.file().toLowerCase(Locale.ROOT).contains(needle));
    }

    /** What box {@code i} shows. */
    String label(int i) {
        StackFrame f = node[i].frame();
        return i == unsited ? "(no site)" : f == null ? "all" : f.function();
    }
}
