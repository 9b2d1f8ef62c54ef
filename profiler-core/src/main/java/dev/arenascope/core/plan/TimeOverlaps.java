package dev.arenascope.core.plan;

import java.util.Arrays;

/**
 * Which buffers of a problem overlap in time: the lists the canonical search keeps per buffer, and a
 * count of the pairs without listing them (what those lists would cost, checked before building them).
 * Stateless and thread-safe.
 */
final class TimeOverlaps {
    private TimeOverlaps() {}

    /**
     * For each buffer, the buffers overlapping it in time: a sweep over starts in step order, O(n log n
     * + pairs). Checks the deadline as it goes ({@link CanonicalSearch.PastDeadline}).
     */
    static int[][] neighbors(long[] lower, long[] upper, long deadline) {
        int m = lower.length;
        Integer[] boxed = new Integer[m];
        for (int i = 0; i < m; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, (x, y) -> Long.compare(lower[x], lower[y]));
        int[] byLower = new int[m];
        int[] count = new int[m];
        for (int i = 0; i < m; i++) {
            byLower[i] = boxed[i];
        }
        // pass 1 counts, pass 2 fills: j after i in start order overlaps i when lower[j] < upper[i]
        for (int pass = 0; pass < 2; pass++) {
            int[][] out = pass == 1 ? new int[m][] : null;
            if (out != null) {
                for (int i = 0; i < m; i++) {
                    out[i] = new int[count[i]];
                    count[i] = 0;
                }
            }
            for (int a = 0; a < m; a++) {
                if ((a & 1023) == 0 && System.nanoTime() > deadline) {
                    throw new CanonicalSearch.PastDeadline();
                }
                int i = byLower[a];
                for (int b = a + 1; b < m && lower[byLower[b]] < upper[i]; b++) {
                    int j = byLower[b];
                    if (out != null) {
                        out[i][count[i]] = j;
                        out[j][count[j]] = i;
                    }
                    count[i]++;
                    count[j]++;
                }
            }
            if (out != null) {
                for (int[] nb : out) {
                    Arrays.sort(nb);
                }
                return out;
            }
        }
        throw new AssertionError();
    }

    /**
     * Pairs of buffers that overlap in time, counted in O(n log n) without listing them: what the
     * search's tables would hold.
     */
    static long overlappingPairs(PlanProblem problem) {
        int n = problem.size();
        long[] lo = new long[n];
        long[] up = new long[n];
        for (int i = 0; i < n; i++) {
            lo[i] = problem.buffers().get(i).lower();
            up[i] = problem.buffers().get(i).upper();
        }
        Arrays.sort(lo);
        Arrays.sort(up);
        // pairs = sum over buffers of the buffers starting before its end, minus those that ended by
        // its start, minus itself; each pair counted twice
        long total = 0;
        for (int i = 0; i < n; i++) {
            long l = problem.buffers().get(i).lower();
            long u = problem.buffers().get(i).upper();
            total += countBelow(lo, u) - countAtOrBelow(up, l) - 1;
        }
        return total / 2;
    }

    private static int countBelow(long[] sorted, long v) {
        int l = 0;
        int r = sorted.length;
        while (l < r) {
            int mid = (l + r) >>> 1;
            if (sorted[mid] < v) {
                l = mid + 1;
            } else {
                r = mid;
            }
        }
        return l;
    }

    private static int countAtOrBelow(long[] sorted, long v) {
        return countBelow(sorted, v == Long.MAX_VALUE ? v : v + 1);
    }
}
