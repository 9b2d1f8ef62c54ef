package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The search behind {@link SearchPlanner}: a depth-first search over <em>canonical</em> packings that
 * decides whether a problem packs within a capacity.
 *
 * <p><b>Canonical packings.</b> Push every buffer of a packing down until it rests on a buffer that
 * overlaps it in time (or on 0): the height does not grow. List the buffers by offset: each one's offset
 * is then the top of the highest buffer before it that overlaps it in time (its <em>floor</em>). So it is
 * enough to build packings by repeatedly choosing the next buffer and putting it at its floor, with
 * offsets never decreasing: the current level {@code x} only rises.
 *
 * <p><b>Section inference.</b> Time is cut into sections at every buffer's start and end. In a section,
 * at most one placed buffer can straddle the level {@code x} (placed buffers there are disjoint and none
 * starts above {@code x}), so the unplaced buffers of the section must fit above
 * {@code max(x, top)}, the top of the highest placed buffer there. With {@code rem} the bytes of the
 * section's unplaced buffers, a node is kept only while {@code max(x, top) + rem <= capacity} in every
 * section. Placing a buffer leaves {@code top + rem} of its own sections unchanged, so a child at level
 * {@code x'} survives exactly when {@code x' + maxRem <= capacity}: candidates are tried in order of
 * floor and the loop stops at the first floor past {@code capacity - maxRem}. A second bound per section
 * schedules its unplaced buffers by floor (release dates on one machine): the section's stack must end
 * within the capacity.
 *
 * <p><b>Dominance.</b> If some unplaced buffer fits between its floor and a candidate's level, putting
 * it there first uses only space the candidate would waste, so candidates at or above the lowest such
 * end are not tried.
 *
 * <p><b>Decomposition.</b> When no unplaced buffer crosses a section boundary, the two sides are
 * independent: each connected group of sections is solved on its own (starting afresh on its skyline),
 * so a failure in one group never re-tries the choices of another. Each group is re-ranked for its
 * own search ({@link #reorderComponents}): the static order was made from section loads of the whole
 * problem, and what is left of them in the group is what matters now. Entries of the failed-state table
 * that depend on the order name the ranking in force.
 *
 * <p><b>Pruning repeats.</b> Two buffers that do not overlap in time and go at the same level commute,
 * so only one order is explored (by static rank); identical buffers go in index order. States that
 * failed are remembered in a table keyed by a hash of the unplaced set and the skyline (plus the level
 * and last buffer when the node skipped a commuting candidate).
 *
 * <p><b>Strict mode</b> ({@link #strict}). Listing a canonical packing by offset (ties by static rank),
 * each buffer's floor equals its offset at the moment it is placed. So it is enough to put every buffer
 * at its own floor, never raised to the level: a buffer whose floor is below the level waits until a
 * placement lifts it (and if none can, the node fails). This drops the non-canonical placements the
 * default mode makes (a buffer raised from its floor to the level), a much smaller tree. A buffer that
 * overlaps no unplaced buffer touches nothing still to come, so it goes at its floor without branching.
 * Failed states are then keyed by the exact skyline and level.
 *
 * <p>Not thread-safe; one instance per search.
 */
final class CanonicalSearch {
    /** How a search ended. */
    enum Outcome { FOUND, INFEASIBLE, TIMED_OUT }

    private final int m;                 // buffers searched (non-zero size), in static order
    private final int[] original;        // search index -> problem index
    private final long[] size;           // aligned sizes
    private final int[] sl;              // first section
    private final int[] su;              // one past the last section
    private final int[][] neighbors;     // buffers overlapping in time
    private final int sections;
    private final int[][] sectionBuffers; // buffers live in each section
    private final long[] zobrist;
    private final long cap;              // in units of the granularity
    private final long unit;             // gcd of the sizes: every canonical offset is a multiple of it
    private final long deadline;
    private long nodeLimit = Long.MAX_VALUE;

    private final long[] floor;
    private final long[] offset;
    private final boolean[] placed;
    private final long[] top;
    private final long[] rem;
    private final int[] twin;            // the previous buffer with the same lifetime and size, or -1
    private final int[] cross;           // unplaced buffers spanning the boundary between s and s+1
    private final int[] stackC;
    private final int[] stackF;
    private final int[] stackT;
    private int sp;

    // undo logs
    private final int[] floorIdx;
    private final long[] floorOld;
    private int floorSp;
    private final long[] topOld;
    private int topSp;

    private final long[][] keys;
    /** Longs the candidate keys of all depths may take together (256 MiB); past it the search gives up. */
    static final long KEY_BUDGET = 1L << 25;
    private long keyLongs;
    private final long[] relBuf;
    private final long[] raisedBuf;
    private final LongSet failed;
    private final long salt;
    private long nodes;
    private boolean timedOut;
    private boolean strict;
    private final int[] open;            // unplaced buffers overlapping each buffer in time

    // Ranks: the order candidates at one level are tried in, and the order the canonical rule lists
    // buffers of one level in. They start as the static order; a component split off by decomposition
    // is re-ranked by the run's heuristic on its own remaining bytes (see ComponentRanking).
    private final int[] rank;            // search index -> rank (ranking's array)
    private final int[] byRank;          // rank -> search index (ranking's array)
    private final ComponentRanking ranking;

    /**
     * @param order    problem indices of the buffers to search (non-zero size), in static order
     * @param capacity bytes available
     * @param deadline {@code System.nanoTime()} past which the search gives up
     */
    CanonicalSearch(PlanProblem problem, int[] order, long capacity, long deadline) {
        this(problem, order, capacity, deadline, new LongSet(1 << 12), 0);
    }

    /**
     * @param failed states known to fail at this capacity (shared by searches of one problem and
     *               capacity in other static orders); the search adds to it
     * @param salt   distinguishes this order's order-dependent entries
     */
    CanonicalSearch(PlanProblem problem, int[] order, long capacity, long deadline, LongSet failed, long salt) {
        this.failed = failed;
        this.salt = mix(salt + 0x51ED270B27A2L);
        this.m = order.length;
        this.original = order.clone();
        this.deadline = deadline;
        size = new long[m];
        long g = 0;
        for (int i : order) {
            g = gcd(g, problem.alignedSize(i));
        }
        this.unit = Math.max(1, g);
        this.cap = capacity / unit;
        if (m > 0 && cap > (Long.MAX_VALUE - m) / (m + 1)) {
            throw new IllegalArgumentException("capacity " + capacity + " too large to search with " + m + " buffers");
        }
        long[] lower = new long[m];
        long[] upper = new long[m];
        long[] points = new long[2 * m];
        for (int i = 0; i < m; i++) {
            PlanBuffer b = problem.buffers().get(order[i]);
            size[i] = problem.alignedSize(order[i]) / unit;
            lower[i] = b.lower();
            upper[i] = b.upper();
            points[2 * i] = b.lower();
            points[2 * i + 1] = b.upper();
        }
        Arrays.sort(points);
        int k = 0;
        for (int i = 0; i < points.length; i++) {
            if (k == 0 || points[i] != points[k - 1]) {
                points[k++] = points[i];
            }
        }
        sections = Math.max(0, k - 1);
        sl = new int[m];
        su = new int[m];
        int[] count = new int[Math.max(1, sections)];
        for (int i = 0; i < m; i++) {
            sl[i] = Arrays.binarySearch(points, 0, k, lower[i]);
            su[i] = Arrays.binarySearch(points, 0, k, upper[i]);
            for (int s = sl[i]; s < su[i]; s++) {
                count[s]++;
            }
        }
        sectionBuffers = new int[sections][];
        for (int s = 0; s < sections; s++) {
            sectionBuffers[s] = new int[count[s]];
            count[s] = 0;
        }
        for (int i = 0; i < m; i++) {
            for (int s = sl[i]; s < su[i]; s++) {
                sectionBuffers[s][count[s]++] = i;
            }
        }
        neighbors = TimeOverlaps.neighbors(lower, upper, deadline);
        open = new int[m];
        for (int i = 0; i < m; i++) {
            open[i] = neighbors[i].length;
        }
        zobrist = new long[m];
        for (int i = 0; i < m; i++) {
            zobrist[i] = mix(0x2545F4914F6CDD1DL * (order[i] + 1)); // by problem index: shared across orders
        }
        floor = new long[m];
        offset = new long[m];
        placed = new boolean[m];
        top = new long[sections];
        rem = new long[sections];
        twin = new int[m];
        Map<List<Long>, Integer> seen = new HashMap<>();
        for (int i = 0; i < m; i++) {
            Integer prev = seen.put(List.of(lower[i], upper[i], size[i]), i);
            twin[i] = prev == null ? -1 : prev;
        }
        cross = new int[Math.max(1, sections)];
        for (int i = 0; i < m; i++) {
            for (int s = sl[i]; s < su[i]; s++) {
                rem[s] += size[i];
            }
            for (int s = sl[i]; s < su[i] - 1; s++) {
                cross[s]++;
            }
        }
        ranking = new ComponentRanking(placed, sl, su, zobrist, rem, size, lower, upper);
        rank = ranking.rank;
        byRank = ranking.byRank;
        stackC = new int[m + 1];
        stackF = new int[m + 1];
        stackT = new int[m + 1];
        int maxNeighbors = 0;
        long spans = 0;
        for (int i = 0; i < m; i++) {
            maxNeighbors = Math.max(maxNeighbors, neighbors[i].length);
            spans += su[i] - sl[i];
        }
        long pairs = 0;
        for (int[] nb : neighbors) {
            pairs += nb.length;
        }
        floorIdx = new int[(int) Math.min(Integer.MAX_VALUE - 8, pairs + 1)]; // a path raises each floor once per neighbour placed
        floorOld = new long[floorIdx.length];
        topOld = new long[(int) spans + 1];
        keys = new long[m + 1][];
        relBuf = new long[sections + 1];
        raisedBuf = new long[m + 1];
    }

    /** Runs the search. On {@link Outcome#FOUND}, {@link #offsets} holds the packing. */
    Outcome run() {
        for (int s = 0; s < sections; s++) {
            if (rem[s] > cap) {
                return Outcome.INFEASIBLE;
            }
        }
        if (m == 0) {
            return Outcome.FOUND;
        }
        boolean found = solve(0, sections, 0, -1);
        if (found) {
            return Outcome.FOUND;
        }
        return timedOut ? Outcome.TIMED_OUT : Outcome.INFEASIBLE;
    }

    /** Runs the search; on {@link Outcome#FOUND} writes the offsets by problem index into {@code out}. */
    Outcome runInto(long[] out) {
        Outcome o = run();
        if (o == Outcome.FOUND) {
            offsets(out);
        }
        return o;
    }

    /** Offsets by problem index (entries for buffers not searched are left as they are). */
    void offsets(long[] out) {
        for (int i = 0; i < m; i++) {
            out[original[i]] = offset[i] * unit;
        }
    }

    /**
     * Strict canonical mode: a buffer goes only at its own floor, never raised to the current level; a
     * buffer whose floor is below the level waits until placements above raise it (see the class notes).
     */
    CanonicalSearch strict(boolean on) {
        this.strict = on;
        return this;
    }

    /**
     * Re-ranks each component split off by decomposition with {@link SearchPlanner#staticOrder}'s
     * heuristic {@code h} (6, 7 or 8), its section loads taken from the bytes still unplaced there.
     */
    CanonicalSearch reorderComponents(int h) {
        ranking.heuristic(h);
        return this;
    }

    /** Gives up (as if timed out) after about this many nodes. */
    CanonicalSearch nodeLimit(long limit) {
        this.nodeLimit = limit;
        return this;
    }

    long nodes() {
        return nodes;
    }

    /**
     * Places every unplaced buffer whose sections lie in {@code [sa, sb)}, at levels from {@code x} up.
     * Returns true with them placed, or false with the state as it was on entry.
     */
    private boolean solve(int sa, int sb, long x, int last) {
        if ((++nodes & 255) == 0 && (System.nanoTime() > deadline || nodes > nodeLimit)) {
            timedOut = true;
        }
        if (timedOut) {
            return false;
        }
        // Decomposition: sections no unplaced buffer joins are independent subproblems. Solving them
        // one after another means a failure in one never re-tries choices made in another.
        int comps = 0;
        int firstA = -1;
        int firstB = -1;
        for (int s = sa; s < sb; ) {
            if (rem[s] == 0) {
                s++;
                continue;
            }
            int e = s;
            while (e + 1 < sb && cross[e] > 0) {
                e++;
            }
            if (comps++ == 0) {
                firstA = s;
                firstB = e + 1;
            } else {
                break;
            }
            s = e + 1;
        }
        if (comps == 0) {
            return true;
        }
        if (comps == 1) {
            return branch(firstA, firstB, x, last);
        }
        // Components in order of least slack first: the one most likely to fail is tried before
        // time goes into the others.
        long[] comp = new long[Math.min(sb - sa, sections)];
        int nc = 0;
        for (int s = sa; s < sb; ) {
            if (rem[s] == 0) {
                s++;
                continue;
            }
            int e = s;
            long slack = Long.MAX_VALUE;
            while (true) {
                slack = Math.min(slack, cap - Math.max(x, top[e]) - rem[e]);
                if (e + 1 < sb && cross[e] > 0) {
                    e++;
                } else {
                    break;
                }
            }
            comp[nc++] = (Math.min(Math.max(0, slack), 1L << 40) << 20) | s; // sections < 2^20
            s = e + 1;
        }
        Arrays.sort(comp, 0, nc);
        int mark = sp;
        for (int k = 0; k < nc; k++) {
            int s = (int) (comp[k] & ((1 << 20) - 1));
            int e = s;
            while (e + 1 < sb && cross[e] > 0) {
                e++;
            }
            // a component starts afresh on its own skyline: its buffers may go below x, where the order
            // of placements across independent components put them only by accident
            int rmark = ranking.mark();
            long saltBefore = ranking.salt();
            ranking.rerank(s, e + 1);
            boolean ok = branch(s, e + 1, 0, -1);
            ranking.restore(rmark, saltBefore);
            if (!ok) {
                unwindTo(mark);
                return false;
            }
        }
        return true;
    }

    /** One connected group of sections {@code [sa, sb)}: choose the next buffer and its level. */
    private boolean branch(int sa, int sb, long x, int last) {
        long maxRem = 0;
        long h = 0;
        for (int s = sa; s < sb; s++) {
            long r = rem[s];
            if (r > 0) {
                if (r > maxRem) {
                    maxRem = r;
                }
                h += mix(s * 0xC2B2AE3D27D4EB4FL + (strict ? top[s] : Math.max(x, top[s])));
            }
        }
        if (strict) {
            h ^= mix(x * 0x632BE59BD9B4E019L + 0x7F4A7C15L);
        }
        long limit = cap - maxRem; // a child's level may not exceed this
        if (strict) {
            // A buffer that overlaps no unplaced buffer ("hatless") touches nothing still to come: it
            // goes at its floor now, without branching. Below the level it can never go (nothing left
            // can lift its floor), so the node fails.
            for (int i = 0; i < m; i++) {
                if (!placed[i] && open[i] == 0 && sl[i] >= sa && su[i] <= sb) {
                    if (floor[i] < x || floor[i] + size[i] > cap) {
                        return false;
                    }
                    int mark = sp;
                    place(i, floor[i]);
                    if (solve(sa, sb, x, last)) {
                        return true;
                    }
                    unwindTo(mark);
                    return false;
                }
            }
        }
        long[] ks = keys[sp];
        if (ks == null || ks.length < m - sp) {
            // one key per unplaced buffer at most; the sum over depths is bounded (see KEY_BUDGET)
            int len = Math.max(16, Math.min(m, ks == null ? m - sp : Math.max(2 * ks.length, m - sp)));
            keyLongs += len - (ks == null ? 0 : ks.length);
            if (keyLongs > KEY_BUDGET) {
                timedOut = true;   // out of search memory: give up as at a time limit
                return false;
            }
            ks = keys[sp] = new long[len];
        }
        // Dominance: if an unplaced buffer c fits between its floor and a candidate's level, putting c
        // there first only uses space that placing the candidate would waste; so only candidates below
        // the lowest such end need trying.
        long minEnd = Long.MAX_VALUE;
        int n = 0;
        long set = 0;
        // Buffers at level x come out of this loop already in key order; only the raised ones (floor
        // above x, usually few) need sorting, after them.
        long[] raised = raisedBuf;
        int nr = 0;
        for (int i = 0; i < m; i++) {
            if (!placed[i] && sl[i] >= sa && su[i] <= sb) {
                long f = floor[i];
                if (strict && f < x) {
                    // it waits for a placement to raise its floor to the level or above
                    minEnd = Math.min(minEnd, f + size[i]);
                } else if (f <= x) {
                    minEnd = Math.min(minEnd, x + size[i]);
                    ks[n++] = x * m + rank[i];
                } else {
                    minEnd = Math.min(minEnd, f + size[i]);
                    raised[nr++] = f * m + rank[i];
                }
                set ^= zobrist[i];
            }
        }
        int low = n;
        Arrays.sort(raised, 0, nr);
        System.arraycopy(raised, 0, ks, n, nr);
        n += nr;
        h ^= set;
        // A node that skips no candidate explores every completion of its state, whatever path led to
        // it: its failure is remembered under the state alone (and holds for every static order). One
        // that skips (see below) is remembered under the state, x and the last buffer, for this order.
        long restricted = h ^ mix(salt + ranking.salt() + (x * 0x9E3779B97F4A7C15L) + last);
        if (failed.contains(h) || (last >= 0 && failed.contains(restricted))) {
            return false;
        }
        boolean skipped = false;
        if (!sectionsSchedulable(sa, sb, x, ks, low, n)) {
            failed.add(h);
            return false;
        }
        for (int k = 0; k < n; k++) {
            int c = byRank[(int) (ks[k] % m)];
            long xc = ks[k] / m;
            if (xc >= minEnd || xc > limit) {
                break; // dominated (see above), or the busiest section no longer fits above xc
            }
            if (last >= 0 && xc == x && rank[c] < rank[last] && !overlaps(c, last)) {
                skipped = true;
                continue; // the same state is reached by placing c before last
            }
            if (twin[c] >= 0 && !placed[twin[c]]) {
                continue; // identical buffers go in index order
            }
            int mark = sp;
            place(c, xc);
            if (solve(sa, sb, xc, c)) {
                return true;
            }
            unwindTo(mark);
            if (timedOut) {
                return false;
            }
        }
        failed.add(skipped ? restricted : h);
        return false;
    }

    /**
     * In each section, the unplaced buffers must stack above {@code max(x, top)} each at or above its
     * floor: scheduling them by floor gives the lowest possible end (one machine, release dates).
     */
    private boolean sectionsSchedulable(int sa, int sb, long x, long[] byFloor, int low, int n) {
        // the buffers at level x (keys [0, low)) all go first: their stack ends at base + their bytes
        long[] end = relBuf;
        for (int s = sa; s < sb; s++) {
            end[s] = Math.max(x, top[s]) + rem[s];
        }
        for (int k = low; k < n; k++) {
            int i = byRank[(int) (byFloor[k] % m)];
            long sz = size[i];
            for (int s = sl[i]; s < su[i]; s++) {
                end[s] -= sz;
            }
        }
        for (int k = low; k < n; k++) {
            int i = byRank[(int) (byFloor[k] % m)];
            long f = byFloor[k] / m;
            long sz = size[i];
            for (int s = sl[i]; s < su[i]; s++) {
                long e = end[s];
                end[s] = (e > f ? e : f) + sz;
            }
        }
        for (int s = sa; s < sb; s++) {
            if (end[s] > cap) {
                return false;
            }
        }
        return true;
    }

    private boolean overlaps(int a, int b) {
        return sl[a] < su[b] && sl[b] < su[a];
    }

    private void place(int c, long xc) {
        stackC[sp] = c;
        stackF[sp] = floorSp;
        stackT[sp] = topSp;
        sp++;
        placed[c] = true;
        offset[c] = xc;
        long t = xc + size[c];
        for (int s = sl[c]; s < su[c]; s++) {
            topOld[topSp++] = top[s];
            top[s] = t;
            rem[s] -= size[c];
        }
        for (int s = sl[c]; s < su[c] - 1; s++) {
            cross[s]--;
        }
        for (int j : neighbors[c]) {
            open[j]--;
            if (!placed[j] && floor[j] < t) {
                floorIdx[floorSp] = j;
                floorOld[floorSp++] = floor[j];
                floor[j] = t;
            }
        }
    }

    /** Takes back placements until {@code mark} remain. */
    private void unwindTo(int mark) {
        while (sp > mark) {
            sp--;
            int c = stackC[sp];
            int fMark = stackF[sp];
            while (floorSp > fMark) {
                floorSp--;
                floor[floorIdx[floorSp]] = floorOld[floorSp];
            }
            for (int s = su[c] - 1; s >= sl[c]; s--) {
                top[s] = topOld[--topSp];
                rem[s] += size[c];
            }
            for (int s = sl[c]; s < su[c] - 1; s++) {
                cross[s]++;
            }
            placed[c] = false;
            for (int j : neighbors[c]) {
                open[j]++;
            }
            if (topSp != stackT[sp]) {
                throw new IllegalStateException("undo log out of step");
            }
        }
    }

    /** Thrown by the constructor when the deadline passes while it builds its tables. */
    static final class PastDeadline extends RuntimeException {
        PastDeadline() {
            super("search deadline passed while building its tables", null, false, false);
        }
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
