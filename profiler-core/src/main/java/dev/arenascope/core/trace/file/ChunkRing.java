package dev.arenascope.core.trace.file;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.codec.MetaCodec;

/**
 * The bookkeeping of a capped {@link AstraceWriter} ({@link RingCap}): the chunks the file holds now,
 * each memory's gauges as of every chunk's end, and what was dropped. The writer asks it, before each
 * chunk, whether the file must be rewritten ({@link #toDrop}), and lets it fold the dropped chunks into
 * the state the kept window starts from ({@link #drop}): the metadata they carried (which moves into
 * the rewritten header) and each open memory's gauges at the cut (which become the window's first chunk).
 *
 * <p>Work: {@link #track} costs a few array stores an event; everything else is per chunk. Memory: a few
 * words a chunk of the file, plus one per memory. Called under the writer's lock.
 */
final class ChunkRing {
    /** One memory's state at the end of a chunk: its gauges, and the MEMORY_CREATED event that opened it. */
    record Gauge(int memory, long used, long aux, boolean closed, boolean created, int thread, int flags,
                 long a, long b, long c, int ref) {}

    /** A chunk in the file. */
    record Logged(long offset, int bytes, int events, long first, long last, List<MetaRecord> meta, long metaBytes,
                  List<Gauge> gauges, boolean carry) {
        Logged at(long newOffset) {
            return new Logged(newOffset, bytes, events, first, last, meta, metaBytes, gauges, carry);
        }
    }

    final RingCap cap;
    final List<Logged> log = new ArrayList<>();
    // the gauges as events come (tracked for every memory, dirty = touched in the open chunk)
    private final long[] used = new long[EventBatch.MAX_MEMORY_ID + 1];
    private final long[] aux = new long[EventBatch.MAX_MEMORY_ID + 1];
    private final Map<Integer, Gauge> created = new HashMap<>();
    private final boolean[] closed = new boolean[EventBatch.MAX_MEMORY_ID + 1];
    private final boolean[] dirty = new boolean[EventBatch.MAX_MEMORY_ID + 1];
    private final int[] dirtyList = new int[EventBatch.MAX_MEMORY_ID + 1];
    private int dirtyCount;
    private final Map<Integer, MemoryInfo> memories = new HashMap<>();
    // the state at the cut
    private final TreeMap<Integer, Gauge> carry = new TreeMap<>();
    /** Metadata that must travel in the header: the first header's, then every dropped chunk's (losses summed apart). */
    final List<MetaRecord> carriedMeta = new ArrayList<>();
    long carriedLoss;
    long droppedChunks;
    long droppedEvents;
    long droppedBytes;
    long windowStart;
    long rewrites;

    ChunkRing(RingCap cap) {
        this.cap = cap;
    }

    /** What the trace says of the ring now. */
    RingWindow window() {
        return new RingWindow(cap.maxBytes(), cap.maxDurationNs(), droppedChunks, droppedEvents, droppedBytes, windowStart, rewrites);
    }

    void declare(MemoryInfo m) {
        memories.put(m.id(), m);
    }

    /** The metadata of the first header: it stays in every rewritten header. */
    void header(List<MetaRecord> meta) {
        carry(meta);
    }

    private void carry(List<MetaRecord> meta) {
        for (MetaRecord m : meta) {
            if (m instanceof MetaRecord.Loss(long n)) {
                carriedLoss = Saturating.add(carriedLoss, n);
            } else {
                carriedMeta.add(m);
            }
        }
    }

    /** Follows the gauges of events {@code from .. to} of {@code batch}, which go into the open chunk. */
    void track(EventBatch batch, int from, int to) {
        int created = EventKind.MEMORY_CREATED.code();
        int closedCode = EventKind.MEMORY_CLOSED.code();
        for (int i = from; i < to; i++) {
            int m = batch.memory(i);
            if (m < 0 || m > EventBatch.MAX_MEMORY_ID) {
                continue;
            }
            used[m] = batch.used(i);
            aux[m] = batch.aux(i);
            int k = batch.kindCode(i);
            if (k == created) {
                this.created.put(m, new Gauge(m, 0, 0, false, true, batch.thread(i), batch.flags(i), batch.a(i), batch.b(i),
                        batch.c(i), batch.ref(i)));
                closed[m] = false;
            } else if (k == closedCode) {
                closed[m] = true;
            }
            if (!dirty[m]) {
                dirty[m] = true;
                dirtyList[dirtyCount++] = m;
            }
        }
    }

    /** The gauges of the memories the open chunk touched, as of its end; starts the next chunk. */
    List<Gauge> seal() {
        List<Gauge> out = new ArrayList<>(dirtyCount);
        for (int j = 0; j < dirtyCount; j++) {
            int m = dirtyList[j];
            dirty[m] = false;
            Gauge c = created.get(m);
            out.add(c == null ? new Gauge(m, used[m], aux[m], closed[m], false, 0, 0, 0, 0, 0, -1)
                    : new Gauge(m, used[m], aux[m], closed[m], true, c.thread(), c.flags(), c.a(), c.b(), c.c(), c.ref()));
        }
        dirtyCount = 0;
        return out;
    }

