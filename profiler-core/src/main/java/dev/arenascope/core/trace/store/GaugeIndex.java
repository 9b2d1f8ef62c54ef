package dev.arenascope.core.trace.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One memory's level-of-detail index over its two gauges ({@code used}, {@code aux}).
 *
 * <p>The memory's events are grouped into <em>leaves</em> of up to {@link #LEAF_EVENTS} consecutive
 * events; each leaf keeps its time span, the minimum, maximum and last value of both gauges, the
 * sequence number of its first event and its events' (time, used, aux) triples as delta varints
 * (a few bytes an event). Above the leaves sits a pyramid of power-of-two levels: node {@code i} of
 * level {@code l} holds the minima and maxima of leaves {@code [i·2^l, (i+1)·2^l)}. A bucket of any
 * width is then answered from O(log n) pyramid nodes plus at most two partially covered leaves,
 * whatever the number of events.
 *
 * <p>Times must arrive non-decreasing (the store passes effective times). Not thread-safe: the store
 * calls it under its lock, and {@link #flush()} after each batch so readers see the open leaf.
 */
final class GaugeIndex {
    static final int LEAF_EVENTS = 64;
    private static final int PAGE_SHIFT = 16;
    private static final int PAGE = 1 << PAGE_SHIFT;
    private static final int LEAF_MAX_BYTES = LEAF_EVENTS * 30;

    // per leaf
    private final LongColumn tFirst = new LongColumn();
    private final LongColumn tLast = new LongColumn();
    private final LongColumn uMin = new LongColumn();
    private final LongColumn uMax = new LongColumn();
    private final LongColumn uLast = new LongColumn();
    private final LongColumn xMin = new LongColumn();
    private final LongColumn xMax = new LongColumn();
    private final LongColumn xLast = new LongColumn();
    private final LongColumn seqFirst = new LongColumn();
    private final LongColumn byteOff = new LongColumn();
    /** levels.get(l-1) = {uMin, uMax, xMin, xMax} columns of pyramid level l (level 0 is the leaves). */
    private final List<LongColumn[]> levels = new ArrayList<>();

    // the triples
    private byte[][] pages = new byte[4][];
    private long bytePos;

    // the open (last) leaf
    private long leaves;
    private int openCount;
    private long oFirst;
    private long oLast;
    private long oUMin;
    private long oUMax;
    private long oXMin;
    private long oXMax;
    private long oU;
    private long oX;
    private boolean dirty;

    private long events;
    private long peakUsed;
    private long peakAux;

    long events() {
        return events;
    }

    long peakUsed() {
        return peakUsed;
    }

    long peakAux() {
        return peakAux;
    }

    /** Adds one event's gauges at effective time {@code t} (non-decreasing). */
    void add(long t, long used, long aux) {
        if (leaves == 0 || openCount == LEAF_EVENTS) {
            if (leaves > 0) {
                flush();
            }
            startLeaf(t, used, aux);
        }
        writeTriple(t - oLast, used - oU, aux - oX);
        oLast = t;
        oU = used;
        oX = aux;
        if (used < oUMin) {
            oUMin = used;
        }
        if (used > oUMax) {
            oUMax = used;
        }
        if (aux < oXMin) {
            oXMin = aux;
        }
        if (aux > oXMax) {
            oXMax = aux;
        }
        if (used > peakUsed) {
            peakUsed = used;
        }
        if (aux > peakAux) {
            peakAux = aux;
        }
        openCount++;
        events++;
        dirty = true;
    }

    private void startLeaf(long t, long used, long aux) {
        int page = (int) (bytePos >>> PAGE_SHIFT);
        int within = (int) (bytePos & (PAGE - 1));
        if (page < pages.length && pages[page] != null && PAGE - within < LEAF_MAX_BYTES) {
            page++;
            within = 0;
            bytePos = (long) page << PAGE_SHIFT;
        }
        if (page >= pages.length) {
            pages = Arrays.copyOf(pages, Math.max(page + 1, pages.length * 2));
        }
        if (pages[page] == null) {
            // the first page starts small and doubles, so a memory with few events costs little
            pages[page] = new byte[page == 0 ? 2 * LEAF_MAX_BYTES : PAGE];
        }
        if (pages[page].length < within + LEAF_MAX_BYTES) {
            pages[page] = Arrays.copyOf(pages[page], Math.min(PAGE, Math.max(pages[page].length * 2, within + LEAF_MAX_BYTES)));
        }
        long leaf = leaves++;
        tFirst.add(t);
        tLast.add(t);
        uMin.add(used);
        uMax.add(used);
        uLast.add(used);
        xMin.add(aux);
        xMax.add(aux);
        xLast.add(aux);
        seqFirst.add(events);
        byteOff.add(bytePos);
        openCount = 0;
        oFirst = t;
        oLast = t;
        oUMin = oUMax = used;
        oXMin = oXMax = aux;
        oU = 0;
        oX = 0;
        assert leaf == leaves - 1;
    }

    private void writeTriple(long dt, long du, long dx) {
        byte[] p = pages[(int) (bytePos >>> PAGE_SHIFT)];
        int i = (int) (bytePos & (PAGE - 1));
        i = putVarint(p, i, dt);
        i = putVarint(p, i, (du << 1) ^ (du >> 63));
        i = putVarint(p, i, (dx << 1) ^ (dx >> 63));
        bytePos = (bytePos & ~(long) (PAGE - 1)) + i;
    }

    private static int putVarint(byte[] b, int i, long v) {
        while ((v & ~0x7FL) != 0) {
            b[i++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[i++] = (byte) v;
        return i;
    }

    /** Publishes the open leaf's values to the columns and the pyramid. */
    void flush() {
        if (!dirty) {
            return;
        }
        dirty = false;
        long k = leaves - 1;
        tLast.set(k, oLast);
        uMin.set(k, oUMin);
        uMax.set(k, oUMax);
        uLast.set(k, oU);
        xMin.set(k, oXMin);
        xMax.set(k, oXMax);
        xLast.set(k, oX);
        // walk up: level l exists once level l-1 has two nodes; values only widen, so combining is enough
        for (int l = 1; ; l++) {
            long below = l == 1 ? leaves : levels.get(l - 2)[0].size();
            if (below < 2) {
                break;
            }
            long idx = k >>> l;
            if (levels.size() < l) {
                LongColumn[] lv = {new LongColumn(), new LongColumn(), new LongColumn(), new LongColumn()};
                levels.add(lv);
                lv[0].add(Math.min(node(l - 1, 0, 0), node(l - 1, 1, 0)));
                lv[1].add(Math.max(node(l - 1, 0, 1), node(l - 1, 1, 1)));
                lv[2].add(Math.min(node(l - 1, 0, 2), node(l - 1, 1, 2)));
                lv[3].add(Math.max(node(l - 1, 0, 3), node(l - 1, 1, 3)));
                continue;
            }
            LongColumn[] lv = levels.get(l - 1);
            if (idx == lv[0].size()) {
                lv[0].add(oUMin);
                lv[1].add(oUMax);
                lv[2].add(oXMin);
                lv[3].add(oXMax);
            } else {
                lv[0].set(idx, Math.min(lv[0].get(idx), oUMin));
                lv[1].set(idx, Math.max(lv[1].get(idx), oUMax));
                lv[2].set(idx, Math.min(lv[2].get(idx), oXMin));
                lv[3].set(idx, Math.max(lv[3].get(idx), oXMax));
            }
        }
    }

    /** Value {@code which} (0 uMin, 1 uMax, 2 xMin, 3 xMax) of node {@code i} at level {@code l}. */
    private long node(int l, long i, int which) {
        if (l == 0) {
            return switch (which) {
                case 0 -> uMin.get(i);
                case 1 -> uMax.get(i);
                case 2 -> xMin.get(i);
                default -> xMax.get(i);
            };
        }
        return levels.get(l - 1)[which].get(i);
    }

    static long satAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }

    static long satMul(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return (hi == 0 && lo >= 0) || (hi == -1 && lo < 0) ? lo : (hi < 0 ? Long.MIN_VALUE : Long.MAX_VALUE);
    }

    long bytes() {
        long n = tFirst.bytes() * 10 + 64 + pages.length * 8L;
        for (byte[] p : pages) {
            if (p != null) {
                n += 16 + p.length;
            }
        }
        for (LongColumn[] lv : levels) {
            for (LongColumn c : lv) {
                n += c.bytes();
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- queries

    /** Answers one query; holds the decoded leaf it last looked at. Not thread-safe (one per query). */
    final class Query {
        private final long[] qt = new long[LEAF_EVENTS];
        private final long[] qu = new long[LEAF_EVENTS];
        private final long[] qx = new long[LEAF_EVENTS];
        private long decodedLeaf = -1;
        private int decodedCount;
        // running min/max accumulators
        long accUMin;
        long accUMax;
        long accXMin;
        long accXMax;

        private void decode(long leaf) {
            if (leaf == decodedLeaf) {
                return;
            }
            long n = (leaf == leaves - 1 ? events : seqFirst.get(leaf + 1)) - seqFirst.get(leaf);
            long off = byteOff.get(leaf);
            byte[] p = pages[(int) (off >>> PAGE_SHIFT)];
            int i = (int) (off & (PAGE - 1));
            long t = tFirst.get(leaf);
            long u = 0;
            long x = 0;
            for (int k = 0; k < n; k++) {
                long v = 0;
                for (int s = 0; ; s += 7) {
                    int b = p[i++];
                    v |= (long) (b & 0x7f) << s;
                    if (b >= 0) {
                        break;
                    }
                }
                t += v;
                v = 0;
                for (int s = 0; ; s += 7) {
                    int b = p[i++];
                    v |= (long) (b & 0x7f) << s;
                    if (b >= 0) {
                        break;
                    }
                }
                u += (v >>> 1) ^ -(v & 1);
                v = 0;
                for (int s = 0; ; s += 7) {
                    int b = p[i++];
                    v |= (long) (b & 0x7f) << s;
                    if (b >= 0) {
                        break;
                    }
                }
                x += (v >>> 1) ^ -(v & 1);
                qt[k] = t;
                qu[k] = u;
                qx[k] = x;
            }
            decodedLeaf = leaf;
            decodedCount = (int) n;
        }

        /** First leaf whose last time is at or after {@code t}, or {@code leaves} if none. */
        private long firstLeafEndingAtOrAfter(long t, long lo) {
            long hi = leaves;
            while (lo < hi) {
                long mid = (lo + hi) >>> 1;
                if (tLast.get(mid) >= t) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo;
        }

        private void rangeMinMax(long lo, long hi) {
            int l = 0;
            while (lo < hi) {
                if ((lo & 1) != 0) {
                    take(l, lo++);
                }
                if ((hi & 1) != 0) {
                    take(l, --hi);
                }
                lo >>>= 1;
                hi >>>= 1;
                l++;
            }
        }

        private void take(int l, long i) {
            accUMin = Math.min(accUMin, node(l, i, 0));
            accUMax = Math.max(accUMax, node(l, i, 1));
            accXMin = Math.min(accXMin, node(l, i, 2));
            accXMax = Math.max(accXMax, node(l, i, 3));
        }

        /**
         * Fills buckets {@code [0, n)} of the arrays; bucket {@code i} covers
         * {@code [from + i·w, from + (i+1)·w)}.
         */
        void fill(long from, long to, long w, int n, long[] usedMin, long[] usedMax, long[] usedLast,
                  long[] auxMin, long[] auxMax, long[] auxLast, long[] count) {
            // the values in force at 'from'
            long curU = 0;
            long curX = 0;
            long leaf = firstLeafEndingAtOrAfter(from, 0);
            int inLeaf = 0;
            if (leaf > 0 && leaf == leaves) {
                curU = uLast.get(leaf - 1);
                curX = xLast.get(leaf - 1);
            } else if (leaf < leaves) {
                if (tFirst.get(leaf) >= from) {
                    if (leaf > 0) {
                        curU = uLast.get(leaf - 1);
                        curX = xLast.get(leaf - 1);
                    }
                } else {
                    decode(leaf);
                    while (inLeaf < decodedCount && qt[inLeaf] < from) {
                        curU = qu[inLeaf];
                        curX = qx[inLeaf];
                        inLeaf++;
                    }
                }
            }
            for (int b = 0; b < n; b++) {
                long s = satAdd(from, satMul(b, w));
                long e = satAdd(s, w);
                accUMin = accUMax = curU;
                accXMin = accXMax = curX;
                long cnt = 0;
                while (leaf < leaves) {
                    if (inLeaf == 0) {
                        if (tFirst.get(leaf) >= e) {
                            break;
                        }
                        if (tLast.get(leaf) < e) {
                            long j = firstLeafEndingAtOrAfter(e, leaf); // leaves [leaf, j) end before e
                            rangeMinMax(leaf, j);
                            cnt += (j == leaves ? events : seqFirst.get(j)) - seqFirst.get(leaf);
                            curU = uLast.get(j - 1);
                            curX = xLast.get(j - 1);
                            leaf = j;
                            continue;
                        }
                    }
                    decode(leaf);
                    while (inLeaf < decodedCount && qt[inLeaf] < e) {
                        curU = qu[inLeaf];
                        curX = qx[inLeaf];
                        accUMin = Math.min(accUMin, curU);
                        accUMax = Math.max(accUMax, curU);
                        accXMin = Math.min(accXMin, curX);
                        accXMax = Math.max(accXMax, curX);
                        inLeaf++;
                        cnt++;
                    }
                    if (inLeaf == decodedCount) {
                        leaf++;
                        inLeaf = 0;
                    } else {
                        break;
                    }
                }
                usedMin[b] = accUMin;
                usedMax[b] = accUMax;
                usedLast[b] = curU;
                auxMin[b] = accXMin;
                auxMax[b] = accXMax;
                auxLast[b] = curX;
                count[b] = cnt;
            }
        }
    }
}
