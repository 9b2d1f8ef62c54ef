package dev.arenascope.core.trace.store;

import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;

/**
 * The store's level-of-detail indexes, one {@link GaugeIndex} and one {@link ScopeIndex} per memory
 * (by memory id, created on the memory's first event), and the append step that feeds them: events
 * get their effective time (the latest time seen so far, so every index is monotone), scope entries and
 * exits go to the scope index in arrival order, and each memory's gauge index takes its events of a
 * batch as one run after a counting sort by memory. Scratch arrays are kept between batches, so
 * appending allocates only when a batch is larger than any before. Not thread-safe: the store's one
 * writer appends under its write lock, queries read under its read lock.
 */
final class MemoryIndexes {
    private final int leafCap;
    private final boolean outOfCore;
    private long maxLeafSpan;
    private int chunk = -1;
    private GaugeIndex[] gauges = new GaugeIndex[8];
    private ScopeIndex[] scopes = new ScopeIndex[8];
    // by memory slot, grown to the highest slot seen (a test's store has a few memories; 65,536 of each
    // were 320 KiB zeroed for every new store)
    private boolean[] touched = new boolean[8];
    private int[] touchedList = new int[8];
    private int touchedCount;

    // scratch for add: effective times, and the events grouped by memory (a counting sort)
    private long[] effScratch = new long[0];
    private int[] orderScratch = new int[0];
    private int[] groupCount = new int[8];

    /** In-memory indexes: gauge leaves of {@link GaugeIndex#LEAF_EVENTS}, packed. */
    MemoryIndexes() {
        this(GaugeIndex.LEAF_EVENTS, false, Long.MAX_VALUE);
    }

    /**
     * @param leafCap     the most events a gauge leaf holds
     * @param outOfCore   whether gauge leaves' events stay in the trace's chunks ({@link #chunk(int)})
     * @param maxLeafSpan for out-of-core indexes, the longest time a leaf may span (ns)
     */
    MemoryIndexes(int leafCap, boolean outOfCore, long maxLeafSpan) {
        this.leafCap = leafCap;
        this.outOfCore = outOfCore;
        this.maxLeafSpan = maxLeafSpan;
    }

    /**
     * Out-of-core indexes: leaves started from now on may span up to {@code ns} (a spilling store
     * lengthens it as its session grows, so a frame of the whole session still counts leaves whole).
     */
    void leafSpan(long ns) {
        maxLeafSpan = ns;
        for (GaugeIndex g : gauges) {
            if (g != null) {
                g.leafSpan(ns);
            }
        }
    }

    long leafSpan() {
        return maxLeafSpan;
    }

    /** Out-of-core indexes: the events added next are trace chunk {@code n}'s. */
    void chunk(int n) {
        chunk = n;
        for (GaugeIndex g : gauges) {
            if (g != null) {
                g.chunk(n);
            }
        }
    }

    /**
     * Indexes events {@code [from, to)} of {@code b}: one pass in arrival order computes effective
     * times and feeds the scope indexes, then each memory's gauge index takes its events in one run
     * (a tight loop per memory rather than a dispatch per event). Call {@link #flush()} after the
     * batch's last range.
     *
     * @param lastEff the effective time of the event before {@code from} ({@code Long.MIN_VALUE} for none)
     * @return the effective time of the last event indexed
     */
    long add(EventBatch b, int from, int to, long lastEff) {
        int n = to - from;
        if (n <= 0) {
            return lastEff;
        }
        if (effScratch.length < n) {
            effScratch = new long[Math.max(n, 1024)];
            orderScratch = new int[Math.max(n, 1024)];
        }
        long[] eff = effScratch;
        int[] cnt = groupCount;
        long last = lastEff;
        int scopeEnter = EventKind.SCOPE_ENTER.code();
        int scopeExit = EventKind.SCOPE_EXIT.code();
        for (int k = 0; k < n; k++) {
            int i = from + k;
            long e = Math.max(b.time(i), last);
            eff[k] = e;
            last = e;
            int packed = b.packed(i);
            int slot = (packed >>> 16) - 1;
            if (slot < 0) {
                continue;
            }
            if (slot >= cnt.length) {
                cnt = groupCount = Arrays.copyOf(cnt, Math.max(slot + 1, cnt.length * 2));
            }
            if (cnt[slot]++ == 0 && (slot >= touched.length || !touched[slot])) {
                if (slot >= touched.length) {   // touchedList holds each slot once: never longer than touched
                    int cap = Math.max(slot + 1, touched.length * 2);
                    touched = Arrays.copyOf(touched, cap);
                    touchedList = Arrays.copyOf(touchedList, cap);
                }
                touched[slot] = true;
                touchedList[touchedCount++] = slot;
            }
            int kind = packed & 0xff;
            if (kind == scopeEnter || kind == scopeExit) {
                ScopeIndex s = scopeSlot(slot);
                if (kind == scopeEnter) {
                    s.enter(e, b.ref2(i), b.ref(i), (int) b.c(i));
                } else {
                    s.exit(e, b.ref2(i));
                }
            }
        }
        // group by memory: cnt[slot] becomes each group's start in 'order'
        int at = 0;
        for (int t = 0; t < touchedCount; t++) {
            int slot = touchedList[t];
            int c = cnt[slot];
            cnt[slot] = at;
            at += c;
        }
        int[] order = orderScratch;
        for (int k = 0; k < n; k++) {
            int slot = (b.packed(from + k) >>> 16) - 1;
            if (slot >= 0) {
                order[cnt[slot]++] = k;
            }
        }
        // cnt[slot] is now each group's end
        int start = 0;
        for (int t = 0; t < touchedCount; t++) {
            int slot = touchedList[t];
            int end = cnt[slot];
            cnt[slot] = 0;
            if (end > start) {
                gaugeSlot(slot).addRun(b, from, eff, order, start, end);
            }
            start = end;
        }
        return last;
    }

