package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Packs a problem without slack (every step exactly full, {@link PerfectPacking#applies}) by cutting it
 * into independent pieces before any search: cuts in time, then bands of bytes, recursively; only the
 * pieces that neither cut splits are searched ({@link PerfectPacking}).
 *
 * <p><b>Time cuts</b> (exact). Where no buffer is live across a time {@code t}, what lies before and
 * after {@code t} packs independently, each within the same height.
 *
 * <p><b>Bands</b> (a restriction, tried first). Inside a piece of height {@code H} live over
 * {@code [T0, T1)}, look at each event strictly inside: the buffers ending there free exactly the bytes
 * the buffers starting there take. When no proper part of the enders frees what some proper part of the
 * starters takes (no common subset sum but 0 and the whole), all of them must lie in one connected
 * region of bytes — they are joined. At the other events, every join balance forces comes first: when
 * the groups out of balance there (bytes starting minus ending, per group) have no part in balance, they
 * are one region's and are joined; this runs to a fixpoint. Then one guess — at the event with the fewest
 * groups out of balance, its smallest part in balance (two groups that cancel, then three, then the
 * smallest common subset sum) is joined — and the forced joins again, until every event is in balance
 * for every group. What is left are groups whose live bytes are the same at every step
 * of the piece ({@code y} each, summing to {@code H}); each is packed alone in a band of {@code y} bytes,
 * the bands stacked, each solved the same way. A problem cut by guillotine cuts ({@link TightProblems})
 * mostly comes apart this way: every one of the suite up to 1,000 buffers does, leaving at most a
 * 23-buffer piece to search. A band need not be how every packing lies (groups could interleave, and a
 * guess can be wrong), so a band that does not pack proves nothing: the piece's bands are guessed again
 * ({@link #RETRIES} times, now and then taking another guess than the surest, seeded), then the piece is searched whole, within
 * {@link #LEAF_NODES} nodes; if that fails too, the piece fails, and the one above it guesses again. When
 * the whole fails so, the answer is {@link CanonicalSearch.Outcome#TIMED_OUT} and the caller searches the
 * whole problem. A piece reached by time cuts alone is searched without a node limit, and when it does
 * not pack, that proves the whole infeasible ({@link CanonicalSearch.Outcome#INFEASIBLE}).
 *
 * <p>Work: each level of cutting looks at each buffer and event, plus subset sums of the enders and
 * starters of each event (over the gcd of their sizes, at most {@link #MAX_SUM_BITS} wide; past that an
 * event is not used to join), once per guess for the events whose groups changed; at most
 * {@link #MAX_ATTEMPTS} splits in all, recursion at most {@link #MAX_DEPTH} levels deep, and the deadline
 * bounds it all ({@link CanonicalSearch.Outcome#TIMED_OUT}). One instance per search, not thread-safe.
 */
final class TightSplit {
    /** The widest subset-sum bitset one event may use (bits). */
    static final int MAX_SUM_BITS = 1 << 22;

    /** Times a piece whose bands did not all pack is split again, now and then taking another guess than the surest. */
    static final int RETRIES = 32;
    /** Nodes the corner search may take on a band's piece before it counts as not packing. */
    static final long LEAF_NODES = 200_000;
    /** Levels of bands deeper than this are searched whole instead (bounds the recursion). */
    static final int MAX_DEPTH = 1000;
    /** Band splits one run may make in all, retries included. */
    static final int MAX_ATTEMPTS = 4000;

    private final PlanProblem problem;
    private final long capacity;
    private final long deadline;
    private final long[] lo;
    private final long[] hi;
    private final long[] size;
    private long searchNodes;
    private long eventsLookedAt;
    private int largestSearched;
    private int attempts;
    int lastScore;                   // how sure smallestBalanced's last answer is: 0 (surest) to 3

    TightSplit(PlanProblem problem, long capacity, long deadline) {
        this.problem = problem;
        this.capacity = capacity;
        this.deadline = deadline;
        int n = problem.size();
        lo = new long[n];
        hi = new long[n];
        size = new long[n];
        for (int i = 0; i < n; i++) {
            lo[i] = problem.buffers().get(i).lower();
            hi[i] = problem.buffers().get(i).upper();
            size[i] = problem.alignedSize(i);
        }
    }

    /** Nodes the searches of the pieces that did not come apart took, in all. */
    long searchNodes() {
        return searchNodes;
    }

    /** Events the forced joins looked at (their nets summed and judged), in all: the split's own work. */
    long eventsLookedAt() {
        return eventsLookedAt;
    }

    /** The most buffers one piece searched held. */
    int largestSearchedPiece() {
        return largestSearched;
    }

    /** Packs; on {@link CanonicalSearch.Outcome#FOUND} writes offsets by problem index into {@code out}. */
    CanonicalSearch.Outcome runInto(long[] out) {
        int n = problem.size();
        int[] all = new int[n];
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (size[i] > 0) {
                all[c++] = i;
            } else {
                out[i] = 0;
            }
        }
        return solve(Arrays.copyOf(all, c), capacity, 0, true, 0, out);
    }

    /**
     * Packs {@code members} (live bytes {@code height} or nothing at every step) within {@code [base,
     * base + height)}. {@code exact}: reached by time cuts alone, so a failure proves the whole fails.
     */
    private CanonicalSearch.Outcome solve(int[] members, long height, long base, boolean exact, int depth, long[] out) {
        for (int[] piece : timePieces(members)) {
            CanonicalSearch.Outcome o = solvePiece(piece, height, base, exact, depth, out);
            if (o != CanonicalSearch.Outcome.FOUND) {
                return o;
            }
        }
        return CanonicalSearch.Outcome.FOUND;
    }

    /** One piece without a time cut inside: bands (guessed again on failure), else the corner search. */
    private CanonicalSearch.Outcome solvePiece(int[] piece, long height, long base, boolean exact, int depth, long[] out) {
        if (piece.length == 1) {
            if (size[piece[0]] != height) {
                return exact ? CanonicalSearch.Outcome.INFEASIBLE : CanonicalSearch.Outcome.TIMED_OUT;
            }
            out[piece[0]] = base;
            return CanonicalSearch.Outcome.FOUND;
        }
        if (depth < MAX_DEPTH) {
            for (int attempt = 0; attempt <= RETRIES && attempts < MAX_ATTEMPTS; attempt++) {
                attempts++;
                List<int[]> bands = bands(piece, height, attempt == 0 ? null
                        : new SplittableRandom(attempt * 0x9E3779B97F4A7C15L + piece.length));
                if (bands == null || System.nanoTime() > deadline) {
                    return CanonicalSearch.Outcome.TIMED_OUT;
                }
                if (bands.size() == 1) {
                    continue;
                }
                boolean ok = true;
                long y = base;
                for (int[] band : bands) {
                    long h = startLoad(band);
                    if (solve(band, h, y, false, depth + 1, out) != CanonicalSearch.Outcome.FOUND) {
                        ok = false;
                        break;
                    }
                    y += h;
                }
                if (ok) {
                    return CanonicalSearch.Outcome.FOUND;
                }
                if (System.nanoTime() > deadline) {
                    return CanonicalSearch.Outcome.TIMED_OUT;
                }
            }
        }
        CanonicalSearch.Outcome o = search(piece, height, base, exact ? Long.MAX_VALUE : LEAF_NODES, out);
        return o == CanonicalSearch.Outcome.INFEASIBLE && !exact ? CanonicalSearch.Outcome.TIMED_OUT : o;
    }

    /** The members split where no member is live across a time: pieces in time order. */
    private List<int[]> timePieces(int[] members) {
        Integer[] idx = new Integer[members.length];
        for (int q = 0; q < members.length; q++) {
            idx[q] = members[q];
        }
        Arrays.sort(idx, (a, b) -> Long.compare(lo[a], lo[b]));
        List<int[]> pieces = new ArrayList<>();
        int start = 0;
        long reach = Long.MIN_VALUE;
        for (int q = 0; q < idx.length; q++) {
            if (q > 0 && lo[idx[q]] >= reach) {
                pieces.add(slice(idx, start, q));
                start = q;
            }
            reach = Math.max(reach, hi[idx[q]]);
        }
        pieces.add(slice(idx, start, idx.length));
        return pieces;
    }

    private static int[] slice(Integer[] idx, int from, int to) {
        int[] r = new int[to - from];
        for (int q = from; q < to; q++) {
            r[q - from] = idx[q];
        }
        return r;
    }

    /** The live bytes of a band at its first step (all of its members that start first). */
    private long startLoad(int[] band) {
        long t0 = Long.MAX_VALUE;
        for (int i : band) {
            t0 = Math.min(t0, lo[i]);
        }
        long s = 0;
        for (int i : band) {
            if (lo[i] == t0) {
                s += size[i];
            }
        }
        return s;
    }

    /**
     * Groups of a piece (no time cut inside, {@code height} bytes live at every step) whose live bytes
     * stay the same at every step; one group when it does not come apart. Larger bands first.
     */
    private List<int[]> bands(int[] piece, long height, SplittableRandom rnd) {
        int k = piece.length;
        long t0 = Long.MAX_VALUE;
        long t1 = Long.MIN_VALUE;
        for (int i : piece) {
            t0 = Math.min(t0, lo[i]);
            t1 = Math.max(t1, hi[i]);
        }
        // events inside the piece: local indices of the members starting and ending there
        Integer[] byLo = new Integer[k];
        Integer[] byHi = new Integer[k];
        for (int q = 0; q < k; q++) {
            byLo[q] = q;
            byHi[q] = q;
        }
        Arrays.sort(byLo, (a, b) -> Long.compare(lo[piece[a]], lo[piece[b]]));
        Arrays.sort(byHi, (a, b) -> Long.compare(hi[piece[a]], hi[piece[b]]));
        int[] parent = new int[k];
        for (int q = 0; q < k; q++) {
            parent[q] = q;
        }
        List<int[][]> reducible = new ArrayList<>();
        int a = 0;
        int b = 0;
        while (a < k || b < k) {
            long t = Math.min(a < k ? lo[piece[byLo[a]]] : Long.MAX_VALUE, b < k ? hi[piece[byHi[b]]] : Long.MAX_VALUE);
            int a0 = a;
            int b0 = b;
            while (a < k && lo[piece[byLo[a]]] == t) {
                a++;
            }
            while (b < k && hi[piece[byHi[b]]] == t) {
                b++;
            }
            if (t == t0 || t == t1) {
                continue;
            }
            int[] starters = new int[a - a0];
            int[] enders = new int[b - b0];
            for (int q = a0; q < a; q++) {
                starters[q - a0] = byLo[q];
            }
            for (int q = b0; q < b; q++) {
                enders[q - b0] = byHi[q];
            }
            if (starters.length == 0 || enders.length == 0) {
                return List.of(piece); // not tight inside: leave it to the search
            }
            if (commonPart(piece, enders, starters)) {
                reducible.add(new int[][] {enders, starters});
            } else {
                int r = enders[0];
                for (int q : enders) {
                    union(parent, r, q);
                }
                for (int q : starters) {
                    union(parent, r, q);
                }
            }
        }
        // at events with a common part: first every join that is forced (the groups out of balance there
        // have no part in balance, so they are one region's), to a fixpoint; then one guess, and again.
        // Guesses go surest first (see smallestBalanced), fewest groups out of balance next
        Joins st = new Joins(parent, reducible);
        while (true) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            List<int[]> cands = propagate(st, piece, reducible);
            if (cands.isEmpty()) {
                break;
            }
            cands.sort((x, y) -> Integer.compare(x[1], y[1]));
            if (rnd != null) {
                // a retry: now and then another guess than the surest
                int[] c = cands.get(rnd.nextInt(8) == 0 ? rnd.nextInt(cands.size()) : 0);
                guess(st, piece, reducible.get(c[0]), rnd.nextInt(8) == 0 ? rnd : null);
                continue;
            }
            guess(st, piece, reducible.get(cands.get(0)[0]), null);
        }
        parent = st.parent;
        LinkedHashMap<Integer, List<Integer>> groups = new LinkedHashMap<>();
        for (int q = 0; q < k; q++) {
            groups.computeIfAbsent(find(parent, q), x -> new ArrayList<>()).add(piece[q]);
        }
        if (groups.size() == 1) {
            return List.of(piece);
        }
        List<int[]> out = new ArrayList<>();
        for (List<Integer> g : groups.values()) {
            out.add(g.stream().mapToInt(Integer::intValue).toArray());
        }
        out.sort((x, y) -> Long.compare(startLoad(y), startLoad(x)));
        return out;
    }

    /**
     * Union-find over a piece's members, with what each reducible event's last look found and which
     * events must be looked at again. A join changes the nets only at events where both joined groups
     * have members, so it marks the events of the smaller group's members (each member is in at most
     * two: where it starts and where it ends); the groups' members are circular lists spliced in O(1).
     * Every other event would be found as it was, so {@link #propagate} looks only at the marked ones:
     * O(n log n) events looked at again in all, where looking at every event after every join made the
     * split of 4,096 buffers spend its whole time limit there. Roots are chosen as before (the first
     * group's root points to the second's), so the joins and the guesses are the same as looking at all.
     */
    private static final class Joins {
        final int[] parent;
        final long[] seen;          // per event: the signature of the nets last decided there (0: none)
        final int[] sureness;       // per event: smallestBalanced's score when it was last decided
        final int[] rank;           // per event: its rank as a guess, -1 when in balance
        final boolean[] dirty;      // per event: its nets may have changed since it was last looked at
        final int[][] eventsOf;     // per member: the reducible events it is in
        final int[] next;           // per member: the next member of its group (a circular list)
        final int[] groupSize;      // per root: its members
        int dirtyCount;

        Joins(int[] parent, List<int[][]> reducible) {
            int k = parent.length;
            int r = reducible.size();
            this.parent = parent;
            seen = new long[r];
            sureness = new int[r];
            rank = new int[r];
            Arrays.fill(rank, -1);
            dirty = new boolean[r];
            Arrays.fill(dirty, true);
            dirtyCount = r;
            int[] count = new int[k];
            for (int[][] ev : reducible) {
                for (int[] side : ev) {
                    for (int q : side) {
                        count[q]++;
                    }
                }
            }
            eventsOf = new int[k][];
            for (int q = 0; q < k; q++) {
                eventsOf[q] = new int[count[q]];
                count[q] = 0;
            }
            for (int x = 0; x < r; x++) {
                for (int[] side : reducible.get(x)) {
                    for (int q : side) {
                        eventsOf[q][count[q]++] = x;
                    }
                }
            }
            next = new int[k];
            groupSize = new int[k];
            int[] last = new int[k];
            Arrays.fill(last, -1);
            for (int q = 0; q < k; q++) {
                int root = find(parent, q);
                groupSize[root]++;
                if (last[root] < 0) {
                    next[q] = q;
                } else {
                    next[q] = next[last[root]];
                    next[last[root]] = q;
                }
                last[root] = q;
            }
        }

        void join(int x, int y) {
            int a = find(parent, x);
            int b = find(parent, y);
            if (a == b) {
                return;
            }
            int small = groupSize[a] <= groupSize[b] ? a : b;
            int q = small;
            do {
                for (int ev : eventsOf[q]) {
                    if (!dirty[ev]) {
                        dirty[ev] = true;
                        dirtyCount++;
                    }
                }
                q = next[q];
            } while (q != small);
            int t = next[a];       // splice the two circles
            next[a] = next[b];
            next[b] = t;
            parent[a] = b;
            groupSize[b] += groupSize[a];
        }
    }

    /**
     * Makes every join balance forces, to a fixpoint: passes over the events in order, each looking at
     * the events marked since (see {@link Joins}); returns the events still out of balance as {event
     * index, rank}, in event order (rank: how sure its guess is, then how many groups are out of
     * balance there).
     */
    private List<int[]> propagate(Joins st, int[] piece, List<int[][]> reducible) {
        List<Integer> roots = new ArrayList<>();
        while (st.dirtyCount > 0) {
            for (int x = 0; x < reducible.size(); x++) {
                if (!st.dirty[x]) {
                    continue;
                }
                st.dirty[x] = false;
                st.dirtyCount--;
                eventsLookedAt++;
                roots.clear();
                long[] v = nets(st.parent, piece, reducible.get(x), roots);
                if (roots.isEmpty()) {
                    st.rank[x] = -1;
                    continue;
                }
                // whether a part is in balance, and how sure the guess is, depend only on the values
                long[] sorted = v.clone();
                Arrays.sort(sorted);
                long sig = 17;
                for (long value : sorted) {
                    sig = sig * 1_000_003L + value;
                }
                if (st.seen[x] != sig) {
                    int score = balancedScore(v);
                    if (score < 0) {
                        st.rank[x] = -1;
                        for (int q = 1; q < roots.size(); q++) {
                            st.join(roots.get(0), roots.get(q));
                        }
                        continue;
                    }
                    st.seen[x] = sig;
                    st.sureness[x] = score;
                }
                st.rank[x] = st.sureness[x] * (1 << 20) + roots.size();
            }
        }
        List<int[]> cands = new ArrayList<>();
        for (int x = 0; x < st.rank.length; x++) {
            if (st.rank[x] >= 0) {
                cands.add(new int[] {x, st.rank[x]});
            }
        }
        return cands;
    }

    /** Joins the guessed part in balance at one event (see smallestBalanced). */
    private void guess(Joins st, int[] piece, int[][] ev, SplittableRandom rnd) {
        List<Integer> roots = new ArrayList<>();
        long[] v = nets(st.parent, piece, ev, roots);
        int[] g = smallestBalanced(v, identity(v.length), rnd);
        if (g == null) {
            g = identity(v.length);
        }
        for (int q = 1; q < g.length; q++) {
            st.join(roots.get(g[0]), roots.get(g[q]));
        }
    }

    /** Bytes starting minus ending at one event per group out of balance there (its root into {@code roots}). */
    private long[] nets(int[] parent, int[] piece, int[][] ev, List<Integer> roots) {
        TreeMap<Integer, Long> net = new TreeMap<>();
        for (int q : ev[1]) {
            net.merge(find(parent, q), size[piece[q]], Long::sum);
        }
        for (int q : ev[0]) {
            net.merge(find(parent, q), -size[piece[q]], Long::sum);
        }
        List<Long> v = new ArrayList<>();
        for (var en : net.entrySet()) {
            if (en.getValue() != 0) {
                roots.add(en.getKey());
                v.add(en.getValue());
            }
        }
        return v.stream().mapToLong(Long::longValue).toArray();
    }

    private static int[] identity(int n) {
        int[] r = new int[n];
        for (int q = 0; q < n; q++) {
            r[q] = q;
        }
        return r;
    }

    /**
     * A proper subset of {@code part} (indices into {@code v}) whose values sum to zero, or null: two
     * values that cancel first, then three, then the smallest common sum (few pieces that cancel are
     * the likeliest to be one region's; a chance match among many small pieces the least).
     */
    int[] smallestBalanced(long[] v, int[] part, SplittableRandom rnd) {
        if (part.length < 4) {
            return null; // a proper part and its rest each need a positive and a negative value
        }
        HashMap<Long, Integer> byValue = new HashMap<>();
        HashMap<Long, Integer> count = new HashMap<>();
        for (int x : part) {
            byValue.putIfAbsent(v[x], x);
            count.merge(v[x], 1, Integer::sum);
        }
        int[] pair = null;
        int pairs = 0;
        for (int x : part) {
            Integer y = byValue.get(-v[x]);
            if (v[x] > 0 && y != null) {
                if (rnd == null) {
                    if (count.get(v[x]) == 1 && count.get(-v[x]) == 1) {
                        lastScore = 0; // the only two groups of their size: the likeliest to be one region's
                        return new int[] {x, y};
                    }
                    if (pair == null) {
                        pair = new int[] {x, y};
                    }
                } else if (rnd.nextInt(++pairs) == 0) {
                    pair = new int[] {x, y};
                }
            }
        }
        if (pair != null) {
            lastScore = 1;
            return pair;
        }
        lastScore = 2;
        if (part.length >= 5 && part.length <= 400) {
            for (int i = 0; i < part.length; i++) {
                for (int j = i + 1; j < part.length; j++) {
                    int x = part[i];
                    int y = part[j];
                    if ((v[x] > 0) == (v[y] > 0)) {
                        Integer z = byValue.get(-(v[x] + v[y]));
                        if (z != null) {
                            return new int[] {x, y, z};
                        }
                    }
                }
            }
        }
        lastScore = 3;
        return smallestCommonSum(v, part);
    }

    /**
     * What {@code smallestBalanced(v, all, null)} would score (0 to 3), or -1 where it finds no part in
     * balance, without building the part: the same tests in the same order, the last one (a common sum
     * of positives and negated negatives) on bit sets, 64 sums a word, where the part's own search
     * keeps an item per sum. {@link #propagate} asks this of every event it looks at and needs no part.
     */
    static int balancedScore(long[] v) {
        if (v.length < 4) {
            return -1;
        }
        HashMap<Long, Integer> count = new HashMap<>();
        for (long x : v) {
            count.merge(x, 1, Integer::sum);
        }
        boolean pair = false;
        for (long x : v) {
            Integer y = x > 0 ? count.get(-x) : null;
            if (y != null) {
                if (count.get(x) == 1 && y == 1) {
                    return 0;
                }
                pair = true;
            }
        }
        if (pair) {
            return 1;
        }
        if (v.length >= 5 && v.length <= 400) {
            for (int i = 0; i < v.length; i++) {
                for (int j = i + 1; j < v.length; j++) {
                    if ((v[i] > 0) == (v[j] > 0) && count.containsKey(-(v[i] + v[j]))) {
                        return 2;
                    }
                }
            }
        }
        long g = 0;
        long total = 0;
        int pos = 0;
        int neg = 0;
        for (long x : v) {
            g = gcd(g, Math.abs(x));
            if (x > 0) {
                total += x;
                pos++;
            } else {
                neg++;
            }
        }
        if (pos < 2 && neg < 2 || g == 0 || total / g + 1 > MAX_SUM_BITS) {
            return -1;
        }
        int w = (int) (total / g);
        long[] p = subsetSums(v, g, w, true);
        long[] n = subsetSums(v, g, w, false);
        for (int word = 0; word < p.length; word++) {
            long both = p[word] & n[word];
            if (word == 0) {
                both &= ~1L;                      // the empty part
            }
            if (word == (w >> 6)) {
                both &= (1L << (w & 63)) - 1;     // sums from w up: the whole
            }
            if (word > (w >> 6)) {
                both = 0;
            }
            if (both != 0) {
                return 3;
            }
        }
        return -1;
    }

    /** The sums (in units of {@code g}, 0 to {@code w}) of parts of the positive (or negated negative) values, as bits. */
    private static long[] subsetSums(long[] v, long g, int w, boolean positive) {
        long[] bits = new long[(w >> 6) + 1];
        bits[0] = 1;
        for (long x : v) {
            if ((x > 0) != positive) {
                continue;
            }
            long units = Math.abs(x) / g;
            if (units > w) {
                continue;
            }
            int sh = (int) units;
            int ws = sh >> 6;
            int bs = sh & 63;
            for (int word = bits.length - 1; word >= ws; word--) {
                long add = bits[word - ws] << bs;
                if (bs != 0 && word - ws - 1 >= 0) {
                    add |= bits[word - ws - 1] >>> (64 - bs);
                }
                bits[word] |= add;
            }
        }
        return bits;
    }

    /** A proper subset of {@code part} whose values sum to zero at the smallest common sum of positives and negated negatives, or null. */
    private static int[] smallestCommonSum(long[] v, int[] part) {
        long g = 0;
        long total = 0;
        int pos = 0;
        int neg = 0;
        for (int x : part) {
            g = gcd(g, Math.abs(v[x]));
            if (v[x] > 0) {
                total += v[x];
                pos++;
            } else {
                neg++;
            }
        }
        if (pos < 2 && neg < 2 || g == 0 || total / g + 1 > MAX_SUM_BITS) {
            return null;
        }
        int w = (int) (total / g);
        int[] fromPos = reach(v, part, g, w, true);
        int[] fromNeg = reach(v, part, g, w, false);
        for (int s = 1; s < w; s++) {
            if (fromPos[s] >= 0 && fromNeg[s] >= 0) {
                List<Integer> pick = new ArrayList<>();
                rebuild(v, g, fromPos, s, pick);
                rebuild(v, g, fromNeg, s, pick);
                return pick.stream().mapToInt(Integer::intValue).toArray();
            }
        }
        return null;
    }

    /** For each sum (in units of {@code g}) of some positive (or negated negative) values: the item that first reached it, -1 if none; 0 reached by none (marked -2). */
    private static int[] reach(long[] v, int[] part, long g, int w, boolean positive) {
        int[] from = new int[w + 1];
        Arrays.fill(from, -1);
        from[0] = -2;
        for (int x : part) {
            if ((v[x] > 0) != positive) {
                continue;
            }
            int s = (int) (Math.abs(v[x]) / g);
            for (int t = w; t >= s; t--) {
                if (from[t] == -1 && from[t - s] != -1) {
                    from[t] = x;
                }
            }
        }
        return from;
    }

    private static void rebuild(long[] v, long g, int[] from, int s, List<Integer> pick) {
        while (s > 0) {
            int x = from[s];
            pick.add(x);
            s -= (int) (Math.abs(v[x]) / g);
        }
    }

    /** Whether some proper, non-empty part of the enders frees exactly what some proper part of the starters takes. */
    private boolean commonPart(int[] piece, int[] enders, int[] starters) {
        if (enders.length == 1 || starters.length == 1) {
            return false; // a single buffer on one side: only 0 and the whole
        }
        long g = 0;
        long total = 0;
        for (int q : enders) {
            g = gcd(g, size[piece[q]]);
            total += size[piece[q]];
        }
        for (int q : starters) {
            g = gcd(g, size[piece[q]]);
        }
        long width = total / g + 1;
        if (width > MAX_SUM_BITS) {
            return true; // too wide to tell: do not join on it
        }
        long[] e = sums(piece, enders, g, (int) width);
        long[] s = sums(piece, starters, g, (int) width);
        int w = (int) (total / g);
        for (int x = 0; x < e.length; x++) {
            long both = e[x] & s[x];
            if (x == 0) {
                both &= ~1L;
            }
            if (x == (w >> 6)) {
                both &= ~(1L << (w & 63));
            }
            if (both != 0) {
                return true;
            }
        }
        return false;
    }

    private long[] sums(int[] piece, int[] side, long g, int width) {
        long[] bits = new long[(width >> 6) + 1];
        bits[0] = 1;
        for (int q : side) {
            int s = (int) (size[piece[q]] / g);
            int ws = s >> 6;
            int bs = s & 63;
            for (int w = bits.length - 1; w >= ws; w--) {
                long v = bits[w - ws] << bs;
                if (bs != 0 && w - ws - 1 >= 0) {
                    v |= bits[w - ws - 1] >>> (64 - bs);
                }
                bits[w] |= v;
            }
        }
        return bits;
    }

    /** The corner search on one piece that did not come apart, within {@code height}, offsets from {@code base}. */
    private CanonicalSearch.Outcome search(int[] piece, long height, long base, long nodeLimit, long[] out) {
        List<PlanBuffer> bs = new ArrayList<>(piece.length);
        for (int i : piece) {
            bs.add(new PlanBuffer(problem.buffers().get(i).id(), lo[i], hi[i], size[i]));
        }
        PlanProblem sub = new PlanProblem(bs, 1);
        long[] found = new long[piece.length];
        largestSearched = Math.max(largestSearched, piece.length);
        PerfectPacking pp = new PerfectPacking(sub, height, deadline).nodeLimit(nodeLimit);
        CanonicalSearch.Outcome o = pp.runInto(found);
        searchNodes += pp.nodes();
        if (o == CanonicalSearch.Outcome.FOUND) {
            for (int q = 0; q < piece.length; q++) {
                out[piece[q]] = base + found[q];
            }
        }
        return o;
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    private static void union(int[] parent, int x, int y) {
        int a = find(parent, x);
        int b = find(parent, y);
        if (a != b) {
            parent[a] = b;
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
}
