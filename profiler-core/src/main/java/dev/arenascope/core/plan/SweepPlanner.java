package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;

/**
 * A planner for big problems (10^4 to 10^6 buffers and more), near-linear in the buffers: a sweep over
 * time places each buffer, in order of its start, into the free bytes at that instant ({@link FreeSpace}:
 * the gaps between live buffers, by offset and by size), best fit — the smallest gap that holds it, its
 * lowest offset, or the top when none does. Every buffer placed before one that overlaps it in time is
 * live at its start, so the free bytes at the start are exactly where it may go, and the sweep never
 * needs the pairs of buffers that overlap (which the other planners gather, quadratic where many
 * buffers are live at once). O(n log n).
 *
 * <p>Several sweeps run and the lowest packing wins: forward and backward in time (a problem's peak is
 * often packed better from one side), each with two orders of the buffers that start together (longer
 * lifetime first, larger first), two that pack the large buffers alone and then sweep the small ones
 * into the gaps they leave ({@link LargeFirstSweep}), and two that place by <em>end affinity</em>
 * ({@link #affinitySweep}). Then {@link #repair} lowers the peak region: the buffers whose top
 * is above the lower bound are taken out and put back, largest first, each at the lowest offset where it
 * fits against everything else (a second sweep over just their neighbours in time). Where the problem
 * is small enough for it to be quick ({@link #GREEDY_PAIRS} pairs of buffers overlapping in time at
 * most), greedy by size runs too, so the answer is never above greedy's there.
 *
 * <p>The capacity is not a goal here (the answer only reports {@link Packing#fits()}); the bound is the
 * load ({@link PlanProblem#lowerBound()}). Stateless and thread-safe.
 */
public record SweepPlanner() implements Planner {
    /** Above this many buffers {@code plan}'s default strategy ({@code auto}) takes this planner. */
    public static final int AUTO_THRESHOLD = 10_000;
    /**
     * Sweeps tried in this order, each forward and then backward in time, the lowest kept: best fit with
     * longer lifetimes first among equal starts (0-1), end affinity (2-3), the large buffers first and the
     * small ones into their gaps ({@link LargeFirstSweep}, 4-5), best fit with larger first (6-7). The
     * cheap first, so that a time limit cuts the least: at 10^6 buffers a large-first sweep takes about a
     * minute, and a short limit then keeps what end affinity found.
     */
    static final int VARIANTS = 8;
    /** Greedy by size also runs when the pairs of buffers overlapping in time are at most this many. */
    static final long GREEDY_PAIRS = 20_000_000;

    @Override
    public String name() {
        return "sweep";
    }

