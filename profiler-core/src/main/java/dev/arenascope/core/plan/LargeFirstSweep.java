package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.TreeSet;

/**
 * Two size classes packed apart and then together, for the sweep planner: the large buffers first, alone
 * ({@link SweepPlanner#affinitySweep}, forward or mirrored in time), then a sweep over time that puts each
 * small buffer, at its start, into the free bytes the large ones and the small ones placed before it
 * leave. A large buffer's bytes are known before it starts, so a small one may take a gap only where no
 * large buffer starts before the small one ends: each candidate position is checked against the large
 * buffers still to come ({@link #place}).
 *
 * <p>Why: where frees come at random moments, small buffers put among large ones hold holes open that
 * only a large buffer could have filled (a few KiB keep a MiB hole from merging with its neighbour).
 * Packed alone, the large buffers lie tighter; the small ones, which are many, fill the holes left.
 * On the bench's snapshot model this lowers the height from 5.4% above the load to about 3.8% (see the
 * performance record); where lifetimes nest, the plain sweeps stay lower and the planner keeps those.
 *
 * <p>Small means: the smallest buffers that together hold at most {@link #SMALL_SHARE} of the problem's
 * area (bytes times steps). Stateless; O(n log n) plus, for the few small buffers that find no checked
 * position among the gaps, a lowest fit against every buffer overlapping them in time.
 */
final class LargeFirstSweep {
    /** The share of the area (bytes times steps) the small class holds at most. */
    static final double SMALL_SHARE = 1.0 / 20;
    /** Gaps weighed for a small buffer, the smallest that hold it, tried lowest offset first. */
    static final int CANDIDATES = 256;
    /** Large buffers starting within this many mean lifetimes are kept by offset for the checks. */
    static final int HORIZON_LIFETIMES = 4;

    private LargeFirstSweep() {}

    /**
     * The size at or below which a buffer is small: the largest size such that the buffers no larger
     * hold at most {@link #SMALL_SHARE} of the area; -1 when even the smallest size holds more.
     */
    static long smallAtMost(long[] lo, long[] up, long[] sz) {
        int n = sz.length;
        double total = 0;
        for (int i = 0; i < n; i++) {
            total += (double) sz[i] * (up[i] - lo[i]);
        }
        int[] order = SweepPlanner.byKey(sz);
        double acc = 0;
        long cut = -1;
        for (int a = 0; a < n; ) {    // whole runs of one size: a size straddling the share stays large
            int b = a;
            double run = 0;
            while (b < n && sz[order[b]] == sz[order[a]]) {
                run += (double) sz[order[b]] * (up[order[b]] - lo[order[b]]);
                b++;
            }
            if (acc + run > SMALL_SHARE * total) {
                break;
            }
            acc += run;
            cut = sz[order[a]];
            a = b;
        }
        return cut;
    }

