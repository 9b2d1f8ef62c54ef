package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * TFLite's greedy-by-size offset strategy: buffers in order of decreasing size (ties in
 * problem order); each goes into the smallest gap, between buffers already placed that overlap it in
 * time, that holds it, or above all of them when no gap does. O(n^2). Typically 1.3 to 1.45 times the
 * lower bound on hard problems; a fast first answer and the search planner's starting point.
 */
public record GreedyBySizePlanner() implements Planner {

    @Override
    public String name() {
        return "greedy";
    }

    @Override
    public Packing plan(PlanProblem problem, long capacity, long timeLimitNanos) {
        long t0 = System.nanoTime();
        long[] offsets = place(problem);
        long height = Packing.heightOf(problem, offsets);
        return new Packing(problem, offsets, height, problem.lowerBound(), capacity, name(), System.nanoTime() - t0, false);
    }

    static long[] place(PlanProblem problem) {
        int n = problem.size();
        List<PlanBuffer> bs = problem.buffers();
        long align = problem.alignment();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> -problem.alignedSize(i))
                .thenComparingInt(i -> i));
        long[] offsets = new long[n];
        List<Integer> placed = new ArrayList<>(); // sorted by offset
        for (int i : order) {
            long size = problem.alignedSize(i);
            PlanBuffer b = bs.get(i);
            long best = -1;
            long bestGap = Long.MAX_VALUE;
            long prevEnd = 0;
            for (int p : placed) {
                if (!b.overlapsInTime(bs.get(p))) {
                    continue;
                }
                long start = PlanProblem.alignUp(prevEnd, align);
                long gap = offsets[p] - start;
                if (gap >= size && gap < bestGap) {
                    best = start;
                    bestGap = gap;
                }
                prevEnd = Math.max(prevEnd, offsets[p] + problem.alignedSize(p));
            }
            if (best < 0) {
                best = PlanProblem.alignUp(prevEnd, align);
            }
            offsets[i] = best;
            int pos = insertionPoint(placed, offsets, best);
            placed.add(pos, i);
        }
        return offsets;
    }

    private static int insertionPoint(List<Integer> placed, long[] offsets, long off) {
        int lo = 0;
        int hi = placed.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (offsets[placed.get(mid)] <= off) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
