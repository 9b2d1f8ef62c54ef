package dev.arenascope.core.trace.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

import dev.arenascope.core.trace.EventBatch;

/**
 * One memory's level-of-detail index over its two gauges ({@code used}, {@code aux}).
 *
 * <p>The memory's events are grouped into <em>leaves</em> of up to {@link #LEAF_EVENTS} consecutive
 * events; each leaf keeps its time span, the minimum, maximum and last value of both gauges, the
 * sequence number of its first event and its events' (time, used, aux) deltas, each of the three
 * columns bit-packed at the width its largest delta needs (a few bytes an event; the open leaf stays
 * as plain arrays until it is full). Above the leaves sits a pyramid of power-of-two levels: node {@code i} of
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
    /** A packed leaf's most bytes: widths, three columns of 8 bytes a value, 8 bytes of read slack. */
    private static final int LEAF_MAX_BYTES = 3 + 3 * 8 * LEAF_EVENTS + 8;
    private static final VarHandle LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    // per leaf
    private final LongColumn tFirst = new LongColumn();
    private final LongColumn tLast = new LongColumn();
    private final LongColumn uLast = new LongColumn();
    private final LongColumn xLast = new LongColumn();
    private final LongColumn seqFirst = new LongColumn();
    private final LongColumn byteOff = new LongColumn();
    /**
     * {@code mm[l]} holds level {@code l} of the pyramid (level 0 is the leaves): node {@code i}'s used
     * minimum, used maximum, aux minimum and aux maximum at {@code 4i .. 4i+3}, side by side so a query
     * touching a node reads one cache line rather than four columns.
     */
    private LongColumn[] mm = {new LongColumn()};
    private int levelCount = 1;

    // the triples
    private byte[][] pages = new byte[4][];
    private long bytePos;

    // the open (last) leaf
    private long leaves;
    private int openCount;
    private final long[] ot = new long[LEAF_EVENTS];
    private final long[] ou = new long[LEAF_EVENTS];
    private final long[] ox = new long[LEAF_EVENTS];
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
                pack();
            }
            startLeaf(t, used, aux);
        }
        ot[openCount] = t;
        ou[openCount] = used;
        ox[openCount] = aux;
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

    /**
     * Adds events {@code from + order[k]} of {@code b}, {@code k} in {@code [lo, hi)}, at effective
     * times {@code eff[order[k]]} (non-decreasing): the bulk form of {@link #add}, with the open
     * leaf's state in locals.
     */
    void addRun(EventBatch b, int from, long[] eff, int[] order, int lo, int hi) {
        long[] t = ot;
        long[] u = ou;
        long[] x = ox;
        long pu = peakUsed;
        long px = peakAux;
        int k = lo;
        while (k < hi) {
            if (leaves == 0 || openCount == LEAF_EVENTS) {
                if (leaves > 0) {
                    flush();
                    pack();
                }
                int i = order[k];
                startLeaf(eff[i], b.used(from + i), b.aux(from + i));
            }
            int oc = openCount;
            int take = Math.min(hi - k, LEAF_EVENTS - oc);
            long uMin = oUMin;
            long uMax = oUMax;
            long xMin = oXMin;
            long xMax = oXMax;
            for (int j = 0; j < take; j++) {
                int i = order[k + j];
                long tv = eff[i];
                long uv = b.used(from + i);
                long xv = b.aux(from + i);
                t[oc + j] = tv;
                u[oc + j] = uv;
                x[oc + j] = xv;
                uMin = Math.min(uMin, uv);
                uMax = Math.max(uMax, uv);
                xMin = Math.min(xMin, xv);
                xMax = Math.max(xMax, xv);
            }
            oc += take;
            k += take;
            openCount = oc;
            oUMin = uMin;
            oUMax = uMax;
            oXMin = xMin;
            oXMax = xMax;
            oLast = t[oc - 1];
            oU = u[oc - 1];
            oX = x[oc - 1];
            pu = Math.max(pu, uMax);
            px = Math.max(px, xMax);
            events += take;
            dirty = true;
        }
        peakUsed = pu;
        peakAux = px;
    }

    private void startLeaf(long t, long used, long aux) {
        leaves++;
        tFirst.add(t);
        tLast.add(t);
        mm[0].add(used);
        mm[0].add(used);
        mm[0].add(aux);
        mm[0].add(aux);
        uLast.add(used);
        xLast.add(aux);
        seqFirst.add(events);
        openCount = 0;
        oLast = t;
        oUMin = oUMax = used;
        oXMin = oXMax = aux;
        oU = used;
        oX = aux;
    }

    /**
     * Packs the open (full) leaf into the pages: three width bytes, then each event's time less the
     * leaf's first time, used less the leaf's used minimum and aux less the leaf's aux minimum (all
     * unsigned), each column bit-packed at its own width (0..56 bits, or 64). Any event of a leaf is
     * then one shift and mask away: a query binary-searches a leaf's times and reads single values
     * instead of decoding the leaf from its start.
     */
    private void pack() {
        int n = openCount;
        long t0 = ot[0];
        long orT = 0;
        long orU = 0;
        long orX = 0;
        for (int k = 0; k < n; k++) {
            orT |= ot[k] - t0;
            orU |= ou[k] - oUMin;
            orX |= ox[k] - oXMin;
        }
        int wt = width(orT);
        int wu = width(orU);
        int wx = width(orX);
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
        byte[] p = pages[page];
        byteOff.add(bytePos);
        p[within] = (byte) wt;
        p[within + 1] = (byte) wu;
        p[within + 2] = (byte) wx;
        int at = within + 3;
        at = putBits(p, at, wt, ot, t0, n);
        at = putBits(p, at, wu, ou, oUMin, n);
        at = putBits(p, at, wx, ox, oXMin, n);
        bytePos = ((long) page << PAGE_SHIFT) + at;
    }

    /** Bits to hold every value OR-ed into {@code or}: 0..56, or 64 (so one 8-byte read holds any value). */
    private static int width(long or) {
        int w = 64 - Long.numberOfLeadingZeros(or);
        return w > 56 ? 64 : w;
    }

    /**
     * Packs {@code v[k] - base} for {@code k < n}, {@code w} bits each, from byte {@code at}, least
     * significant bits first. Bits gather in a register and go out eight bytes at a time; the last word
     * may write up to seven zero bytes past the column's end, which the next column then overwrites
     * (and {@link #LEAF_MAX_BYTES} leaves room for after the last).
     *
     * @return the byte just past the column ({@code at + ceil(n·w / 8)})
     */
    private static int putBits(byte[] p, int at, int w, long[] v, long base, int n) {
        if (w == 0) {
            return at;
        }
        long acc = 0;
        int bits = 0;
        int out = at;
        for (int k = 0; k < n; k++) {
            long x = v[k] - base;
            acc |= x << bits;
            bits += w;
            if (bits >= 64) {
                LE.set(p, out, acc);
                out += 8;
                bits -= 64;
                acc = bits == 0 ? 0 : x >>> (w - bits);
            }
        }
        if (bits > 0) {
            LE.set(p, out, acc);
        }
        return at + (int) (((long) n * w + 7) >>> 3);
    }

    /** Publishes the open leaf's values to the columns and the pyramid. */
    void flush() {
        if (!dirty) {
            return;
        }
        dirty = false;
        long k = leaves - 1;
        tLast.set(k, oLast);
        uLast.set(k, oU);
        xLast.set(k, oX);
        LongColumn leaf = mm[0];
        leaf.set(4 * k, oUMin);
        leaf.set(4 * k + 1, oUMax);
        leaf.set(4 * k + 2, oXMin);
        leaf.set(4 * k + 3, oXMax);
        // walk up: level l exists once level l-1 has two nodes; values only widen, so combining is enough
        for (int l = 1; ; l++) {
            long below = mm[l - 1].size() >>> 2;
            if (below < 2) {
                break;
            }
            long idx = k >>> l;
            if (levelCount <= l) {
                if (l == mm.length) {
                    mm = Arrays.copyOf(mm, mm.length * 2);
                }
                LongColumn lv = mm[l] = new LongColumn();
                levelCount = l + 1;
                lv.add(Math.min(node(l - 1, 0, 0), node(l - 1, 1, 0)));
                lv.add(Math.max(node(l - 1, 0, 1), node(l - 1, 1, 1)));
                lv.add(Math.min(node(l - 1, 0, 2), node(l - 1, 1, 2)));
                lv.add(Math.max(node(l - 1, 0, 3), node(l - 1, 1, 3)));
                continue;
            }
            LongColumn lv = mm[l];
            long at = 4 * idx;
            if (at == lv.size()) {
                lv.add(oUMin);
                lv.add(oUMax);
                lv.add(oXMin);
                lv.add(oXMax);
            } else {
                long a0 = lv.get(at);
                long a1 = lv.get(at + 1);
                long a2 = lv.get(at + 2);
                long a3 = lv.get(at + 3);
                if (a0 <= oUMin && a1 >= oUMax && a2 <= oXMin && a3 >= oXMax) {
                    break; // this node already covers the leaf, so every node above it does too
                }
                lv.set(at, Math.min(a0, oUMin));
                lv.set(at + 1, Math.max(a1, oUMax));
                lv.set(at + 2, Math.min(a2, oXMin));
                lv.set(at + 3, Math.max(a3, oXMax));
            }
        }
    }

    /** Value {@code which} (0 uMin, 1 uMax, 2 xMin, 3 xMax) of node {@code i} at level {@code l}. */
    private long node(int l, long i, int which) {
        return mm[l].get(4 * i + which);
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
        long n = tFirst.bytes() * 6 + 64 + 3 * (16 + 8L * LEAF_EVENTS) + pages.length * 8L;
        for (byte[] p : pages) {
            if (p != null) {
                n += 16 + p.length;
            }
        }
        for (int l = 0; l < levelCount; l++) {
            n += mm[l].bytes();
        }
        return n;
    }

    // ---------------------------------------------------------------- queries

    /** Answers one query; remembers the leaf it last looked at. Not thread-safe (one per query). */
    final class Query {
        // the selected leaf: open (plain arrays) or packed columns at sp[colT|colU|colX]
        private long sel = -1;
        private boolean selOpen;
        private int selN;
        private byte[] sp;
        private int colT;
        private int colU;
        private int colX;
        private int wT;
        private int wU;
        private int wX;
        private long mT;
        private long mU;
        private long mX;
        private long baseT;
        private long baseU;
        private long baseX;
        // a bucket's partially covered leaves (at most two): leaf, first and end event index
        private final long[] partLeaf = new long[2];
        private final int[] partFrom = new int[2];
        private final int[] partTo = new int[2];
        // running min/max accumulators
        long accUMin;
        long accUMax;
        long accXMin;
        long accXMax;

        private void select(long leaf) {
            if (leaf == sel) {
                return;
            }
            sel = leaf;
            selN = (int) ((leaf == leaves - 1 ? events : seqFirst.get(leaf + 1)) - seqFirst.get(leaf));
            selOpen = leaf == leaves - 1; // the open leaf is not packed yet
            if (selOpen) {
                return;
            }
            long off = byteOff.get(leaf);
            sp = pages[(int) (off >>> PAGE_SHIFT)];
            int at = (int) (off & (PAGE - 1));
            wT = sp[at];
            wU = sp[at + 1];
            wX = sp[at + 2];
            colT = at + 3;
            colU = colT + (int) (((long) selN * wT + 7) >>> 3);
            colX = colU + (int) (((long) selN * wU + 7) >>> 3);
            mT = mask(wT);
            mU = mask(wU);
            mX = mask(wX);
            baseT = tFirst.get(leaf);
            baseU = mm[0].get(4 * leaf);
            baseX = mm[0].get(4 * leaf + 2);
        }

        private static long mask(int w) {
            return w == 64 ? -1L : (1L << w) - 1;
        }

        private static long field(byte[] p, int col, int w, long mask, int k) {
            long bit = (long) k * w;
            return ((long) LE.get(p, col + (int) (bit >>> 3)) >>> (bit & 7)) & mask;
        }

        private long time(int k) {
            return selOpen ? ot[k] : baseT + field(sp, colT, wT, mT, k);
        }

        private long used(int k) {
            return selOpen ? ou[k] : baseU + field(sp, colU, wU, mU, k);
        }

        private long aux(int k) {
            return selOpen ? ox[k] : baseX + field(sp, colX, wX, mX, k);
        }

        /** First event index in {@code [lo, n)} of the selected leaf at or after time {@code t}, or n. */
        private int splitAt(long t, int lo) {
            int hi = selN;
            // a zoomed-in bucket holds a few events: look at those before halving the rest
            for (int near = Math.min(hi, lo + 4); lo < near; lo++) {
                if (time(lo) >= t) {
                    return lo;
                }
            }
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (time(mid) >= t) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo;
        }

        /** First leaf whose last time is at or after {@code t}, or {@code leaves} if none. */
        private long firstLeafEndingAtOrAfter(long t, long lo) {
            return firstLeafEndingAtOrAfter(t, lo, leaves);
        }

        /**
         * As {@link #firstLeafEndingAtOrAfter(long, long)}, searching first near {@code lo + hint} (the
         * previous bucket's advance): consecutive buckets advance by about the same number of leaves, so
         * a gallop from there touches a few nearby leaves instead of halving the whole remaining index.
         */
        private long gallop(long t, long lo, long hint) {
            long step = Math.max(1, hint);
            long base = lo;
            while (true) {
                long probe = base + step - 1;
                if (probe >= leaves) {
                    return firstLeafEndingAtOrAfter(t, base, leaves);
                }
                if (tLast.get(probe) >= t) {
                    return firstLeafEndingAtOrAfter(t, base, probe + 1);
                }
                base = probe + 1;
                step = Math.max(step, 2) * 2; // past the hint: widen quickly
            }
        }

        private long firstLeafEndingAtOrAfter(long t, long lo, long hi) {
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
            LongColumn c = mm[l];
            long at = 4 * i;
            accUMin = Math.min(accUMin, c.get(at));
            accUMax = Math.max(accUMax, c.get(at + 1));
            accXMin = Math.min(accXMin, c.get(at + 2));
            accXMax = Math.max(accXMax, c.get(at + 3));
        }

        /**
         * Folds a partially covered leaf's events {@code [from, to)} into the accumulators. A gauge is
         * read event by event only when the whole leaf's range reaches past what the bucket already
         * holds; otherwise no event of the part can change the bucket's minimum or maximum.
         */
        private void part(long leaf, int from, int to) {
            LongColumn c = mm[0];
            long at = 4 * leaf;
            if (c.get(at) < accUMin || c.get(at + 1) > accUMax) {
                select(leaf);
                for (int k = from; k < to; k++) {
                    long v = used(k);
                    accUMin = Math.min(accUMin, v);
                    accUMax = Math.max(accUMax, v);
                }
            }
            if (c.get(at + 2) < accXMin || c.get(at + 3) > accXMax) {
                select(leaf);
                for (int k = from; k < to; k++) {
                    long v = aux(k);
                    accXMin = Math.min(accXMin, v);
                    accXMax = Math.max(accXMax, v);
                }
            }
        }

        /**
         * Fills buckets {@code [0, n)} of the arrays; bucket {@code i} covers
         * {@code [from + i·w, from + (i+1)·w)}.
         */
        void fill(long from, long to, long w, int n, long[] usedMin, long[] usedMax, long[] usedLast,
                  long[] auxMin, long[] auxMax, long[] auxLast, long[] count) {
            // the values in force at 'from'; (leaf, k) is the first event at or after 'from'
            long curU = 0;
            long curX = 0;
            long leaf = firstLeafEndingAtOrAfter(from, 0);
            int k = 0;
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
                    select(leaf);
                    k = splitAt(from, 0); // at least 1 (the first event is before 'from'), below n
                    curU = used(k - 1);
                    curX = aux(k - 1);
                }
            }
            long hint = 1;
            for (int b = 0; b < n; b++) {
                long s = satAdd(from, satMul(b, w));
                long e = satAdd(s, w);
                accUMin = accUMax = curU;
                accXMin = accXMax = curX;
                long cnt = 0;
                int parts = 0;
                while (leaf < leaves) {
                    if (k == 0) {
                        if (tFirst.get(leaf) >= e) {
                            break;
                        }
                        if (tLast.get(leaf) < e) {
                            long j = gallop(e, leaf + 1, hint); // leaves [leaf, j) end before e
                            hint = j - leaf;
                            rangeMinMax(leaf, j);
                            cnt += (j == leaves ? events : seqFirst.get(j)) - seqFirst.get(leaf);
                            curU = uLast.get(j - 1);
                            curX = xLast.get(j - 1);
                            leaf = j;
                            continue;
                        }
                    }
                    select(leaf);
                    int split = splitAt(e, k);
                    if (split > k) {
                        partLeaf[parts] = leaf;
                        partFrom[parts] = k;
                        partTo[parts] = split;
                        parts++;
                        cnt += split - k;
                        curU = used(split - 1);
                        curX = aux(split - 1);
                        accUMin = Math.min(accUMin, curU);
                        accUMax = Math.max(accUMax, curU);
                        accXMin = Math.min(accXMin, curX);
                        accXMax = Math.max(accXMax, curX);
                    }
                    if (split == selN) {
                        leaf++;
                        k = 0;
                    } else {
                        k = split;
                        break;
                    }
                }
                for (int i = 0; i < parts; i++) {
                    part(partLeaf[i], partFrom[i], partTo[i]);
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
