package dev.arenascope.core.trace.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.ScopeInterval;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.codec.ChunkCodec;

/**
 * The columnar in-memory store of one session: what the window draws from and reports read. It is an
 * {@link EventSink} (attach it to a live {@code Session}, or let a reader fill it) and a
 * {@link TraceView}.
 *
 * <h2>Layout</h2>
 * Events are kept in blocks of up to {@link #BLOCK_EVENTS}: the newest block as plain columns, every
 * full block sealed into the {@link ChunkCodec} encoding (delta/zigzag varint columns, zstd), which is
 * also a file chunk's payload, so loading an {@code .astrace} file adopts its chunks without
 * re-encoding. Next to the blocks, per memory, a {@link GaugeIndex} (the level-of-detail index of
 * {@code used} and {@code aux}: leaves of 64 events under a power-of-two min/max pyramid) and a
 * {@link ScopeIndex} (scope executions with a pyramid of latest ends and longest durations). Peaks
 * are kept as events arrive. Realistic streams take 10 to 16 bytes an event all told
 * ({@link #memoryBytes()}); growth allocates new pages and never copies the events.
 *
 * <h2>Allocation sites</h2>
 * The frames and stack nodes announced to the store form its {@link SiteTable} ({@link #sites()}).
 * The site and category of each event that carries one are kept beside the blocks in two paged columns
 * (event index, then site and category packed in one long), in index order, so a stream without sites
 * costs nothing and one with sites 16 bytes per allocation; {@link #event}, {@link #copyEvents} and
 * {@link #replayTo} put them back on the events.
 *
 * <h2>Parts</h2>
 * This class holds the open block, the append path and the queries; beside it {@link SealedBlocks}
 * (packed blocks, their lookup and decode cache), {@link SiteColumns} (the site side columns),
 * {@link GaugeIndex} / {@link GaugeQuery} and {@link ScopeIndex} (the level-of-detail indexes) and
 * {@link StoreLock} (the read-write lock as try-with-resources guards).
 *
 * <h2>Order and time</h2>
 * Events are indexed in arrival order, which is time order but for a few nanoseconds: threads stamp
 * times just before they enqueue, so an event may arrive a little after a younger one. Such an event
 * keeps its recorded time, and the indexes place it at the latest time seen so far (its
 * <em>effective</em> time), which keeps every index monotone. Arrival order is what files keep, so a
 * store loaded from a file indexes every event exactly as the store that recorded it.
 *
 * <h2>Threads</h2>
 * One writer (the drain or a reader) and any number of readers: a read-write lock is held for each
 * batch appended and for each query, so a query answers for the events present when it began.
 *
 * <h2>Gauge semantics</h2>
 * {@link #gauges} treats each gauge as a step function: the value of the last event at or before a
 * time. A bucket's minimum and maximum cover the value in force when it begins and every event in it;
 * before a memory's first event its gauges are 0. The width is {@code ceil((to - from) / buckets)}, so
 * the series covers {@code [from, from + buckets·width)}, which may reach a little past {@code to}.
 */
public final class EventStore implements TraceStore, EventSink {
    /** Events per sealed block. */
    public static final int BLOCK_EVENTS = 16384;
    /** Events of the open block below which {@link #onClose()} leaves it unsealed. */
    static final int SMALL_OPEN_BLOCK = 1024;

    private final StoreLock lock = new StoreLock();
    // made at the first seal (a full open block, compact): a store that stays under one block, as a test's
    // recording does, allocates no codec (its buffers and compression context are most of a new store)
    private ChunkCodec writeCodec; // sites live in the side columns
    private final String name;

    private SessionInfo session = new SessionInfo("", "", 0, List.of(), Map.of());
    private final TreeMap<Integer, MemoryInfo> memories = new TreeMap<>();
    private final Map<Integer, String> strings = new HashMap<>();
    private final Map<Integer, String> threads = new HashMap<>();
    private long lost;
    private final SiteTable sites = new SiteTable();
    private final SiteColumns siteColumns = new SiteColumns();

    private final SealedBlocks blocks;
    private final MemoryIndexes indexes = new MemoryIndexes();
    // starts at 64 events (4 KiB: a test's store holds a few) and doubles up to BLOCK_EVENTS, then is reused
    private EventBatch tail = new EventBatch(64);
    private long tailFirstIndex;
    private long tailFirstEff;
    private long count;
    private long firstTime;
    private long lastEff = Long.MIN_VALUE;