    @Override
    public Packing plan(PlanProblem problem, long capacity, long timeLimitNanos) {
        long t0 = System.nanoTime();
        long deadline = Planner.deadline(t0, timeLimitNanos);
        int n = problem.size();
        long lb = problem.lowerBound();
        long[] lo = new long[n];
        long[] up = new long[n];
        long[] sz = new long[n];
        long last = 0;
        for (int i = 0; i < n; i++) {
            PlanBuffer b = problem.buffers().get(i);
            lo[i] = b.lower();
            up[i] = b.upper();
            sz[i] = problem.alignedSize(i);
            last = Math.max(last, up[i]);
        }
        // the same problem mirrored in time: [last - upper, last - lower)
        long[] mlo = new long[n];
        long[] mup = new long[n];
        for (int i = 0; i < n; i++) {
            mlo[i] = last - up[i];
            mup[i] = last - lo[i];
        }
        long[] best = null;
        long bestHeight = Long.MAX_VALUE;
        boolean timedOut = false;
        long small = LargeFirstSweep.smallAtMost(lo, up, sz);
        long[] largeSz = null;
        if (small >= 0) {
            largeSz = new long[n];
            int larges = 0;
            for (int i = 0; i < n; i++) {
                if (sz[i] > small) {
                    largeSz[i] = sz[i];
                    larges++;
                }
            }
            if (larges == 0) {
                largeSz = null;
            }
        }
        for (int variant = 0; variant < VARIANTS && bestHeight > lb; variant++) {
            if (best != null && System.nanoTime() > deadline) {
                timedOut = true;
                break;
            }
            boolean backward = (variant & 1) == 1;
            long[] off;
            if (variant < 2 || variant >= 6) {
                boolean largerFirst = variant >= 6;
                off = backward ? sweep(mlo, mup, sz, largerFirst) : sweep(lo, up, sz, largerFirst);
            } else if (variant >= 4) {
                if (largeSz == null) {
                    continue;
                }
                long[] large = backward ? affinitySweep(mlo, mup, largeSz) : affinitySweep(lo, up, largeSz);
                off = LargeFirstSweep.place(lo, up, sz, small, large);
            } else {
                off = backward ? affinitySweep(mlo, mup, sz) : affinitySweep(lo, up, sz);
            }
            long h = Packing.heightOf(problem, off);
            if (h < bestHeight) {
                best = off;
                bestHeight = h;
            }
        }
        if (bestHeight > lb && System.nanoTime() < deadline) {
            long h = repair(lo, up, sz, best, lb, bestHeight);
            bestHeight = Math.min(bestHeight, h);
        }
        if (bestHeight > lb && System.nanoTime() < deadline && TimeOverlaps.overlappingPairs(problem) <= GREEDY_PAIRS) {
            long[] g = GreedyBySizePlanner.place(problem, deadline);
            long h = Packing.heightOf(problem, g);
            if (h < bestHeight) {
                best = g;
                bestHeight = h;
            }
        }
        if (best == null) {
            best = new long[n];
            bestHeight = 0;
        }
        return new Packing(problem, best, Packing.heightOf(problem, best), lb, capacity, name(),
                System.nanoTime() - t0, timedOut);
    }

    /**
     * One sweep: buffers by start (ties: longer lifetime first, or larger first, then the other key,
     * then index), each ended buffer freed before the buffers starting at its end are placed (lifetimes
     * are half-open). Returns the offsets.
     */
    static long[] sweep(long[] lo, long[] up, long[] sz, boolean largerFirst) {
        int n = lo.length;
        int[] byStart = byKey(lo);
        // buffers starting together: the chosen tie order, by a comparator over each (short) run
        Comparator<Integer> tie = (a, b) -> {
            int life = Long.compare(up[b] - lo[b], up[a] - lo[a]);
            int size = Long.compare(sz[b], sz[a]);
            int c = largerFirst ? (size != 0 ? size : life) : (life != 0 ? life : size);
            return c != 0 ? c : Integer.compare(a, b);
        };
        for (int a = 0; a < n; ) {
            int b = a + 1;
            while (b < n && lo[byStart[b]] == lo[byStart[a]]) {
                b++;
            }
            if (b - a > 1) {
                Integer[] run = new Integer[b - a];
                for (int q = a; q < b; q++) {
                    run[q - a] = byStart[q];
                }
                Arrays.sort(run, tie);
                for (int q = a; q < b; q++) {
                    byStart[q] = run[q - a];
                }
            }
            a = b;
        }
        int[] byEnd = byKey(up);
        long[] off = new long[n];
        FreeSpace free = new FreeSpace();
        int e = 0;
        for (int q = 0; q < n; q++) {
            int i = byStart[q];
            while (e < n && up[byEnd[e]] <= lo[i]) {
                int j = byEnd[e++];
                if (sz[j] > 0) {
                    free.free(off[j], sz[j]);
                }
            }
            if (sz[i] > 0) {
                off[i] = free.takeBestFit(sz[i]);
            }
        }
        return off;
    }

    /** Gaps an end-affinity placement weighs, the smallest that fit. */
    static final int AFFINITY_CANDIDATES = 48;
    /** The weight of an end-time difference, in multiples of the bytes a buffer holds per unit of time on average. */
    static final double AFFINITY_WEIGHT = 50;