    private GaugeIndex gaugeSlot(int slot) {
        if (slot >= gauges.length) {
            int cap = Math.max(slot + 1, gauges.length * 2);
            gauges = Arrays.copyOf(gauges, cap);
            scopes = Arrays.copyOf(scopes, cap);
        }
        GaugeIndex g = gauges[slot];
        if (g == null) {
            g = gauges[slot] = new GaugeIndex(leafCap, outOfCore, maxLeafSpan);
            if (outOfCore) {
                g.chunk(chunk);
            }
        }
        return g;
    }

    private ScopeIndex scopeSlot(int slot) {
        gaugeSlot(slot); // keeps the arrays the same length
        ScopeIndex s = scopes[slot];
        return s != null ? s : (scopes[slot] = new ScopeIndex());
    }

    /** Ends a batch: every index touched by it takes its pending leaves. */
    void flush() {
        for (int k = 0; k < touchedCount; k++) {
            int s = touchedList[k];
            GaugeIndex g = gauges[s];
            if (g != null) {
                g.flush();
            }
            if (scopes[s] != null) {
                scopes[s].flush();
            }
            touched[s] = false;
        }
        touchedCount = 0;
    }

    /** The gauge index of {@code memory}, or null when it has no event yet. */
    GaugeIndex gauge(int memory) {
        return memory >= 0 && memory < gauges.length ? gauges[memory] : null;
    }

    /** The scope index of {@code memory}, or null when it has no scope event yet. */
    ScopeIndex scope(int memory) {
        return memory >= 0 && memory < scopes.length ? scopes[memory] : null;
    }

    /** Writes out-of-core indexes (flushed) for {@link #read}. */
    void write(DataOutput out) throws IOException {
        flush();
        out.writeInt(leafCap);
        out.writeLong(maxLeafSpan);
        out.writeInt(chunk);
        out.writeInt(gauges.length);
        for (int i = 0; i < gauges.length; i++) {
            out.writeBoolean(gauges[i] != null);
            if (gauges[i] != null) {
                gauges[i].write(out);
            }
            out.writeBoolean(scopes[i] != null);
            if (scopes[i] != null) {
                scopes[i].write(out);
            }
        }
    }

    /**
     * Out-of-core indexes written by {@link #write} over a trace of {@code chunks} chunks.
     *
     * @throws IndexInput.DamagedIndexException when the bytes do not make consistent indexes
     */
    static MemoryIndexes read(IndexInput in, int chunks) {
        int cap = in.i32();
        long span = in.i64();
        if (cap != OutOfCoreStore.LEAF_EVENTS || span < 1) {
            throw new IndexInput.DamagedIndexException("index leaf size " + cap + ", span " + span);
        }
        MemoryIndexes m = new MemoryIndexes(cap, true, span);
        m.chunk = in.i32();
        int slots = in.i32();
        if (slots < 0 || slots > EventBatch.MAX_MEMORY_ID + 2) {
            throw new IndexInput.DamagedIndexException(slots + " memory slots");
        }
        m.gauges = new GaugeIndex[Math.max(8, slots)];
        m.scopes = new ScopeIndex[m.gauges.length];
        for (int i = 0; i < slots; i++) {
            if (in.bool()) {
                m.gauges[i] = GaugeIndex.read(in);
                m.gauges[i].checkChunks(chunks);
            }
            if (in.bool()) {
                m.scopes[i] = ScopeIndex.read(in);
            }
        }
        return m;
    }

    /** Bytes the indexes hold. */
    long bytes() {
        long n = 0;
        for (GaugeIndex g : gauges) {
            if (g != null) {
                n += g.bytes();
            }
        }
        for (ScopeIndex s : scopes) {
            if (s != null) {
                n += s.bytes();
            }
        }
        return n;
    }
}
