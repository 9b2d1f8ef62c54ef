package dev.arenascope.core.plan;

import java.util.Arrays;

/**
 * A complete search for packings without waste: used when every section of time holds exactly the
 * capacity's bytes (tight problems, {@link TightProblems}), where any byte left empty below the top
 * makes the packing fail.
 *
 * <p><b>Corner branching.</b> Take the lowest point of the skyline, leftmost: section {@code s1} at
 * level {@code x}, in a run {@code [s1, s2)} of sections all at {@code x}. With no waste allowed, the byte
 * at {@code (s1, x)} must be covered by a buffer placed at exactly {@code x}; it cannot reach the section
 * before {@code s1} (higher there, or there is none) nor past {@code s2}. So the only choices are the
 * unplaced buffers that start at {@code s1}, end by {@code s2} and fit under the capacity: a small
 * branching factor, and no placement ever leaves a hole. Identical buffers are tried once; states
 * (skyline and placed set, by hash) that failed are remembered. When a run at the lowest level can be
 * covered by nobody, the node fails. Since every packing without waste is reached this way, a search
 * that ends without one proves there is none.
 *
 * <p>Iterative (an explicit stack), so 16,384 buffers deep costs no thread stack. Not thread-safe; one
 * instance per search.
 */
final class PerfectPacking {
    private final int m;
    private final int[] original;
    private final long[] size;
    private final int[] sl;
    private final int[] su;
    private final int sections;
    private final long cap;
    private final int[][] starting;   // buffers by first section, in the order they are tried
    private final int[] twin;
    private final long[] zobrist;
    private final long deadline;

    private final long[] top;
    private final long[] tree;        // min over sections, leftmost wins
    private final int leaves;
    private final boolean[] placed;
    private final long[] offset;
    private final LongSet failed = new LongSet(1 << 14);
    private long nodes;
    private long nodeLimit = Long.MAX_VALUE;

    /**
     * Whether {@code problem} at {@code capacity} leaves no slack: at every section of time with a live
     * buffer, exactly {@code capacity} bytes are live. Only then is this search complete.
     */
    static boolean applies(PlanProblem problem, long capacity) {
        int n = problem.size();
        if (n == 0) {
            return false;
        }
        long[] pts = new long[2 * n];
        for (int i = 0; i < n; i++) {
            pts[2 * i] = problem.buffers().get(i).lower();
            pts[2 * i + 1] = problem.buffers().get(i).upper();
        }
        Arrays.sort(pts);
        int k = 0;
        for (int i = 0; i < pts.length; i++) {
            if (k == 0 || pts[i] != pts[k - 1]) {
                pts[k++] = pts[i];
            }
        }
        long[] diff = new long[k + 1];
        for (int i = 0; i < n; i++) {
            diff[Arrays.binarySearch(pts, 0, k, problem.buffers().get(i).lower())] += problem.alignedSize(i);
            diff[Arrays.binarySearch(pts, 0, k, problem.buffers().get(i).upper())] -= problem.alignedSize(i);
        }
        long live = 0;
        boolean any = false;
        for (int s = 0; s + 1 < k; s++) {
            live += diff[s];
            if (live != 0 && live != capacity) {
                return false;
            }
            any |= live == capacity;
        }
        return any;
    }