    /** Encoded size of {@code meta}, for estimating the rewritten header. */
    static long metaBytes(List<MetaRecord> meta) {
        if (meta.isEmpty()) {
            return 0;
        }
        ByteWriter w = new ByteWriter(256);
        for (MetaRecord m : meta) {
            MetaCodec.encodeMeta(m, w);
        }
        return w.size();
    }

    /**
     * How many of the oldest chunks to drop before writing a chunk of {@code bytes} whose newest event is at
     * {@code lastNs} into a file of {@code fileBytes} whose header takes {@code headerBytes}: 0 when it fits.
     */
    int toDrop(long fileBytes, long headerBytes, int bytes, long lastNs) {
        if (log.isEmpty()) {
            return 0;
        }
        int k = 0;
        if (cap.maxBytes() > 0 && fileBytes + bytes > cap.maxBytes()) {
            long room = Math.min(cap.maxBytes() * RingCap.KEEP_PERCENT / 100, cap.maxBytes() - bytes);
            long header = headerBytes + 64L * (carry.size() + memories.size() + 1);
            while (k < log.size()) {
                header += log.get(k).metaBytes();
                if (header + (fileBytes - log.get(k).offset()) <= room) {
                    break;
                }
                k++;
            }
            if (k == 0) {
                k = 1; // the chunk alone does not fit: drop at least the oldest
            }
        }
        if (cap.maxDurationNs() > 0 && lastNs > 0) {
            long oldest = oldestTime();
            if (oldest >= 0 && lastNs - oldest > cap.maxDurationNs() / 100 * RingCap.DURATION_SLACK_PERCENT) {
                int t = 0;
                while (t < log.size() && (log.get(t).events() == 0 || log.get(t).carry() || log.get(t).last() < lastNs - cap.maxDurationNs())) {
                    t++;
                }
                k = Math.max(k, t);
            }
        }
        return k;
    }

    /** The first time of the oldest chunk holding recorded events, or -1. */
    private long oldestTime() {
        for (Logged l : log) {
            if (l.events() > 0 && !l.carry()) {
                return l.first();
            }
        }
        return -1;
    }

    /**
     * Folds the oldest {@code k} chunks into the state at the cut (metadata, gauges, counts) and removes them
     * from the log; {@code nextFirstNs} is where the window starts when no recorded chunk is kept.
     */
    void drop(int k, long nextFirstNs) {
        for (int j = 0; j < k; j++) {
            Logged l = log.get(j);
            carry(l.meta());
            for (Gauge g : l.gauges()) {
                if (g.closed()) {
                    carry.remove(g.memory());
                } else {
                    carry.put(g.memory(), g);
                }
            }
            if (!l.carry()) {
                droppedChunks++;
                droppedEvents += l.events();
                droppedBytes += l.bytes();
            }
        }
        log.subList(0, k).clear();
        long start = nextFirstNs;
        for (Logged l : log) {
            if (l.events() > 0) {
                start = l.first();
                break;
            }
        }
        windowStart = Math.max(windowStart, start);
        rewrites++;
    }

    /** The header metadata of a rewritten file: the carried records, then the losses as one record. */
    List<MetaRecord> headerMeta() {
        List<MetaRecord> m = new ArrayList<>(carriedMeta.size() + 1);
        m.addAll(carriedMeta);
        if (carriedLoss > 0) {
            m.add(new MetaRecord.Loss(carriedLoss));
        }
        return m;
    }

    /**
     * The events that open the kept window: for each memory still open at the cut, a {@code MEMORY_CREATED}
     * at the window's start carrying its gauges then (its original base, capacity and name when that
     * event was seen, else the declared capacity).
     */
    EventBatch carryEvents() {
        EventBatch b = new EventBatch(Math.max(1, carry.size()));
        for (Gauge g : carry.values()) {
            MemoryInfo mi = memories.get(g.memory());
            long capacity = g.created() ? g.b() : mi == null ? 0 : mi.capacity();
            b.add(windowStart, EventBatch.pack(EventKind.MEMORY_CREATED.code(), g.created() ? g.flags() : 0, g.memory()),
                    g.created() ? g.thread() : 0, g.created() ? g.a() : 0, capacity, g.created() ? g.c() : 0,
                    g.used(), g.aux(), g.created() ? g.ref() : -1, -1);
        }
        return b;
    }

    /** The gauges the carried events set: the carry chunk's own state, folded again when it is dropped. */
    List<Gauge> carryGauges() {
        return List.copyOf(carry.values());
    }
}
