package dev.arenascope.core.trace.store;

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
 * <p>This class builds the index; {@link LeafPages} packs and reads the leaves, {@link GaugeQuery}
 * answers bucketed queries.
 *
 * <p>Times must arrive non-decreasing (the store passes effective times). Not thread-safe: the store
 * calls it under its lock, and {@link #flush()} after each batch so readers see the open leaf.
 */
final class GaugeIndex {
    static final int LEAF_EVENTS = 64;

    // per leaf
    final LongColumn tFirst = new LongColumn();
    final LongColumn tLast = new LongColumn();
    final LongColumn uLast = new LongColumn();
    final LongColumn xLast = new LongColumn();
    final LongColumn seqFirst = new LongColumn();
    /**
     * {@code mm[l]} holds level {@code l} of the pyramid (level 0 is the leaves): node {@code i}'s used
     * minimum, used maximum, aux minimum and aux maximum at {@code 4i .. 4i+3}, side by side so a query
     * touching a node reads one cache line rather than four columns.
     */
    LongColumn[] mm = {new LongColumn()};
    private int levelCount = 1;

    // the full leaves' events, bit-packed
    final LeafPages packed = new LeafPages();

    // the open (last) leaf
    long leaves;
    private int openCount;
    // sized to what the leaf holds, up to LEAF_EVENTS: a memory of a few events costs a few longs here
    long[] ot = new long[4];
    long[] ou = new long[4];
    long[] ox = new long[4];
    private long oLast;
    private long oUMin;
    private long oUMax;
    private long oXMin;
    private long oXMax;
    private long oU;
    private long oX;
    private boolean dirty;

    long events;
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
        room(openCount + 1);
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
        room((int) Math.min(LEAF_EVENTS, (long) openCount + (hi - lo))); // what this run can write into a leaf
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

    /** Makes the open leaf's arrays hold at least {@code n} events (at most {@link #LEAF_EVENTS}). */
    private void room(int n) {
        if (ot.length < n) {
            int cap = Math.min(LEAF_EVENTS, Math.max(n, ot.length * 2));
            ot = java.util.Arrays.copyOf(ot, cap);
            ou = java.util.Arrays.copyOf(ou, cap);
            ox = java.util.Arrays.copyOf(ox, cap);
        }
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

    /** Packs the open (full) leaf into the pages, against its first time and its gauges' minima. */
    private void pack() {
        packed.pack(ot, ou, ox, openCount, ot[0], oUMin, oXMin);
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
        long n = tFirst.bytes() * 5 + 48 + 3 * (16 + 8L * LEAF_EVENTS) + packed.bytes();
        for (int l = 0; l < levelCount; l++) {
            n += mm[l].bytes();
        }
        return n;
    }
}
