package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A static allocation problem: buffers with lifetimes and sizes, and the alignment every offset must
 * respect. Sizes are rounded up to the alignment when packing. Immutable.
 *
 * @param buffers   the buffers (ids unique)
 * @param alignment bytes, at least 1
 */
public record PlanProblem(List<PlanBuffer> buffers, long alignment) {
    public PlanProblem {
        buffers = List.copyOf(buffers);
        if (alignment < 1) {
            throw new IllegalArgumentException("alignment must be at least 1 byte, got " + alignment);
        }
        Set<String> ids = new HashSet<>();
        for (PlanBuffer b : buffers) {
            if (!ids.add(b.id())) {
                throw new IllegalArgumentException("duplicate buffer id '" + b.id() + "'");
            }
        }
    }

    public PlanProblem(List<PlanBuffer> buffers) {
        this(buffers, 1);
    }

    public int size() {
        return buffers.size();
    }

    /** The buffer's size rounded up to the alignment. */
    public long alignedSize(int i) {
        return alignUp(buffers.get(i).size(), alignment);
    }

    /** {@code v} rounded up to a multiple of {@code a}. */
    public static long alignUp(long v, long a) {
        long r = v % a;
        return r == 0 ? v : Math.addExact(v, a - r);
    }

    /** The largest aligned buffer size (0 when empty). */
    public long largest() {
        long m = 0;
        for (int i = 0; i < size(); i++) {
            m = Math.max(m, alignedSize(i));
        }
        return m;
    }

    /**
     * The lower bound on any packing's height: the most (aligned) bytes live at one step. No packing can
     * be lower; the search planner's goal is to reach it.
     */
    public long lowerBound() {
        int n = size();
        long[][] ev = new long[2 * n][];
        for (int i = 0; i < n; i++) {
            PlanBuffer b = buffers.get(i);
            ev[2 * i] = new long[] {b.lower(), alignedSize(i)};
            ev[2 * i + 1] = new long[] {b.upper(), -alignedSize(i)};
        }
        // ends before starts at the same step: [lower, upper) intervals
        Arrays.sort(ev, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        long live = 0;
        long max = 0;
        for (long[] e : ev) {
            live += e[1];
            max = Math.max(max, live);
        }
        return max;
    }
}