    /**
     * A sweep that places each buffer next to a neighbour that ends when it does. Best fit leaves the
     * holes that frees at random moments make: a buffer put beside one that outlives it by much leaves,
     * when it ends, a hole bounded by that neighbour, which later buffers fill only in part. Here each
     * buffer weighs the {@link #AFFINITY_CANDIDATES} smallest gaps that hold it, at either end of each
     * (against the buffer just below the gap, or just above it), by the bytes left over plus a weight
     * times the difference between its end and that neighbour's; the top of the arena when no gap holds
     * it. The weight is {@link #AFFINITY_WEIGHT} times the problem's bytes per unit of lifetime (the
     * sum of sizes over the sum of lifetimes), so the rule does not depend on the unit of time. On the
     * bench's random-free snapshot model this lowers the height from about 15% above the load to 7–11%
     * (see the performance record); on nested lifetimes the other sweeps stay the best, and the planner
     * keeps whichever is lowest.
     */
    static long[] affinitySweep(long[] lo, long[] up, long[] sz) {
        int n = lo.length;
        double sizes = 0;
        double lives = 0;
        for (int i = 0; i < n; i++) {
            sizes += sz[i];
            lives += Math.max(1, up[i] - lo[i]);
        }
        double weight = lives == 0 ? 0 : AFFINITY_WEIGHT * sizes / lives;
        int[] byStart = byKey(lo);
        int[] byEnd = byKey(up);
        long[] off = new long[n];
        FreeSpace free = new FreeSpace();
        HashMap<Long, Integer> startingAt = new HashMap<>();   // live buffers by offset
        HashMap<Long, Integer> endingAt = new HashMap<>();     // and by offset + size
        long[][] cand = new long[AFFINITY_CANDIDATES][2];
        int e = 0;
        for (int q = 0; q < n; q++) {
            int i = byStart[q];
            while (e < n && up[byEnd[e]] <= lo[i]) {
                int j = byEnd[e++];
                if (sz[j] > 0) {
                    free.free(off[j], sz[j]);
                    startingAt.remove(off[j]);
                    endingAt.remove(off[j] + sz[j]);
                }
            }
            if (sz[i] == 0) {
                continue;
            }
            int k = free.fitting(sz[i], AFFINITY_CANDIDATES, cand);
            long at;
            if (k == 0) {
                at = free.top();
            } else {
                double bestCost = Double.MAX_VALUE;
                at = cand[0][0];
                for (int c = 0; c < k; c++) {
                    long gs = cand[c][0];
                    long ge = cand[c][1];
                    double left = ge - gs - sz[i];
                    Integer below = endingAt.get(gs);
                    Integer above = startingAt.get(ge);
                    double low = left + (below == null ? Double.MAX_VALUE / 4 : weight * Math.abs(up[below] - up[i]));
                    double high = left + (above == null ? Double.MAX_VALUE / 4 : weight * Math.abs(up[above] - up[i]));
                    if (low < bestCost) {
                        bestCost = low;
                        at = gs;
                    }
                    if (high < bestCost) {
                        bestCost = high;
                        at = ge - sz[i];
                    }
                }
            }
            free.take(at, sz[i]);
            off[i] = at;
            startingAt.put(at, i);
            endingAt.put(at + sz[i], i);
        }
        return off;
    }

