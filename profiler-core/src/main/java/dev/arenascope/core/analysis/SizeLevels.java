package dev.arenascope.core.analysis;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The overlap index behind {@link Allocations#largest}: the allocation table again, thinned by size. A
 * timeline asks only for allocations of at least a quarter pixel, and that floor is about the same at
 * every zoom (the lane's scale over its height), so at a coarse zoom — where time skips nothing, every
 * allocation overlapping the view — the question is decided by the few large allocations, not by the
 * million small ones. Level 0 is the whole table; each further level keeps, in allocation order and in
 * columns of their own (bytes, start and end), the allocations of at least {@code 2^j} bytes, where that
 * is at most half of the previous level's and at most a quarter of all. A query scans the level with the
 * largest floor at or below its {@code minBytes}: never more than twice the allocations of at least half
 * its {@code minBytes} (four times when that level is the whole table), and the level's columns are
 * contiguous, so the scan streams rather than gathers.
 *
 * <p>Each level is cut into blocks of {@value #BLOCK} entries whose largest size and latest end are kept,
 * and a block that cannot hold an allocation live at the first instant with enough bytes is skipped
 * whole (fine zooms skip by time, coarse ones by size).
 *
 * <p>Memory: the levels beyond 0 hold at most half the table's entries in all (a quarter, an eighth, …),
 * 28 bytes each; built in two passes over the table with the analysis. Immutable; any thread.
 */
final class SizeLevels {
    /** Entries per block of a level's overlap index. */
    static final int BLOCK = 256;

    /**
     * One level: the allocations of at least {@code floor} bytes, in allocation order.
     * {@code id == null}: the whole table (entry {@code i} is allocation {@code i}).
     */
    static final class Level {
        final long floor;
        final int size;
        final int[] id;
        final long[] bytes;
        final long[] startNs;
        final long[] endNs;
        final long[] blockMaxBytes;
        final long[] blockMaxEnd;

        Level(long floor, int size, int[] id, long[] bytes, long[] startNs, long[] endNs) {
            this.floor = floor;
            this.size = size;
            this.id = id;
            this.bytes = bytes;
            this.startNs = startNs;
            this.endNs = endNs;
            int blocks = (size + BLOCK - 1) / BLOCK;
            blockMaxBytes = new long[blocks];
            blockMaxEnd = new long[blocks];
            for (int i = 0; i < size; i++) {
                int b = i / BLOCK;
                blockMaxBytes[b] = Math.max(blockMaxBytes[b], bytes[i]);
                blockMaxEnd[b] = Math.max(blockMaxEnd[b], endNs[i]);
            }
        }

        /** The allocation number of entry {@code i}. */
        int allocation(int i) {
            return id == null ? i : id[i];
        }

        /** The first entry made at or after {@code ns} ({@link #size} if none). */
        int firstStartingAtOrAfter(long ns) {
            int lo = 0;
            int hi = size;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (startNs[mid] < ns) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    private final Level[] levels;

    /** The levels of a table of {@code size} allocations (the arrays are the table's, read only). */
    SizeLevels(int size, long[] bytes, long[] startNs, long[] endNs) {
        // allocations by bit length of their size: at least 2^j bytes = bit length above j
        long[] byLength = new long[65];
        for (int i = 0; i < size; i++) {
            byLength[64 - Long.numberOfLeadingZeros(Math.max(0, bytes[i]))]++;
        }
        long[] atLeast = new long[64]; // atLeast[j]: allocations of at least 2^j bytes
        long above = 0;
        for (int len = 64; len >= 1; len--) {
            above += byLength[len];
            atLeast[len - 1] = above;
        }
        Level[] kept = new Level[64];
        int n = 0;
        kept[n++] = new Level(0, size, null, bytes, startNs, endNs);
        long last = Math.max(1, size / 2); // the first level beyond 0 holds at most a quarter
        for (int j = 1; j < 63; j++) {
            long c = atLeast[j];
            if (c == 0) {
                break;
            }
            if (c <= last / 2) {
                kept[n++] = thin(1L << j, (int) c, size, bytes, startNs, endNs);
                last = c;
            }
        }
        levels = Arrays.copyOf(kept, n);
    }

    private static Level thin(long floor, int count, int size, long[] bytes, long[] startNs, long[] endNs) {
        int[] id = new int[count];
        long[] b = new long[count];
        long[] s = new long[count];
        long[] e = new long[count];
        int k = 0;
        for (int i = 0; i < size; i++) {
            if (bytes[i] >= floor) {
                id[k] = i;
                b[k] = bytes[i];
                s[k] = startNs[i];
                e[k] = endNs[i];
                k++;
            }
        }
        return new Level(floor, count, id, b, s, e);
    }

    /** The level to scan for allocations of at least {@code minBytes}. */
    Level forMinBytes(long minBytes) {
        Level best = levels[0];
        for (Level l : levels) {
            if (l.floor <= minBytes) {
                best = l;
            }
        }
        return best;
    }

    /** Levels kept (level 0 included), for tests and the memory figure. */
    int count() {
        return levels.length;
    }

    /** Entries held beyond level 0. */
    long extraEntries() {
        long n = 0;
        for (int i = 1; i < levels.length; i++) {
            n += levels[i].size;
        }
        return n;
    }

    /** {@link Allocations#largest}: see there. */
    Allocations.Largest largest(long[] instants, long minBytes, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, got " + limit);
        }
        Level lv = forMinBytes(minBytes);
        if (instants.length == 0 || lv.size == 0) {
            return Allocations.Largest.NONE;
        }
        long first = instants[0];
        int end = lv.firstStartingAtOrAfter(instants[instants.length - 1] + 1);
        TopK top = new TopK(limit);
        long n = 0;
        long bytesIn = 0;
        long[] bytes = lv.bytes;
        long[] starts = lv.startNs;
        long[] ends = lv.endNs;
        long[] bMaxEnd = lv.blockMaxEnd;
        long[] bMaxBytes = lv.blockMaxBytes;
        int last = instants.length;
        int k = 0; // the first instant at or after the entry's start: never moves back (starts never decrease)
        for (int b = 0, blocks = (end + BLOCK - 1) / BLOCK; b < blocks; b++) {
            if (bMaxEnd[b] <= first || bMaxBytes[b] < minBytes) {
                continue;
            }
            for (int i = b * BLOCK, e = Math.min(end, i + BLOCK); i < e; i++) {
                long size = bytes[i];
                long stop = ends[i];
                if (size < minBytes || stop <= first) {
                    continue;
                }
                long s = starts[i];
                while (k < last && instants[k] < s) {
                    k++;
                }
                if (k == last || instants[k] >= stop) {
                    continue;
                }
                n++;
                bytesIn += size;
                top.offer(size, i, s, stop, k);
            }
        }
        return top.result(lv, n, bytesIn);
    }

    /**
     * The {@code limit} largest (size, entry) pairs offered in entry order, ties going to the smaller
     * entry (the earlier allocation), with what the caller needs of each (start, end, first instant) kept
     * beside them, so the answer is not gathered again from the table. Offers are appended to a buffer of
     * about twice the limit; a full buffer is cut back to the limit around its limit-th largest size
     * (a selection, linear), and from then on only offers larger than that size are taken: amortised a
     * comparison and an append per offer however the sizes come (a heap costs a sift of log(limit)
     * steps for every offer that beats its root, which is most of them when sizes grow with time). The
     * cut keeps the buffer's order, so the answer comes out in allocation order without a sort.
     * Memory: five columns of {@code 2 × limit + 64} entries at most.
     */
    private static final class TopK {
        private final int limit;
        private final int cap;
        private long[] size;
        private int[] entry;
        private long[] pStart;
        private long[] pEnd;
        private int[] pFirst;
        private long[] scratch;
        private int n;
        /** Once the buffer was cut: offers must be larger than this. */
        private long floor = Long.MIN_VALUE;

        TopK(int limit) {
            this.limit = limit;
            this.cap = (int) Math.min(Integer.MAX_VALUE - 8, 2L * limit + 64);
            int c = Math.min(cap, 1024); // grown as offers come, up to cap
            size = new long[c];
            entry = new int[c];
            pStart = new long[c];
            pEnd = new long[c];
            pFirst = new int[c];
        }

        void offer(long s, int i, long start, long end, int firstInstant) {
            if (s <= floor || limit == 0) {
                return;
            }
            if (n == size.length) {
                if (n == cap) {
                    cut();
                    if (s <= floor) {
                        return;
                    }
                } else {
                    int c = (int) Math.min(cap, 2L * n);
                    size = Arrays.copyOf(size, c);
                    entry = Arrays.copyOf(entry, c);
                    pStart = Arrays.copyOf(pStart, c);
                    pEnd = Arrays.copyOf(pEnd, c);
                    pFirst = Arrays.copyOf(pFirst, c);
                }
            }
            size[n] = s;
            entry[n] = i;
            pStart[n] = start;
            pEnd[n] = end;
            pFirst[n] = firstInstant;
            n++;
        }

        /**
         * Keeps the {@code limit} strongest of the buffer, in order: every one larger than the limit-th
         * largest size {@code t}, and of those exactly {@code t} the earliest, as many as fill the limit.
         */
        private void cut() {
            if (n <= limit) {
                return;
            }
            if (scratch == null || scratch.length < n) {
                scratch = new long[size.length];
            }
            System.arraycopy(size, 0, scratch, 0, n);
            long t = select(scratch, n, n - limit); // ascending position n - limit: the limit-th largest
            int above = 0;
            for (int j = 0; j < n; j++) {
                if (size[j] > t) {
                    above++;
                }
            }
            int ties = limit - above; // how many of size t are kept: the earliest
            int m = 0;
            for (int j = 0; j < n; j++) {
                long v = size[j];
                if (v > t || (v == t && ties-- > 0)) {
                    size[m] = v;
                    entry[m] = entry[j];
                    pStart[m] = pStart[j];
                    pEnd[m] = pEnd[j];
                    pFirst[m] = pFirst[j];
                    m++;
                }
            }
            n = m;
            floor = t; // a later offer of size t is weaker than every kept one: only larger ones can enter
        }

        /**
         * The value at ascending position {@code k} of {@code a[0..n)} (reordering it): quickselect with
         * a random pivot and a three-way partition, so that many equal sizes or a hostile order cost
         * linear time on average.
         */
        private static long select(long[] a, int n, int k) {
            int lo = 0;
            int hi = n - 1;
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            while (lo < hi) {
                long pivot = a[lo + rnd.nextInt(hi - lo + 1)];
                int lt = lo;
                int gt = hi;
                int j = lo;
                while (j <= gt) {
                    long v = a[j];
                    if (v < pivot) {
                        a[j++] = a[lt];
                        a[lt++] = v;
                    } else if (v > pivot) {
                        a[j] = a[gt];
                        a[gt--] = v;
                    } else {
                        j++;
                    }
                }
                if (k < lt) {
                    hi = lt - 1;
                } else if (k > gt) {
                    lo = gt + 1;
                } else {
                    return pivot;
                }
            }
            return a[lo];
        }

        Allocations.Largest result(Level lv, long qualified, long qualifiedBytes) {
            cut();
            int[] ids = new int[n];
            for (int j = 0; j < n; j++) {
                ids[j] = lv.allocation(entry[j]);
            }
            return new Allocations.Largest(ids, Arrays.copyOf(size, n), Arrays.copyOf(pStart, n), Arrays.copyOf(pEnd, n),
                    Arrays.copyOf(pFirst, n), qualified, qualifiedBytes);
        }
    }
}
