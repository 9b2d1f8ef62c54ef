package dev.arenascope.core.trace.store;

import static dev.arenascope.core.trace.store.GaugeIndex.satAdd;
import static dev.arenascope.core.trace.store.GaugeIndex.satMul;

import dev.arenascope.core.trace.GaugeSeries;

/**
 * One bucketed query over a {@link GaugeIndex}: the minimum, maximum and last value of both gauges
 * and the event count per bucket of a time range. Whole leaves are answered from the index's
 * pyramid, at most two partially covered leaves per bucket from their events (read through a
 * {@link LeafPages.Cursor}, or the open leaf's plain arrays). Remembers the leaf it last looked at.
 * Not thread-safe: one per query, under the store's read lock.
 */
final class GaugeQuery {
    private final GaugeIndex g;
    private final LeafPages.Cursor cursor;
    // the selected leaf: the open one (plain arrays) or a packed one (the cursor)
    private long sel = -1;
    private boolean selOpen;
    private int selN;
    // a bucket's partially covered leaves (at most two): leaf, first and end event index
    private final long[] partLeaf = new long[2];
    private final int[] partFrom = new int[2];
    private final int[] partTo = new int[2];
    // running min/max accumulators
    private long accUMin;
    private long accUMax;
    private long accXMin;
    private long accXMax;

    // an out-of-core index: where leaves' events are read, the selected leaf's chunk columns from eBase
    private final LeafSource source;
    private final int memory;
    private final boolean ext;
    private long[] et;
    private long[] eu;
    private long[] ex;
    private int eBase;
    /** A leaf spanning at most this counts whole in the bucket it starts in (out-of-core only; -1: never). */
    private long coarseSpan = -1;
    private boolean exact;

    GaugeQuery(GaugeIndex g) {
        this(g, null, -1);
    }

    /** A query over an out-of-core index whose leaves are read from {@code source} (null for an in-memory one). */
    GaugeQuery(GaugeIndex g, LeafSource source, int memory) {
        this.g = g;
        this.cursor = g.packed.new Cursor();
        this.source = source;
        this.memory = memory;
        this.ext = g.external != null;
        if (ext && source == null) {
            throw new IllegalArgumentException("an out-of-core gauge index needs a leaf source");
        }
    }

    /**
     * Out-of-core queries only: answers with every partly covered leaf read from its chunk, never
     * counting a short leaf whole in the bucket it starts in (see {@link #fill}). For tests, and for
     * views that want exact bucket edges at any cost.
     */
    GaugeQuery exact(boolean on) {
        exact = on;
        return this;
    }

    private void select(long leaf) {
        if (leaf == sel) {
            return;
        }
        sel = leaf;
        selN = (int) ((leaf == g.leaves - 1 ? g.events : g.seqFirst.get(leaf + 1)) - g.seqFirst.get(leaf));
        selOpen = leaf == g.leaves - 1; // the open leaf is not packed yet
        if (!selOpen) {
            if (ext) {
                long loc = g.external.get(leaf);
                ChunkGauges cg = source.gauges((int) (loc >>> 32));
                et = cg.time(memory);
                eu = cg.used(memory);
                ex = cg.aux(memory);
                eBase = (int) loc;
                if (eBase + selN > et.length) {
                    throw new IllegalStateException("chunk " + (loc >>> 32) + " holds " + et.length + " events of memory " + memory
                            + ", the index expects at least " + (eBase + selN));
                }
            } else {
                cursor.select(leaf, selN, g.tFirst.get(leaf), g.mm[0].get(4 * leaf), g.mm[0].get(4 * leaf + 2));
            }
        }
    }

    private long time(int k) {
        return selOpen ? g.ot[k] : ext ? et[eBase + k] : cursor.time(k);
    }

    private long used(int k) {
        return selOpen ? g.ou[k] : ext ? eu[eBase + k] : cursor.used(k);
    }

    private long aux(int k) {
        return selOpen ? g.ox[k] : ext ? ex[eBase + k] : cursor.aux(k);
    }

    /** Whether {@code leaf} is short enough to count whole in the bucket it starts in. */
    private boolean coarse(long leaf) {
        return coarseSpan >= 0 && g.tLast.get(leaf) - g.tFirst.get(leaf) <= coarseSpan;
    }