    public EventStore() {
        this("store");
    }

    /** @param name what the store holds (a file name), used in messages */
    public EventStore(String name) {
        this.name = name;
        this.blocks = new SealedBlocks(name);
    }

    // ---------------------------------------------------------------- EventSink (the one writer)

    @Override
    public void onSession(SessionInfo info) {
        try (var held = lock.write()) {
            session = info;
        }
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        try (var held = lock.write()) {
            memories.put(memory.id(), memory);
        }
    }

    @Override
    public void onString(int id, String value) {
        try (var held = lock.write()) {
            strings.put(id, value);
        }
    }

    @Override
    public void onThread(int id, String threadName) {
        try (var held = lock.write()) {
            threads.put(id, threadName);
        }
    }

    /**
     * @throws IllegalArgumentException when the frame's id is out of order or repeats another frame's
     *                                  id with different contents (see {@link SiteTable#add(StackFrame)})
     */
    @Override
    public void onFrame(StackFrame frame) {
        try (var held = lock.write()) {
            sites.add(frame);
        }
    }

    /**
     * The store's own site table while nothing was announced to it: a producer that interns into it
     * announces nothing ({@link EventSink#sharedSites}), and the store reads its sites from it.
     */
    @Override
    public SiteTable sharedSites() {
        try (var held = lock.write()) {
            return sites.frameCount() == 0 && sites.nodeCount() == 0 ? sites : null;
        }
    }

    /** @throws IllegalArgumentException as {@link SiteTable#add(StackNode)} */
    @Override
    public void onStack(StackNode node) {
        try (var held = lock.write()) {
            sites.add(node);
        }
    }

    @Override
    public void onLoss(long n) {
        try (var held = lock.write()) {
            lost = Saturating.add(lost, n);
        }
    }

    @Override
    public void onEvents(EventBatch batch) {
        if (batch.isEmpty()) {
            return;
        }
        EventBatch b = batch;
        try (var held = lock.write()) {
            int n = b.size();
            for (int i = 0; i < n; ) {
                int j = Math.min(n, i + BLOCK_EVENTS - tail.size());
                if (tail.isEmpty()) {
                    tailFirstEff = Math.max(b.time(i), lastEff);
                }
                index(b, i, j);
                siteColumns.keep(b, i, j, count);
                tail.addRange(b, i, j);
                count += j - i;
                if (tail.size() == BLOCK_EVENTS) {
                    seal();
                }
                i = j;
            }
            indexes.flush();
        }
    }

    /**
     * Appends a chunk read from a file or the wire, adopting its packed payload as a sealed block (no
     * re-encoding). The chunk's metadata must already have been delivered.
     */
    public void appendChunk(ChunkCodec.Chunk chunk) {
        EventBatch b = chunk.events();
        if (b.isEmpty()) {
            return;
        }
        try (var held = lock.write()) {
            if (!tail.isEmpty()) {
                seal();
            }
            long first = count;
            long firstEffective = Math.max(b.time(0), lastEff);
            index(b, 0, b.size());
            siteColumns.keep(b, 0, b.size(), count);
            count += b.size();
            blocks.add(new SealedBlocks.Block(first, b.size(), firstEffective, lastEff, chunk.payload(), chunk.rawBytes(), chunk.version()));
            tailFirstIndex = count;
            indexes.flush();
        }
    }

    /** Indexes events {@code [from, to)} of {@code b}, the next of the store's events. */
    private void index(EventBatch b, int from, int to) {
        if (to > from && count == 0 && lastEff == Long.MIN_VALUE) {
            firstTime = b.time(from);
        }
        lastEff = indexes.add(b, from, to, lastEff);
    }

    /** Whether any event of the store carries a site or a category. */
    @Override
    public boolean hasSites() {
        try (var held = lock.read()) {
            return !siteColumns.isEmpty();
        }
    }

    /**
     * The store's allocation-site table. It is the store's own and grows as frames and nodes are
     * announced; read it (it is thread-safe), never add to it.
     */
    @Override
    public SiteTable sites() {
        return sites;
    }

    @Override
    public StackFrame frame(int id) {
        return sites.frame(id);
    }

    @Override
    public StackNode stackNode(int id) {
        return sites.node(id);
    }

