package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A static allocation problem: buffers with lifetimes and sizes, and the alignment every offset must
 * respect. Sizes are rounded up to the alignment when packing. Immutable.
 *
 * <p><b>Limits.</b> Steps lie in {@code [0, MAX_STEP]} and the aligned sizes of all buffers together
 * stay at or below {@link #MAX_TOTAL_BYTES}, so that every height, offset and end a planner computes
 * (never more than the sum of the sizes) fits a {@code long} with room to spare; the readers refuse
 * input past them naming the line and field, and the constructor with an {@link IllegalArgumentException}.
 *
 * @param buffers   the buffers (ids unique)
 * @param alignment bytes, at least 1
 */
public record PlanProblem(List<PlanBuffer> buffers, long alignment) {
    /** The largest step a lifetime may reach ({@code upper <= MAX_STEP}): 2^62. */
    public static final long MAX_STEP = 1L << 62;
    /** The most bytes all buffers of one problem may add up to, aligned: 2^62 (4 EiB). */
    public static final long MAX_TOTAL_BYTES = 1L << 62;

    public PlanProblem {
        buffers = List.copyOf(buffers);
        if (alignment < 1 || alignment > MAX_TOTAL_BYTES) {
            throw new IllegalArgumentException("alignment must be between 1 byte and 2^62, got " + alignment);
        }
        Set<String> ids = new HashSet<>();
        long total = 0;
        for (PlanBuffer b : buffers) {
            if (!ids.add(b.id())) {
                throw new IllegalArgumentException("duplicate buffer id '" + b.id() + "'");
            }
            if (b.upper() > MAX_STEP) {
                throw new IllegalArgumentException("buffer '" + b.id() + "' ends at step " + b.upper()
                        + ", past the largest step 2^62");
            }
            long a = b.size() > MAX_TOTAL_BYTES ? MAX_TOTAL_BYTES + 1 : alignUp(b.size(), alignment);
            total += Math.min(a, MAX_TOTAL_BYTES + 1);
            if (total > MAX_TOTAL_BYTES) {
                throw new IllegalArgumentException("buffer '" + b.id() + "' takes the sizes past 2^62 bytes in all");
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
     * be lower; the search planner's goal is to reach it. O(n log n).
     */
    public long lowerBound() {
        int n = size();
        // starts and ends as (step << 1 | kind) with the index kept apart: ends (kind 0) before starts
        // (kind 1) at the same step, since lifetimes are [lower, upper)
        long[] starts = new long[n];
        long[] ends = new long[n];
        long[] startSize = new long[n];
        long[] endSize = new long[n];
        Integer[] byLower = new Integer[n];
        Integer[] byUpper = new Integer[n];
        for (int i = 0; i < n; i++) {
            byLower[i] = i;
            byUpper[i] = i;
        }
        Arrays.sort(byLower, (x, y) -> Long.compare(buffers.get(x).lower(), buffers.get(y).lower()));
        Arrays.sort(byUpper, (x, y) -> Long.compare(buffers.get(x).upper(), buffers.get(y).upper()));
        for (int k = 0; k < n; k++) {
            starts[k] = buffers.get(byLower[k]).lower();
            startSize[k] = alignedSize(byLower[k]);
            ends[k] = buffers.get(byUpper[k]).upper();
            endSize[k] = alignedSize(byUpper[k]);
        }
        long live = 0;
        long max = 0;
        int e = 0;
        for (int s = 0; s < n; s++) {
            while (e < n && ends[e] <= starts[s]) {
                live -= endSize[e++];
            }
            live += startSize[s];
            max = Math.max(max, live);
        }
        return max;
    }
}