    /** Events in {@code leaf}. */
    private long leafEvents(long leaf) {
        return (leaf == g.leaves - 1 ? g.events : g.seqFirst.get(leaf + 1)) - g.seqFirst.get(leaf);
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
        return firstLeafEndingAtOrAfter(t, lo, g.leaves);
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
            if (probe >= g.leaves) {
                return firstLeafEndingAtOrAfter(t, base, g.leaves);
            }
            if (g.tLast.get(probe) >= t) {
                return firstLeafEndingAtOrAfter(t, base, probe + 1);
            }
            base = probe + 1;
            step = Math.max(step, 2) * 2; // past the hint: widen quickly
        }
    }

    private long firstLeafEndingAtOrAfter(long t, long lo, long hi) {
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (g.tLast.get(mid) >= t) {
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
        LongColumn c = g.mm[l];
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
        LongColumn c = g.mm[0];
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
     * The {@link dev.arenascope.core.trace.TraceStore#gauges} answer of both stores: {@code [fromNs, toNs)}
     * folded into {@code buckets} equal buckets, filled by {@code query}, or all zeros when it is
     * {@code null} (a memory with no events).
     *
     * @throws IllegalArgumentException when {@code buckets} is not positive or the range is empty
     */
    static GaugeSeries series(GaugeQuery query, long fromNs, long toNs, int buckets) {
        if (buckets <= 0) {
            throw new IllegalArgumentException("buckets must be positive, got " + buckets);
        }
        if (toNs <= fromNs) {
            throw new IllegalArgumentException("empty time range [" + fromNs + ", " + toNs + ")");
        }
        long span = toNs - fromNs;
        long w = span < 0 ? Long.MAX_VALUE / buckets : Math.max(1, (span + buckets - 1) / buckets);
        long[] uMin = new long[buckets];
        long[] uMax = new long[buckets];
        long[] uLast = new long[buckets];
        long[] xMin = new long[buckets];
        long[] xMax = new long[buckets];
        long[] xLast = new long[buckets];
        long[] cnt = new long[buckets];
        if (query != null) {
            query.fill(fromNs, toNs, w, buckets, uMin, uMax, uLast, xMin, xMax, xLast, cnt);
        }
        return new GaugeSeries(fromNs, w, uMin, uMax, uLast, xMin, xMax, xLast, cnt);
    }

    /**
     * Fills buckets {@code [0, n)} of the arrays; bucket {@code i} covers
     * {@code [from + i·w, from + (i+1)·w)}.
     *
     * <p>Out-of-core indexes (unless {@link #exact}): a leaf that spans at most a quarter of a bucket
     * and crosses a bucket's edge counts whole in the bucket it starts in, from its summary, instead of
     * being read from its chunk to split it. Its values are exact; their times move by less than a
     * quarter of a bucket (a quarter of a pixel column when a bucket is one). So a zoomed-out frame
     * reads no chunk at all.
     */
    void fill(long from, long to, long w, int n, long[] usedMin, long[] usedMax, long[] usedLast,
              long[] auxMin, long[] auxMax, long[] auxLast, long[] count) {
        coarseSpan = ext && !exact ? w >> 2 : -1;
        // the values in force at 'from'; (leaf, k) is the first event at or after 'from'
        long curU = 0;
        long curX = 0;
        long leaf = firstLeafEndingAtOrAfter(from, 0);
        int k = 0;
        if (leaf > 0 && leaf == g.leaves) {
            curU = g.uLast.get(leaf - 1);
            curX = g.xLast.get(leaf - 1);
        } else if (leaf < g.leaves) {
            if (g.tFirst.get(leaf) >= from) {
                if (leaf > 0) {
                    curU = g.uLast.get(leaf - 1);
                    curX = g.xLast.get(leaf - 1);
                }
            } else if (coarse(leaf)) {
                if (leaf > 0) { // the leaf counts whole in the first bucket, from the value before it
                    curU = g.uLast.get(leaf - 1);
                    curX = g.xLast.get(leaf - 1);
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
            while (leaf < g.leaves) {
                if (k == 0) {
                    if (g.tFirst.get(leaf) >= e) {
                        break;
                    }
                    if (g.tLast.get(leaf) < e) {
                        long j = gallop(e, leaf + 1, hint); // leaves [leaf, j) end before e
                        hint = j - leaf;
                        rangeMinMax(leaf, j);
                        cnt += (j == g.leaves ? g.events : g.seqFirst.get(j)) - g.seqFirst.get(leaf);
                        curU = g.uLast.get(j - 1);
                        curX = g.xLast.get(j - 1);
                        leaf = j;
                        continue;
                    }
                    if (coarse(leaf)) { // a short leaf across the edge: whole, from its summary
                        rangeMinMax(leaf, leaf + 1);
                        cnt += leafEvents(leaf);
                        curU = g.uLast.get(leaf);
                        curX = g.xLast.get(leaf);
                        leaf++;
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
