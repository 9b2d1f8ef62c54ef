package dev.arenascope.core.trace.store;

import java.io.DataOutput;
import java.io.IOException;
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
    LongColumn tFirst = new LongColumn(); // not final: an index read back replaces it
    LongColumn tLast = new LongColumn(); // not final: an index read back replaces it
    LongColumn uLast = new LongColumn(); // not final: an index read back replaces it
    LongColumn xLast = new LongColumn(); // not final: an index read back replaces it
    LongColumn seqFirst = new LongColumn(); // not final: an index read back replaces it
    /**
     * {@code mm[l]} holds level {@code l} of the pyramid (level 0 is the leaves): node {@code i}'s used
     * minimum, used maximum, aux minimum and aux maximum at {@code 4i .. 4i+3}, side by side so a query
     * touching a node reads one cache line rather than four columns.
     */
    LongColumn[] mm = {new LongColumn()};
    private int levelCount = 1;

    // the full leaves' events, bit-packed
    final LeafPages packed = new LeafPages();

    /**
     * For an out-of-core index, where each leaf's events are in the trace: chunk number {@code << 32 |}
     * the position of the leaf's first event among this memory's events of that chunk; null when the
     * leaves are packed in {@link #packed}.
     */
    LongColumn external;
    /** The most events a leaf holds. */
    final int leafCap;
    /** An out-of-core leaf closes when its time span would pass this (ns). */
    private long maxLeafSpan;
    private int chunk = -1;
    private int chunkPos;
    private boolean breakLeaf;

    // the open (last) leaf
    long leaves;
    private int openCount;
    // not final: sized to what the leaf holds (a memory of a few events costs a few longs here), up to
    // the leaf's capacity; an index read back sizes them to its open leaf
    long[] ot;
    long[] ou;
    long[] ox;
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

    /** An in-memory index: leaves of {@link #LEAF_EVENTS}, packed. */
    GaugeIndex() {
        this(LEAF_EVENTS, false, Long.MAX_VALUE);
    }

    /**
     * @param leafCap     the most events a leaf holds
     * @param outOfCore   whether the leaves' events stay in the trace's chunks (see {@link #chunk(int)})
     *                    rather than packed here
     * @param maxLeafSpan for an out-of-core index, the longest time a leaf may span (ns)
     */
    GaugeIndex(int leafCap, boolean outOfCore, long maxLeafSpan) {
        this(leafCap, outOfCore, maxLeafSpan, leafCap);
    }

    /** As above with open-leaf arrays of {@code openArrays} (an index read back, which takes no more events). */
    private GaugeIndex(int leafCap, boolean outOfCore, long maxLeafSpan, int openArrays) {
        this.leafCap = leafCap;
        this.external = outOfCore ? new LongColumn() : null;
        this.maxLeafSpan = maxLeafSpan;
        ot = new long[Math.min(openArrays, 4)];
        ou = new long[Math.min(openArrays, 4)];
        ox = new long[Math.min(openArrays, 4)];
    }

    /**
     * Out-of-core indexes: the events that follow are chunk {@code n}'s, so the next one starts a leaf
     * (a leaf's events are then always in one chunk).
     */
    void chunk(int n) {
        chunk = n;
        chunkPos = 0;
        breakLeaf = true;
    }

    /** Out-of-core indexes: leaves started from now on may span up to {@code ns} (a spilling store's session grew). */
    void leafSpan(long ns) {
        maxLeafSpan = ns;
    }

    long leafSpan() {
        return maxLeafSpan;
    }

    /** Whether the next event at time {@code t} starts a new leaf. */
    private boolean newLeaf(long t) {
        return leaves == 0 || openCount == leafCap || breakLeaf || (external != null && t - ot[0] > maxLeafSpan);
    }

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
        if (newLeaf(t)) {
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
        chunkPos++;
        dirty = true;
    }

    /**
     * Adds events {@code from + order[k]} of {@code b}, {@code k} in {@code [lo, hi)}, at effective
     * times {@code eff[order[k]]} (non-decreasing): the bulk form of {@link #add}, with the open
     * leaf's state in locals.
     */
    void addRun(EventBatch b, int from, long[] eff, int[] order, int lo, int hi) {
        room((int) Math.min(leafCap, (long) openCount + (hi - lo))); // what this run can write into a leaf (an out-of-core leaf holds more than LEAF_EVENTS)
        long[] t = ot;
        long[] u = ou;
        long[] x = ox;
        long pu = peakUsed;
        long px = peakAux;
        int k = lo;
        while (k < hi) {
            if (newLeaf(eff[order[k]])) {
                if (leaves > 0) {
                    flush();
                    pack();
                }
                int i = order[k];
                startLeaf(eff[i], b.used(from + i), b.aux(from + i));
            }
            int oc = openCount;
            int take = Math.min(hi - k, leafCap - oc);
            if (external != null && maxLeafSpan != Long.MAX_VALUE) {
                // the leaf ends where its span would pass the bound (newLeaf let event k in)
                long limit = (oc == 0 ? eff[order[k]] : t[0]) + maxLeafSpan;
                int fit = 1;
                while (fit < take && eff[order[k + fit]] <= limit) {
                    fit++;
                }
                if (fit < take) {
                    breakLeaf = true;
                }
                take = fit;
            }
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
            chunkPos += take;
            dirty = true;
        }
        peakUsed = pu;
        peakAux = px;
    }

    /** Makes the open leaf's arrays hold at least {@code n} events (at most {@link #leafCap}). */
    private void room(int n) {
        if (ot.length < n) {
            int cap = Math.max(n, Math.min(leafCap, Math.max(4, ot.length * 2)));
            ot = java.util.Arrays.copyOf(ot, cap);
            ou = java.util.Arrays.copyOf(ou, cap);
            ox = java.util.Arrays.copyOf(ox, cap);
        }
    }

    private void startLeaf(long t, long used, long aux) {
        breakLeaf = false;
        if (external != null) {
            external.add((long) chunk << 32 | chunkPos);
        }
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
        if (external != null) {
            return; // the events stay in the trace's chunk
        }
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

    /** Writes an out-of-core index (flushed) for {@link #read}. */
    void write(DataOutput out) throws IOException {
        if (external == null) {
            throw new IllegalStateException("only out-of-core gauge indexes are saved");
        }
        flush();
        out.writeInt(leafCap);
        out.writeLong(maxLeafSpan);
        out.writeInt(chunk);
        out.writeInt(chunkPos);
        out.writeBoolean(breakLeaf);
        out.writeLong(leaves);
        out.writeLong(events);
        out.writeLong(peakUsed);
        out.writeLong(peakAux);
        tFirst.write(out);
        tLast.write(out);
        uLast.write(out);
        xLast.write(out);
        seqFirst.write(out);
        external.write(out);
        out.writeInt(levelCount);
        for (int l = 0; l < levelCount; l++) {
            mm[l].write(out);
        }
        out.writeInt(openCount);
        for (int k = 0; k < openCount; k++) {
            out.writeLong(ot[k]);
            out.writeLong(ou[k]);
            out.writeLong(ox[k]);
        }
        for (long v : new long[] {oLast, oUMin, oUMax, oXMin, oXMax, oU, oX}) {
            out.writeLong(v);
        }
    }

    /**
     * An out-of-core index written by {@link #write}.
     *
     * @throws IndexInput.DamagedIndexException when the bytes do not make a consistent index
     */
    static GaugeIndex read(IndexInput in) {
        int cap = in.i32();
        if (cap != OutOfCoreStore.LEAF_EVENTS) {
            throw new IndexInput.DamagedIndexException("gauge leaf size " + cap);
        }
        GaugeIndex g = new GaugeIndex(cap, true, in.i64(), 0); // open-leaf arrays sized below, to what the bytes hold
        g.chunk = in.i32();
        g.chunkPos = in.i32();
        g.breakLeaf = in.bool();
        g.leaves = in.i64();
        g.events = in.i64();
        g.peakUsed = in.i64();
        g.peakAux = in.i64();
        g.tFirst = LongColumn.read(in);
        g.tLast = LongColumn.read(in);
        g.uLast = LongColumn.read(in);
        g.xLast = LongColumn.read(in);
        g.seqFirst = LongColumn.read(in);
        g.external = LongColumn.read(in);
        int levels = in.i32();
        if (levels < 1 || levels > 64) {
            throw new IndexInput.DamagedIndexException("gauge pyramid of " + levels + " levels");
        }
        g.mm = new LongColumn[Math.max(levels, 1)];
        for (int l = 0; l < levels; l++) {
            g.mm[l] = LongColumn.read(in);
        }
        g.levelCount = levels;
        g.openCount = in.i32();
        long leaves = g.leaves;
        if (g.openCount < 0 || g.openCount > cap || g.tFirst.size() != leaves || g.tLast.size() != leaves || g.uLast.size() != leaves
                || g.xLast.size() != leaves || g.seqFirst.size() != leaves || g.external.size() != leaves || g.mm[0].size() != 4 * leaves
                || (leaves > 0) != (g.openCount > 0) || g.events < leaves) {
            throw new IndexInput.DamagedIndexException("gauge index columns disagree");
        }
        g.ot = new long[g.openCount];
        g.ou = new long[g.openCount];
        g.ox = new long[g.openCount];
        for (int k = 0; k < g.openCount; k++) {
            g.ot[k] = in.i64();
            g.ou[k] = in.i64();
            g.ox[k] = in.i64();
        }
        g.oLast = in.i64();
        g.oUMin = in.i64();
        g.oUMax = in.i64();
        g.oXMin = in.i64();
        g.oXMax = in.i64();
        g.oU = in.i64();
        g.oX = in.i64();
        for (int l = 1; l < levels; l++) {
            if (g.mm[l].size() != 4 * ((g.mm[l - 1].size() / 4 + 1) >>> 1)) {
                throw new IndexInput.DamagedIndexException("gauge pyramid level " + l + " has the wrong size");
            }
        }
        return g;
    }

    /** The trace chunks the leaves name, checked against the store's {@code chunks}. */
    void checkChunks(int chunks) {
        for (long i = 0; i < leaves; i++) {
            long loc = external.get(i);
            if ((loc >>> 32) >= chunks || (int) loc < 0) {
                throw new IndexInput.DamagedIndexException("gauge leaf " + i + " names chunk " + (loc >>> 32) + " of " + chunks);
            }
        }
    }

    long bytes() {
        long n = tFirst.bytes() * 5 + 48 + 3 * (16 + 8L * leafCap) + packed.bytes() + (external == null ? 0 : external.bytes());
        for (int l = 0; l < levelCount; l++) {
            n += mm[l].bytes();
        }
        return n;
    }
}
