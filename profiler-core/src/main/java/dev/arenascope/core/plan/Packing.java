package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A planner's answer: one offset per buffer of the problem (same order), with the packing's height
 * (highest byte used), the problem's lower bound beside it, and how the search went.
 *
 * @param problem      the problem solved
 * @param offsets      offset of buffer i in bytes (a multiple of the alignment)
 * @param height       one past the highest byte used (0 for an empty problem)
 * @param lowerBound   the most bytes live at one step: no packing is lower
 * @param capacity     the capacity asked for, or {@code Long.MAX_VALUE} when none
 * @param strategy     the planner's name ({@code greedy}, {@code search})
 * @param elapsedNanos wall time the planner took
 * @param timedOut     whether a search stopped at its time limit before it finished
 * @param bound        a proved lower bound on every packing's height, at least {@code lowerBound}: the
 *                     search raises it past each height it proved impossible. {@code height == bound}
 *                     proves the packing optimal
 * @param basis        what {@code bound} rests on (see {@link LowerBounds})
 */
public record Packing(PlanProblem problem, long[] offsets, long height, long lowerBound, long capacity,
                      String strategy, long elapsedNanos, boolean timedOut, long bound, LowerBounds.Basis basis) {

    public Packing {
        Objects.requireNonNull(basis, "basis");
    }

    /** A packing whose only proof is the lower bound ({@code bound = lowerBound}). */
    public Packing(PlanProblem problem, long[] offsets, long height, long lowerBound, long capacity,
                   String strategy, long elapsedNanos, boolean timedOut) {
        this(problem, offsets, height, lowerBound, capacity, strategy, elapsedNanos, timedOut, lowerBound);
    }

    /** A packing with a proved bound: the load's when {@code bound <= lowerBound}, else the search's. */
    public Packing(PlanProblem problem, long[] offsets, long height, long lowerBound, long capacity,
                   String strategy, long elapsedNanos, boolean timedOut, long bound) {
        this(problem, offsets, height, lowerBound, capacity, strategy, elapsedNanos, timedOut, bound,
                bound > lowerBound ? LowerBounds.Basis.SEARCH : LowerBounds.Basis.LOAD);
    }

    /** Whether no packing is lower: the height equals the proved bound. */
    public boolean provedOptimal() {
        return height <= bound;
    }

    /**
     * The certified gap in percent: how far above the proved bound the height is at most,
     * {@code (height - bound) / bound * 100}, rounded up to a hundredth (0 when optimal or empty).
     */
    public double gapPercent() {
        if (provedOptimal() || bound <= 0) {
            return 0;
        }
        return Math.ceil((height - bound) * 10000.0 / bound) / 100.0;
    }

    /**
     * The proof status as {@code plan} prints it: {@code optimal} or {@code gap <= X%}. What the proof
     * rests on is {@link #basis()}.
     */
    public String proof() {
        return provedOptimal() ? "optimal" : String.format(Locale.ROOT, "gap <= %.2f%%", gapPercent());
    }

    /** Whether the packing fits in the capacity asked for. */
    public boolean fits() {
        return height <= capacity;
    }

    /** Height over lower bound (1.0 is optimal; 1.0 for an empty problem). */
    public double ratio() {
        return lowerBound == 0 ? 1.0 : height / (double) lowerBound;
    }

    public long offset(int i) {
        return offsets[i];
    }

    /** Buffer id to offset, in problem order. */
    public Map<String, Long> offsetsById() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < offsets.length; i++) {
            m.put(problem.buffers().get(i).id(), offsets[i]);
        }
        return m;
    }

    /**
     * Whether no two buffers live at a common step share a byte, every offset is aligned and not
     * negative, and the height is the highest end: a sweep over time keeping the live buffers by
     * offset, O(n log n). Written apart from the planners (it shares no code with them).
     */
    public boolean overlapFree() {
        int n = offsets.length;
        if (n != problem.size()) {
            return false;
        }
        long h = 0;
        Integer[] byLower = new Integer[n];
        Integer[] byUpper = new Integer[n];
        for (int i = 0; i < n; i++) {
            byLower[i] = i;
            byUpper[i] = i;
            if (offsets[i] < 0 || offsets[i] % problem.alignment() != 0) {
                return false;
            }
            h = Math.max(h, offsets[i] + problem.alignedSize(i));
        }
        if (h != height) {
            return false;
        }
        Arrays.sort(byLower, Comparator.comparingLong(i -> problem.buffers().get(i).lower()));
        Arrays.sort(byUpper, Comparator.comparingLong(i -> problem.buffers().get(i).upper()));
        TreeMap<Long, Long> live = new TreeMap<>(); // offset -> end
        int e = 0;
        for (int q = 0; q < n; q++) {
            int i = byLower[q];
            long at = problem.buffers().get(i).lower();
            while (e < n && problem.buffers().get(byUpper[e]).upper() <= at) {
                int j = byUpper[e++];
                if (problem.alignedSize(j) > 0) {
                    live.remove(offsets[j]);
                }
            }
            long size = problem.alignedSize(i);
            if (size == 0) {
                continue;
            }
            var below = live.floorEntry(offsets[i]);
            var above = live.ceilingEntry(offsets[i]);
            if ((below != null && below.getValue() > offsets[i]) || (above != null && above.getKey() < offsets[i] + size)) {
                return false;
            }
            live.put(offsets[i], offsets[i] + size);
        }
        return true;
    }

    /** The height of these offsets: the highest aligned end. */
    static long heightOf(PlanProblem p, long[] offsets) {
        long h = 0;
        for (int i = 0; i < offsets.length; i++) {
            h = Math.max(h, offsets[i] + p.alignedSize(i));
        }
        return h;
    }
}