    /**
     * Lowers the peak: every buffer reaching above the lower bound {@code lb} is taken out and put back,
     * largest first, at the lowest offset where it fits against every buffer overlapping it in time
     * (those kept, and those put back before it). Changes {@code off} only when the result is lower;
     * returns the height then in effect.
     */
    static long repair(long[] lo, long[] up, long[] sz, long[] off, long lb, long height) {
        int n = lo.length;
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (off[i] + sz[i] > lb) {
                m++;
            }
        }
        if (m == 0 || m > 4096) {
            return height; // nothing above, or too many to move one by one
        }
        int[] moved = new int[m];
        m = 0;
        for (int i = 0; i < n; i++) {
            if (off[i] + sz[i] > lb) {
                moved[m++] = i;
            }
        }
        boolean[] isMoved = new boolean[n];
        for (int i : moved) {
            isMoved[i] = true;
        }
        // the kept buffers overlapping the moved ones' time span, found once by one pass
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        for (int i : moved) {
            from = Math.min(from, lo[i]);
            to = Math.max(to, up[i]);
        }
        int[] near = new int[16];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (!isMoved[i] && sz[i] > 0 && lo[i] < to && from < up[i]) {
                if (k == near.length) {
                    near = Arrays.copyOf(near, 2 * k);
                }
                near[k++] = i;
            }
        }
        if ((long) k * m > 20_000_000L) {
            return height;
        }
        Integer[] order = new Integer[m];
        for (int q = 0; q < m; q++) {
            order[q] = moved[q];
        }
        Arrays.sort(order, (a, b) -> sz[a] != sz[b] ? Long.compare(sz[b], sz[a]) : Integer.compare(a, b));
        long[] trial = new long[n];
        int[] obstacles = Arrays.copyOf(near, k + m);
        int count = k;
        long[] gLo = new long[k + m];
        long[] gHi = new long[k + m];
        for (Integer boxed : order) {
            int i = boxed;
            int g = 0;
            for (int q = 0; q < count; q++) {
                int j = obstacles[q];
                if (lo[j] < up[i] && lo[i] < up[j]) {
                    long o = q < k ? off[j] : trial[j];
                    gLo[g] = o;
                    gHi[g] = o + sz[j];
                    g++;
                }
            }
            trial[i] = lowestFit(gLo, gHi, g, sz[i]);
            obstacles[count++] = i;
        }
        long h = 0;
        for (int i = 0; i < n; i++) {
            h = Math.max(h, (isMoved[i] ? trial[i] : off[i]) + sz[i]);
        }
        if (h < height) {
            for (int i : moved) {
                off[i] = trial[i];
            }
            return h;
        }
        return height;
    }

    /**
     * The lowest offset where {@code size} bytes fit between the ranges {@code [lo[q], hi[q])}: starts
     * and ends sorted apart and swept with a count of the ranges covering (an end before a start at the
     * same offset), a gap running from where the count falls to 0 to the next start. Sorts the arrays.
     */
    static long lowestFit(long[] lo, long[] hi, int g, long size) {
        Arrays.sort(lo, 0, g);
        Arrays.sort(hi, 0, g);
        long freeFrom = 0;
        int cover = 0;
        int e = 0;
        for (int q = 0; q < g; ) {
            if (hi[e] <= lo[q]) {
                if (--cover == 0) {
                    freeFrom = hi[e];
                }
                e++;
            } else {
                if (cover == 0 && lo[q] - freeFrom >= size) {
                    return freeFrom;
                }
                cover++;
                q++;
            }
        }
        return g == 0 ? 0 : Math.max(freeFrom, hi[g - 1]);
    }

    /**
     * Indices ordered by {@code key} ascending, ties by index: one primitive sort of (rank of key, index)
     * pairs, the ranks from a sorted copy of the keys.
     */
    static int[] byKey(long[] key) {
        int n = key.length;
        long[] distinct = key.clone();
        Arrays.sort(distinct);
        int d = 0;
        for (int i = 0; i < n; i++) {
            if (d == 0 || distinct[i] != distinct[d - 1]) {
                distinct[d++] = distinct[i];
            }
        }
        long[] pairs = new long[n];
        for (int i = 0; i < n; i++) {
            pairs[i] = ((long) Arrays.binarySearch(distinct, 0, d, key[i]) << 32) | i;
        }
        Arrays.sort(pairs);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = (int) pairs[i];
        }
        return out;
    }
}
