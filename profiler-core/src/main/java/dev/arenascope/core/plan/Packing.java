package dev.arenascope.core.plan;

import java.util.LinkedHashMap;
import java.util.Map;

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
 */
public record Packing(PlanProblem problem, long[] offsets, long height, long lowerBound, long capacity,
                      String strategy, long elapsedNanos, boolean timedOut) {

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

    /** The height of these offsets: the highest aligned end. */
    static long heightOf(PlanProblem p, long[] offsets) {
        long h = 0;
        for (int i = 0; i < offsets.length; i++) {
            h = Math.max(h, offsets[i] + p.alignedSize(i));
        }
        return h;
    }
}
