package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The tests' reference for {@link GreedyBySizePlanner}: TFLite's greedy by size written the textbook
 * way (every placed buffer scanned for every buffer, O(n^2)), to compare offsets with.
 */
final class TextbookGreedy {
    private TextbookGreedy() {}

    static long[] place(PlanProblem problem) {
        int n = problem.size();
        List<PlanBuffer> bs = problem.buffers();
        long align = problem.alignment();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> -problem.alignedSize(i)).thenComparingInt(i -> i));
        long[] offsets = new long[n];
        List<Integer> placed = new ArrayList<>(); // sorted by offset
        for (int i : order) {
            long size = problem.alignedSize(i);
            if (size == 0) {
                continue;
            }
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
            int pos = 0;
            while (pos < placed.size() && offsets[placed.get(pos)] <= best) {
                pos++;
            }
            placed.add(pos, i);
        }
        return offsets;
    }
}
