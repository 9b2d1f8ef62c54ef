package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.TreeMap;

/**
 * Where a packing's height sits in time: at every step, the arena's <em>top</em> (the highest end of a
 * buffer live there) beside the bytes live there, so the distance between the two (the holes below the
 * top) can be read per step. A packing above its load is so because of the steps where the top is high;
 * this says how many there are, and how much of the arena is holes where the live bytes are at their
 * most. Kept as runs of steps over which neither changes ({@code [from[r], from[r + 1])}, the last run
 * up to the problem's last step). One sweep over the starts and ends, O(n log n); immutable.
 *
 * @param from the first step of each run, ascending
 * @param top  the top in each run (bytes; 0 where nothing is live)
 * @param live the bytes live in each run
 * @param end  one past the last step of the last run
 */
public record HeightProfile(long[] from, long[] top, long[] live, long end) {

    /** The profile of {@code offsets} (by buffer index) on {@code problem}, sizes aligned. */
    public static HeightProfile of(PlanProblem problem, long[] offsets) {
        int n = problem.size();
        Integer[] byLower = new Integer[n];
        Integer[] byUpper = new Integer[n];
        long end = 0;
        for (int i = 0; i < n; i++) {
            byLower[i] = i;
            byUpper[i] = i;
            end = Math.max(end, problem.buffers().get(i).upper());
        }
        Arrays.sort(byLower, (a, b) -> Long.compare(problem.buffers().get(a).lower(), problem.buffers().get(b).lower()));
        Arrays.sort(byUpper, (a, b) -> Long.compare(problem.buffers().get(a).upper(), problem.buffers().get(b).upper()));
        long[] from = new long[2 * n + 1];
        long[] top = new long[2 * n + 1];
        long[] live = new long[2 * n + 1];
        int runs = 0;
        TreeMap<Long, Integer> tops = new TreeMap<>();     // end of each live buffer -> how many
        long bytes = 0;
        int s = 0;
        int e = 0;
        while (s < n || e < n) {
            long t = Math.min(s < n ? problem.buffers().get(byLower[s]).lower() : Long.MAX_VALUE,
                    e < n ? problem.buffers().get(byUpper[e]).upper() : Long.MAX_VALUE);
            while (e < n && problem.buffers().get(byUpper[e]).upper() == t) {
                int j = byUpper[e++];
                long size = problem.alignedSize(j);
                if (size > 0) {
                    bytes -= size;
                    tops.merge(offsets[j] + size, -1, (x, y) -> x + y == 0 ? null : x + y);
                }
            }
            while (s < n && problem.buffers().get(byLower[s]).lower() == t) {
                int i = byLower[s++];
                long size = problem.alignedSize(i);
                if (size > 0) {
                    bytes += size;
                    tops.merge(offsets[i] + size, 1, Integer::sum);
                }
            }
            if (t >= end) {
                break;
            }
            long h = tops.isEmpty() ? 0 : tops.lastKey();
            if (runs > 0 && top[runs - 1] == h && live[runs - 1] == bytes) {
                continue;
            }
            from[runs] = t;
            top[runs] = h;
            live[runs] = bytes;
            runs++;
        }
        return new HeightProfile(Arrays.copyOf(from, runs), Arrays.copyOf(top, runs), Arrays.copyOf(live, runs), end);
    }

    /** Steps at which the top is above {@code bytes}. */
    public long stepsAbove(long bytes) {
        long steps = 0;
        for (int r = 0; r < from.length; r++) {
            if (top[r] > bytes) {
                steps += (r + 1 < from.length ? from[r + 1] : end) - from[r];
            }
        }
        return steps;
    }

    /** Steps at which the live bytes are at least {@code bytes}. */
    public long stepsLiveAtLeast(long bytes) {
        long steps = 0;
        for (int r = 0; r < from.length; r++) {
            if (live[r] >= bytes) {
                steps += (r + 1 < from.length ? from[r + 1] : end) - from[r];
            }
        }
        return steps;
    }

    /** The holes below the top (top minus live bytes) at the first step where the live bytes are at their most. */
    public long holesAtLivePeak() {
        int best = -1;
        for (int r = 0; r < from.length; r++) {
            if (best < 0 || live[r] > live[best]) {
                best = r;
            }
        }
        return best < 0 ? 0 : top[best] - live[best];
    }
}