    /**
     * Offsets for all buffers: the large ones ({@code sz > smallAtMost}) at {@code largeOffsets}, which
     * must be a packing of them alone, the small ones swept in. Lifetimes are half-open.
     */
    static long[] place(long[] lo, long[] up, long[] sz, long smallAtMost, long[] largeOffsets) {
        int n = lo.length;
        long[] off = new long[n];
        boolean[] large = new boolean[n];
        double lives = 0;
        int nl = 0;
        for (int i = 0; i < n; i++) {
            large[i] = sz[i] > smallAtMost;
            lives += Math.max(1, up[i] - lo[i]);
            if (large[i]) {
                nl++;
            }
        }
        long horizon = Math.max(1, (long) (HORIZON_LIFETIMES * lives / Math.max(1, n)));
        int[] byStart = largeFirstAmongEqualStarts(SweepPlanner.byKey(lo), lo, large);
        int[] byEnd = SweepPlanner.byKey(up);
        int[] larges = new int[nl];
        long maxLarge = 0;
        int c = 0;
        for (int i : byStart) {
            if (large[i]) {
                larges[c++] = i;
                maxLarge = Math.max(maxLarge, sz[i]);
            }
        }
        // large buffers not started yet but starting within the horizon, by offset
        TreeSet<long[]> coming = new TreeSet<>((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        int next = 0;                       // larges[next..] are not in coming yet
        int[] live = new int[n];            // live buffers (any class), unordered, with each one's slot
        int[] slot = new int[n];
        int liveCount = 0;
        long[] highestAfter = new long[nl + 1];    // the highest end of larges[r..], by r
        for (int r = nl - 1; r >= 0; r--) {
            highestAfter[r] = Math.max(highestAfter[r + 1], largeOffsets[larges[r]] + sz[larges[r]]);
        }
        FreeSpace free = new FreeSpace();
        long[][] cand = new long[CANDIDATES][2];
        int e = 0;
        for (int q = 0; q < n; q++) {
            int i = byStart[q];
            long now = lo[i];
            while (e < n && up[byEnd[e]] <= now) {
                int j = byEnd[e++];
                if (sz[j] > 0) {
                    free.free(off[j], sz[j]);
                    int s = slot[j];
                    live[s] = live[--liveCount];
                    slot[live[s]] = s;
                }
            }
            long until = now > Long.MAX_VALUE - horizon ? Long.MAX_VALUE : now + horizon;
            while (next < nl && lo[larges[next]] <= until) {
                int j = larges[next++];
                if (sz[j] > 0) {
                    coming.add(new long[]{largeOffsets[j], j});
                }
            }
            if (sz[i] == 0) {
                continue;
            }
            long at = -1;
            if (large[i]) {
                coming.remove(new long[]{largeOffsets[i], i});
                at = largeOffsets[i];
            } else {
                long size = sz[i];
                long end = up[i];
                if (end <= until) {
                    int k = free.fitting(size, CANDIDATES, cand);
                    Arrays.sort(cand, 0, k, (x, y) -> Long.compare(x[0], y[0]));
                    for (int g = 0; g < k && at < 0; g++) {
                        if (clear(cand[g][0], size, end, coming, maxLarge, lo, sz, largeOffsets)) {
                            at = cand[g][0];
                        } else if (clear(cand[g][1] - size, size, end, coming, maxLarge, lo, sz, largeOffsets)) {
                            at = cand[g][1] - size;
                        }
                    }
                }
                if (at < 0) {
                    at = lowestFit(size, end, off, sz, lo, live, liveCount, coming, larges, next, largeOffsets, highestAfter);
                }
            }
            free.take(at, sz[i]);
            off[i] = at;
            slot[i] = liveCount;
            live[liveCount++] = i;
        }
        return off;
    }

    /** Obstacles a fallback placement sorts at most; beyond, the small buffer goes above them all. */
    static final int FALLBACK_OBSTACLES = 1 << 16;

    /**
     * Where a small buffer goes when no checked gap holds it: the lowest fit against everything live now
     * and every large buffer that starts before {@code end}; when those are more than
     * {@link #FALLBACK_OBSTACLES}, above all of them and every large buffer still to come.
     */
    private static long lowestFit(long size, long end, long[] off, long[] sz, long[] lo, int[] live, int liveCount,
                                  TreeSet<long[]> coming, int[] larges, int next, long[] largeOffsets, long[] highestAfter) {
        int stop = next;    // larges[next..stop) start before end (larges are by start)
        int hi = larges.length;
        while (stop < hi) {
            int mid = (stop + hi) >>> 1;
            if (lo[larges[mid]] < end) {
                stop = mid + 1;
            } else {
                hi = mid;
            }
        }
        long need = (long) liveCount + coming.size() + (stop - next);
        if (need > FALLBACK_OBSTACLES) {
            long top = highestAfter[next];
            for (int s = 0; s < liveCount; s++) {
                top = Math.max(top, off[live[s]] + sz[live[s]]);
            }
            for (long[] w : coming) {
                top = Math.max(top, w[0] + sz[(int) w[1]]);
            }
            return top;
        }
        long[] gLo = new long[(int) need];
        long[] gHi = new long[(int) need];
        int g = 0;
        for (int s = 0; s < liveCount; s++) {
            int j = live[s];
            gLo[g] = off[j];
            gHi[g++] = off[j] + sz[j];
        }
        for (long[] w : coming) {
            int j = (int) w[1];
            if (lo[j] < end) {
                gLo[g] = w[0];
                gHi[g++] = w[0] + sz[j];
            }
        }
        for (int r = next; r < stop; r++) {
            int j = larges[r];
            if (sz[j] > 0) {
                gLo[g] = largeOffsets[j];
                gHi[g++] = largeOffsets[j] + sz[j];
            }
        }
        return SweepPlanner.lowestFit(gLo, gHi, g, size);
    }

    /** Whether {@code [at, at + size)} meets no large buffer in {@code coming} that starts before {@code end}. */
    private static boolean clear(long at, long size, long end, TreeSet<long[]> coming, long maxLarge, long[] lo,
                                 long[] sz, long[] largeOffsets) {
        long from = at > Long.MIN_VALUE + maxLarge ? at - maxLarge : Long.MIN_VALUE;
        for (long[] w : coming.subSet(new long[]{from, -1}, true, new long[]{at + size, -1}, false)) {
            int j = (int) w[1];
            if (lo[j] < end && largeOffsets[j] + sz[j] > at) {
                return false;
            }
        }
        return true;
    }

    /** {@code byStart} with, in each run of equal starts, the large buffers before the small ones (stable). */
    private static int[] largeFirstAmongEqualStarts(int[] byStart, long[] lo, boolean[] large) {
        int n = byStart.length;
        int[] out = new int[n];
        int w = 0;
        for (int a = 0; a < n; ) {
            int b = a;
            while (b < n && lo[byStart[b]] == lo[byStart[a]]) {
                b++;
            }
            for (int q = a; q < b; q++) {
                if (large[byStart[q]]) {
                    out[w++] = byStart[q];
                }
            }
            for (int q = a; q < b; q++) {
                if (!large[byStart[q]]) {
                    out[w++] = byStart[q];
                }
            }
            a = b;
        }
        return out;
    }
}