    PerfectPacking(PlanProblem problem, long capacity, long deadline) {
        this.deadline = deadline;
        int n = problem.size();
        int[] keep = new int[n];
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (problem.alignedSize(i) > 0) {
                keep[c++] = i;
            }
        }
        m = c;
        original = Arrays.copyOf(keep, c);
        size = new long[m];
        long[] pts = new long[2 * m];
        for (int i = 0; i < m; i++) {
            size[i] = problem.alignedSize(original[i]);
            pts[2 * i] = problem.buffers().get(original[i]).lower();
            pts[2 * i + 1] = problem.buffers().get(original[i]).upper();
        }
        Arrays.sort(pts);
        int k = 0;
        for (int i = 0; i < pts.length; i++) {
            if (k == 0 || pts[i] != pts[k - 1]) {
                pts[k++] = pts[i];
            }
        }
        sections = Math.max(1, k - 1);
        sl = new int[m];
        su = new int[m];
        for (int i = 0; i < m; i++) {
            sl[i] = Arrays.binarySearch(pts, 0, k, problem.buffers().get(original[i]).lower());
            su[i] = Arrays.binarySearch(pts, 0, k, problem.buffers().get(original[i]).upper());
        }
        cap = capacity;
        // try longer lifetimes first, then larger sizes: they close the run with fewer pieces
        Integer[] idx = new Integer[m];
        for (int i = 0; i < m; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (x, y) -> sl[x] != sl[y] ? Integer.compare(sl[x], sl[y])
                : su[x] != su[y] ? Integer.compare(su[y], su[x])
                : size[x] != size[y] ? Long.compare(size[y], size[x]) : Integer.compare(x, y));
        int[] count = new int[sections + 1];
        for (int i = 0; i < m; i++) {
            count[sl[i]]++;
        }
        starting = new int[sections + 1][];
        for (int s = 0; s <= sections; s++) {
            starting[s] = new int[count[s]];
            count[s] = 0;
        }
        twin = new int[m];
        Arrays.fill(twin, -1);
        int prev = -1;
        for (int q = 0; q < m; q++) {
            int i = idx[q];
            starting[sl[i]][count[sl[i]]++] = i;
            if (prev >= 0 && sl[prev] == sl[i] && su[prev] == su[i] && size[prev] == size[i]) {
                twin[i] = prev;
            }
            prev = i;
        }
        zobrist = new long[m];
        for (int i = 0; i < m; i++) {
            zobrist[i] = mix(0x9E3779B97F4A7C15L * (i + 7));
        }
        top = new long[sections];
        placed = new boolean[m];
        offset = new long[m];
        int l = 1;
        while (l < sections) {
            l <<= 1;
        }
        leaves = l;
        tree = new long[2 * l];
        Arrays.fill(tree, Long.MAX_VALUE);
        for (int s = 0; s < sections; s++) {
            setTop(s, 0);
        }
        // sections no buffer lives in are full already
        long[] live = new long[sections + 1];
        for (int i = 0; i < m; i++) {
            live[sl[i]]++;
            live[su[i]]--;
        }
        long run = 0;
        for (int s = 0; s < sections; s++) {
            run += live[s];
            if (run == 0) {
                setTop(s, cap);
            }
        }
    }

    /** Gives up (as timed out) after about this many nodes: a budget that does not depend on the machine's speed. */
    PerfectPacking nodeLimit(long limit) {
        nodeLimit = limit;
        return this;
    }

    long nodes() {
        return nodes;
    }

    /** Runs the search; on {@link CanonicalSearch.Outcome#FOUND} writes offsets by problem index into {@code out}. */
    CanonicalSearch.Outcome runInto(long[] out) {
        // explicit stack: per depth, the buffer placed and the position reached in its candidate list
        int[] chosen = new int[m + 1];
        int[] pos = new int[m + 1];
        int[] corner = new int[m + 1];
        long[] level = new long[m + 1];
        long[] skyAt = new long[m + 1];
        long[] setAt = new long[m + 1];
        int depth = 0;
        long sky = skylineHash();
        long set = 0;
        boolean descend = true;
        while (true) {
            if ((++nodes & 255) == 0 && (System.nanoTime() > deadline || nodes > nodeLimit)) {
                return CanonicalSearch.Outcome.TIMED_OUT;
            }
            if (descend) {
                if (depth == m) {
                    for (int i = 0; i < m; i++) {
                        out[original[i]] = offset[i];
                    }
                    return CanonicalSearch.Outcome.FOUND;
                }
                if (failed.contains(key(sky, set)) || tree[1] == Long.MAX_VALUE) {
                    descend = false;
                } else {
                    int s1 = leftmostLowest();
                    corner[depth] = s1;
                    level[depth] = top[s1];
                    pos[depth] = 0;
                    if (!tileable(s1, top[s1])) {
                        failed.add(key(sky, set));
                        descend = false;
                        continue;
                    }
                    skyAt[depth] = sky;
                    setAt[depth] = set;
                }
            }
            if (!descend && depth == 0) {
                return CanonicalSearch.Outcome.INFEASIBLE;
            }
            if (!descend) {
                // back up one level: take back the buffer placed there
                depth--;
                int c = chosen[depth];
                unplace(c, level[depth]);
                sky = skyAt[depth];
                set = setAt[depth];
            }
            // next candidate at this depth
            int s1 = corner[depth];
            long x = level[depth];
            int s2 = s1;
            while (s2 < sections && top[s2] == x) {
                s2++;
            }
            int[] cand = starting[s1];
            int next = -1;
            for (int q = pos[depth]; q < cand.length; q++) {
                int i = cand[q];
                if (!placed[i] && su[i] <= s2 && x + size[i] <= cap && (twin[i] < 0 || placed[twin[i]])) {
                    next = q;
                    break;
                }
            }
            if (next < 0) {
                failed.add(key(skyAt[depth], setAt[depth]));
                descend = false;
                if (depth == 0) {
                    return CanonicalSearch.Outcome.INFEASIBLE;
                }
                continue;
            }
            pos[depth] = next + 1;
            int c = cand[next];
            chosen[depth] = c;
            place(c, x);
            sky = skyAfter(skyAt[depth], c, x);
            set = setAt[depth] ^ zobrist[c];
            depth++;
            descend = true;
        }
    }

    private boolean[] reach;

    /**
     * Whether the lowest run from {@code s1} at level {@code x} can be tiled: every section of it has
     * its byte {@code x} free with higher neighbours on both sides, so the unplaced buffers placed at
     * {@code x} must cover the run end to end, each starting where the previous ended. A path over
     * their lifetimes from {@code s1} to the run's end must exist.
     */
    private boolean tileable(int s1, long x) {
        int s2 = s1;
        while (s2 < sections && top[s2] == x) {
            s2++;
        }
        if (reach == null) {
            reach = new boolean[sections + 1];
        }
        for (int s = s1; s <= s2; s++) {
            reach[s] = false;
        }
        reach[s1] = true;
        for (int s = s1; s < s2; s++) {
            if (!reach[s]) {
                continue;
            }
            for (int i : starting[s]) {
                if (!placed[i] && su[i] <= s2 && x + size[i] <= cap) {
                    reach[su[i]] = true;
                }
            }
        }
        return reach[s2];
    }

    /** The skyline's part of the state hash: the sum over sections of mix(section, top). */
    private long skylineHash() {
        long h = 0;
        for (int s = 0; s < sections; s++) {
            h += mix(s * 0xC2B2AE3D27D4EB4FL + top[s]);
        }
        return h;
    }

    /** The skyline sum after {@code c} went at {@code x}, from the one before. */
    private long skyAfter(long before, int c, long x) {
        long d = 0;
        for (int s = sl[c]; s < su[c]; s++) {
            d += mix(s * 0xC2B2AE3D27D4EB4FL + x + size[c]) - mix(s * 0xC2B2AE3D27D4EB4FL + x);
        }
        return before + d;
    }

    private static long key(long sky, long set) {
        return mix(sky) ^ set;
    }

    private void place(int c, long x) {
        placed[c] = true;
        offset[c] = x;
        for (int s = sl[c]; s < su[c]; s++) {
            setTop(s, x + size[c]);
        }
    }

    private void unplace(int c, long x) {
        placed[c] = false;
        for (int s = sl[c]; s < su[c]; s++) {
            setTop(s, x);
        }
    }

    private void setTop(int s, long v) {
        top[s] = v;
        int p = s + leaves;
        tree[p] = v >= cap ? Long.MAX_VALUE : v;
        for (p >>= 1; p >= 1; p >>= 1) {
            tree[p] = Math.min(tree[2 * p], tree[2 * p + 1]);
        }
    }

    /** The leftmost section at the lowest level below the capacity. */
    private int leftmostLowest() {
        long v = tree[1];
        int p = 1;
        while (p < leaves) {
            p = tree[2 * p] == v ? 2 * p : 2 * p + 1;
        }
        return p - leaves;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