    @Override
    public int stackNodeCount() {
        return sites.nodeCount();
    }

    @Override
    public int frameCount() {
        return sites.frameCount();
    }

    @Override
    public List<StackFrame> stack(int site) {
        return sites.frames(site);
    }

    private void seal() {
        int n = tail.size();
        if (writeCodec == null) {
            writeCodec = new ChunkCodec().writeSites(false);
        }
        ChunkCodec.Packed p = writeCodec.pack(List.of(), tail, 0, n);
        blocks.add(new SealedBlocks.Block(tailFirstIndex, n, tailFirstEff, lastEff, p.bytes(), p.rawBytes(), ChunkCodec.VERSION));
        tailFirstIndex += n;
        tail.clear();
    }

    /** Seals the open block (fewer bytes held); further events start a new one. */
    public void compact() {
        try (var held = lock.write()) {
            if (!tail.isEmpty()) {
                seal();
            }
        }
    }

    @Override
    public void onClose() {
        // a short stream's open block stays as it is: sealing it would pack (and every later read unpack)
        // a few events through a codec and a compression context made for them alone, to save at most
        // the open block's first capacity (a test's recording: ArenaScopeExtension)
        if (tail.size() >= SMALL_OPEN_BLOCK) {
            compact();
        }
        sites.trim(); // the stream is complete: the site table keeps no room to grow (a third of it on millions of nodes)
    }

    // ---------------------------------------------------------------- TraceView

    @Override
    public SessionInfo session() {
        try (var held = lock.read()) {
            return session;
        }
    }

    @Override
    public List<MemoryInfo> memories() {
        try (var held = lock.read()) {
            return List.copyOf(memories.values());
        }
    }

    /** The memory with this id, or null. */
    @Override
    public MemoryInfo memory(int id) {
        try (var held = lock.read()) {
            return memories.get(id);
        }
    }

    @Override
    public String string(int id) {
        try (var held = lock.read()) {
            return strings.get(id);
        }
    }

    /** Every string-table entry, by id. */
    @Override
    public Map<Integer, String> strings() {
        try (var held = lock.read()) {
            return new TreeMap<>(strings);
        }
    }

    @Override
    public String threadName(int id) {
        try (var held = lock.read()) {
            return threads.get(id);
        }
    }

    /** Every recording thread, by id. */
    @Override
    public Map<Integer, String> threads() {
        try (var held = lock.read()) {
            return new TreeMap<>(threads);
        }
    }

    @Override
    public long eventCount() {
        try (var held = lock.read()) {
            return count;
        }
    }

    @Override
    public long startNs() {
        try (var held = lock.read()) {
            return count == 0 ? 0 : firstTime;
        }
    }

    @Override
    public long endNs() {
        try (var held = lock.read()) {
            return count == 0 ? 0 : lastEff;
        }
    }

    @Override
    public long lostEvents() {
        try (var held = lock.read()) {
            return lost;
        }
    }

    @Override
    public Event event(long index) {
        try (var held = lock.read()) {
            if (index < 0 || index >= count) {
                throw new IndexOutOfBoundsException("event " + index + " of " + count);
            }
            if (index >= tailFirstIndex) {
                return tail.get((int) (index - tailFirstIndex));
            }
            int bi = blocks.blockOf(index);
            Event e = blocks.decoded(bi).get((int) (index - blocks.get(bi).firstIndex()));
            return siteColumns.isEmpty() ? e : siteColumns.on(e, index);
        }
    }

    /**
     * Copies events {@code [from, to)} into {@code out} as columns (cheaper than {@link #event} one by
     * one for long runs: each block is decoded once).
     */
    @Override
    public void copyEvents(long from, long to, EventBatch out) {
        try (var held = lock.read()) {
            if (from < 0 || to > count || from > to) {
                throw new IndexOutOfBoundsException("events [" + from + ", " + to + ") of " + count);
            }
            int outFrom = out.size();
            long i = from;
            while (i < to) {
                if (i >= tailFirstIndex) {
                    for (; i < to; i++) {
                        out.addFrom(tail, (int) (i - tailFirstIndex));
                    }
                    break;
                }
                int bi = blocks.blockOf(i);
                SealedBlocks.Block blk = blocks.get(bi);
                EventBatch d = blocks.decoded(bi);
                long end = Math.min(to, blk.firstIndex() + blk.count());
                for (; i < end; i++) {
                    out.addFrom(d, (int) (i - blk.firstIndex()));
                }
            }
            if (!siteColumns.isEmpty()) {
                siteColumns.put(out, outFrom, from);
            }
        }
    }

