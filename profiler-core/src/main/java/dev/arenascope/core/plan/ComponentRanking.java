package dev.arenascope.core.plan;

import java.util.Arrays;

/**
 * The ranks of {@link CanonicalSearch}: the order candidates at one level are tried in, and the order
 * its canonical rule lists the buffers of one level in. They start as the static order; a component
 * that decomposition splits off may be re-ranked by one of {@link SearchPlanner#staticOrder}'s
 * heuristics on the bytes still unplaced in its sections ({@link #rerank}), and put back when the
 * component is done ({@link #restore}). {@link #salt} names the ranking in force: the search's
 * order-dependent failed-state keys include it.
 *
 * <p>Shares the search's arrays (placed, sections, zobrist keys, unplaced bytes per section) and reads
 * them as they change; {@link #rank} and {@link #byRank} are read by the search directly. Not
 * thread-safe; one per search.
 */
final class ComponentRanking {
    /** Search index to rank. */
    final int[] rank;
    /** Rank to search index. */
    final int[] byRank;
    private final int m;
    private final boolean[] placed;
    private final int[] sl;
    private final int[] su;
    private final long[] zobrist;
    private final long[] rem;
    private final long[] size;
    private final long[] width;          // lifetime length
    private final long[] area;           // width x size (saturating)
    private final int[] sortIdx;
    private int heuristic = -1;          // SearchPlanner.staticOrder heuristic used to re-rank; -1: never
    private int[] save = new int[64];
    private int sp;
    private long salt;

    /**
     * @param placed  whether each buffer (search index) is placed
     * @param sl      first section of each buffer
     * @param su      one past its last section
     * @param zobrist hash key of each buffer
     * @param rem     bytes unplaced in each section
     * @param size    aligned sizes
     * @param lower   first step of each buffer
     * @param upper   one past its last step
     */
    ComponentRanking(boolean[] placed, int[] sl, int[] su, long[] zobrist, long[] rem, long[] size, long[] lower, long[] upper) {
        this.m = placed.length;
        this.placed = placed;
        this.sl = sl;
        this.su = su;
        this.zobrist = zobrist;
        this.rem = rem;
        this.size = size;
        rank = new int[m];
        byRank = new int[m];
        width = new long[m];
        area = new long[m];
        for (int i = 0; i < m; i++) {
            rank[i] = i;
            byRank[i] = i;
            width[i] = upper[i] - lower[i];
            area[i] = Math.multiplyHigh(width[i], size[i]) != 0 ? Long.MAX_VALUE : width[i] * size[i];
        }
        sortIdx = new int[m];
    }

    /** Re-ranks components with heuristic {@code h} (6, 7 or 8); -1 (the default) never re-ranks. */
    void heuristic(int h) {
        heuristic = h;
    }

    /** The depth of the rank stack, for {@link #restore}. */
    int mark() {
        return sp;
    }

    /** Names the ranking in force (0 for the static order). */
    long salt() {
        return salt;
    }

    /**
     * Re-ranks the unplaced buffers of the component {@code [a, b)} by the run's heuristic, section
     * load being the bytes unplaced in the section now: the ranks the component's buffers hold are
     * dealt out again in the new order (ties keep their old order, so identical buffers stay in index
     * order). Old ranks go on a stack for {@link #restore}. The new ranking depends only on the
     * component's unplaced set, which {@link #salt} then names.
     */
    void rerank(int a, int b) {
        if (heuristic < 0) {
            return;
        }
        int k = 0;
        long set = 0;
        for (int i = 0; i < m; i++) {
            if (!placed[i] && sl[i] >= a && su[i] <= b) {
                sortIdx[k++] = i;
                set ^= zobrist[i];
            }
        }
        if (k < 2) {
            return;
        }
        // keys by position in sortIdx: section load from the bytes unplaced now, the rest static
        long[] load = new long[k];
        long[] w = new long[k];
        long[] sz = new long[k];
        long[] ar = new long[k];
        int[] held = new int[k]; // the ranks the component holds, dealt out again below
        Integer[] idx = new Integer[k];
        for (int j = 0; j < k; j++) {
            int i = sortIdx[j];
            for (int s = sl[i]; s < su[i]; s++) {
                load[j] = Math.max(load[j], rem[s]);
            }
            w[j] = width[i];
            sz[j] = size[i];
            ar[j] = area[i];
            held[j] = rank[i];
            idx[j] = j;
        }
        Arrays.sort(held);
        final int[] who = sortIdx;
        Arrays.sort(idx, SearchPlanner.byHeuristic(heuristic, load, w, sz, ar).thenComparingInt(p -> rank[who[p]]));
        if (save.length < sp + 2 * k) {
            save = Arrays.copyOf(save, Math.max(save.length * 2, sp + 2 * k));
        }
        for (int j = 0; j < k; j++) {
            int i = who[idx[j]];
            save[sp++] = i;
            save[sp++] = rank[i];
        }
        for (int j = 0; j < k; j++) {
            int i = who[idx[j]];
            rank[i] = held[j];
            byRank[held[j]] = i;
        }
        salt = mix(set + 0x3C6EF372FE94F82BL);
    }

    /** Takes back re-rankings until the rank stack is at {@code mark}; the ranking named {@code salt} is in force again. */
    void restore(int mark, long salt) {
        this.salt = salt;
        while (sp > mark) {
            int r = save[--sp];
            int i = save[--sp];
            rank[i] = r;
            byRank[r] = i;
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