    @Override
    public long firstIndexAtOrAfter(long timeNs) {
        try (var held = lock.read()) {
            if (count == 0 || timeNs > lastEff) {
                return count;
            }
            int lo = blocks.firstEndingAtOrAfter(timeNs);
            EventBatch d;
            long base;
            long eff;
            if (lo < blocks.size()) {
                d = blocks.decoded(lo);
                base = blocks.get(lo).firstIndex();
                eff = lo == 0 ? Long.MIN_VALUE : blocks.get(lo - 1).lastEff();
            } else {
                d = tail;
                base = tailFirstIndex;
                eff = blocks.isEmpty() ? Long.MIN_VALUE : blocks.last().lastEff();
            }
            for (int i = 0; i < d.size(); i++) {
                eff = Math.max(eff, d.time(i));
                if (eff >= timeNs) {
                    return base + i;
                }
            }
            return base + d.size();
        }
    }

    @Override
    public GaugeSeries gauges(int memory, long fromNs, long toNs, int buckets) {
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
        try (var held = lock.read()) {
            GaugeIndex g = indexes.gauge(memory);
            if (g != null) {
                new GaugeQuery(g).fill(fromNs, toNs, w, buckets, uMin, uMax, uLast, xMin, xMax, xLast, cnt);
            }
        }
        return new GaugeSeries(fromNs, w, uMin, uMax, uLast, xMin, xMax, xLast, cnt);
    }

    @Override
    public List<ScopeInterval> scopes(int memory, long fromNs, long toNs, long minDurationNs) {
        List<ScopeInterval> out = new ArrayList<>();
        try (var held = lock.read()) {
            ScopeIndex s = indexes.scope(memory);
            if (s != null) {
                s.query(memory, fromNs, toNs, minDurationNs, out);
            }
        }
        return out;
    }

    /** Events of {@code memory} so far. */
    @Override
    public long eventCount(int memory) {
        try (var held = lock.read()) {
            GaugeIndex g = indexes.gauge(memory);
            return g == null ? 0 : g.events();
        }
    }

    @Override
    public long peakUsed(int memory) {
        try (var held = lock.read()) {
            GaugeIndex g = indexes.gauge(memory);
            return g == null ? 0 : g.peakUsed();
        }
    }

    @Override
    public long peakAux(int memory) {
        try (var held = lock.read()) {
            GaugeIndex g = indexes.gauge(memory);
            return g == null ? 0 : g.peakAux();
        }
    }

    /**
     * Bytes this store holds for its events and indexes (packed blocks, the open block's columns, the
     * gauge and scope indexes), for the 24-bytes-an-event budget. Metadata and the decode cache are
     * not counted.
     */
    @Override
    public long memoryBytes() {
        try (var held = lock.read()) {
            long n = (long) Math.max(1024, Integer.highestOneBit(Math.max(1, tail.size()) * 2 - 1)) * 68; // the open block's columns
            n += blocks.bytes();
            n += indexes.bytes();
            return n + siteColumns.bytes();
        }
    }

    /** Replays everything held (session, metadata, events in blocks, losses) to {@code sink}, then closes it. */
    @Override
    public void replayTo(EventSink sink) {
        try (var held = lock.read()) {
            sink.onSession(session);
            memories.values().forEach(sink::onMemory);
            new TreeMap<>(strings).forEach(sink::onString);
            new TreeMap<>(threads).forEach(sink::onThread);
            sites.announceAll(sink);
            for (int bi = 0; bi < blocks.size(); bi++) {
                EventBatch d = blocks.decoded(bi);
                if (!siteColumns.isEmpty()) {
                    EventBatch withSites = new EventBatch(d.size());
                    withSites.addRange(d, 0, d.size());
                    siteColumns.put(withSites, 0, blocks.get(bi).firstIndex());
                    d = withSites;
                }
                sink.onEvents(d);
            }
            if (!tail.isEmpty()) {
                sink.onEvents(tail);
            }
            if (lost > 0) {
                sink.onLoss(lost);
            }
        }
        sink.onClose();
    }

    @Override
    public String toString() {
        return "EventStore[" + name + ", " + eventCount() + " events]";
    }
}
