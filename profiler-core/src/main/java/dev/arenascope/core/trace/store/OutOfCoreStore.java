package dev.arenascope.core.trace.store;

import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.ScopeInterval;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.codec.EventLayout;
import dev.arenascope.core.trace.codec.MetaCodec;

/**
 * A session's store whose events stay in the trace file: the {@code .astrace} file's sealed chunks are
 * the data, read on demand through one bounded cache of decoded chunks (least recently used out), and
 * memory holds only what drawing and questions need at any scale:
 * <ul>
 *   <li>the chunk index: each chunk's first event index, event count and effective time range, and
 *       where it lies in the file ({@link ChunkRef});</li>
 *   <li>per memory, the gauges' level-of-detail pyramid ({@link GaugeIndex} with leaves of up to
 *       {@value #LEAF_EVENTS} events that never straddle a chunk or span more than a set time, each
 *       leaf's events left in its chunk) and the {@link ScopeIndex};</li>
 *   <li>the metadata: session, memories, strings, threads and the site table.</li>
 * </ul>
 * About 0.1 byte an event in memory (a pyramid node per {@value #LEAF_EVENTS} events) plus the
 * cache's bound, against the in-memory {@link EventStore}'s 10 to 18.
 *
 * <h2>Answers</h2>
 * Every {@link TraceView} query answers as {@link EventStore} does for the same file, with one
 * documented difference in {@link #gauges}: at a zoom where a leaf spans at most a quarter of a bucket,
 * a leaf that crosses a bucket's edge counts whole in the bucket it starts in (its values exact, their
 * time moved by under a quarter bucket), so a zoomed-out frame reads no chunk. Zoomed in further,
 * partly covered leaves are read from their chunks and the answer is exact. Events, their ranges,
 * {@link #firstIndexAtOrAfter} and {@link #replayTo} read chunks through the cache (the replay
 * bypasses it, so a full pass does not evict what a view shows).
 *
 * <h2>Building</h2>
 * A {@link Builder} takes the metadata and each chunk's events in file order (a reader's one pass over
 * the trace), or {@link #readIndex} restores a store from an index saved by {@link #writeIndex}. The
 * store is immutable once built: thread-safe for any number of readers; the cache has its own lock.
 *
 * <h2>Failures</h2>
 * A chunk that can no longer be read as it was indexed (the file changed or was damaged since)
 * throws {@link IllegalStateException} from the query that needed it, naming the chunk.
 */
public final class OutOfCoreStore implements TraceStore {
    /** The most events a gauge leaf holds. */
    public static final int LEAF_EVENTS = 1024;
    /** The saved index's layout; {@link #readIndex} refuses others. */
    public static final int INDEX_LAYOUT = 1;
    /** Leaves of a memory over the session's span at most, by their time bound (see {@link Builder}). */
    static final long SPAN_LEAVES = 1 << 14;

    /**
     * Where a chunk lies in the trace file and what its frame header said, so a reader finds it again
     * and can tell it is still the same chunk.
     *
     * @param offset      the frame's byte offset in the file
     * @param frameBytes  the frame's size with its header
     * @param crc         the frame's checksum
     * @param events      events in the chunk
     * @param firstTimeNs the frame header's first time
     * @param lastTimeNs  the frame header's last time
     */
    public record ChunkRef(long offset, int frameBytes, int crc, int events, long firstTimeNs, long lastTimeNs) {}

    /** A chunk as the store indexes it: its ref, its first event's index and the effective time before it and at its end. */
    private record Chunk(ChunkRef ref, long firstIndex, long prevEff, long lastEff) {}

    private final String name;
    private final ChunkSource source;
    private final ChunkCache cache;
    private SessionInfo session = new SessionInfo("", "", 0, List.of(), Map.of());
    private final TreeMap<Integer, MemoryInfo> memories = new TreeMap<>();
    private final TreeMap<Integer, String> strings = new TreeMap<>();
    private final TreeMap<Integer, String> threads = new TreeMap<>();
    private final SiteTable sites = new SiteTable();
    private long lost;
    private final List<Chunk> chunks = new ArrayList<>();
    private MemoryIndexes indexes;
    private long count;
    private long firstTime;
    private long lastEff = Long.MIN_VALUE;
    private boolean hasSites;
    private volatile boolean exactGauges;
    private final LeafSource leaves = this::gaugesOf;

    private OutOfCoreStore(String name, ChunkSource source, long cacheBytes) {
        this.name = name;
        this.source = source;
        this.cache = new ChunkCache(cacheBytes);
    }

    /**
     * A store to be built from a trace's chunks.
     *
     * @param name       what the store holds (a file name), for messages
     * @param source     reads the chunks back on demand
     * @param spanNs     the trace's time span as far as known beforehand (a footer's), 0 when unknown:
     *                   a leaf then spans at most {@code spanNs / 16384}, so a frame of the whole
     *                   session needs no chunk
     * @param cacheBytes the decoded-chunk cache's bound
     */
    public static Builder builder(String name, ChunkSource source, long spanNs, long cacheBytes) {
        return new Builder(new OutOfCoreStore(name, source, cacheBytes), spanNs);
    }

    /** Builds an {@link OutOfCoreStore}: metadata and chunks in file order, then {@link #build()}. One thread. */
    public static final class Builder implements AutoCloseable {
        private OutOfCoreStore store;

        private Builder(OutOfCoreStore store, long spanNs) {
            this.store = store;
            long span = spanNs > 0 ? Math.max(1, spanNs / SPAN_LEAVES) : Long.MAX_VALUE;
            store.indexes = new MemoryIndexes(LEAF_EVENTS, true, span);
        }

        private OutOfCoreStore open() {
            if (store == null) {
                throw new IllegalStateException("the store was already built");
            }
            return store;
        }

        public Builder session(SessionInfo info) {
            open().session = info;
            return this;
        }

        /**
         * One metadata record.
         *
         * @throws IllegalArgumentException for a frame or stack node the site table refuses
         */
        public Builder meta(MetaRecord m) {
            open().remember(m);
            return this;
        }

        public Builder loss(long n) {
            OutOfCoreStore s = open();
            s.lost = Saturating.add(s.lost, n);
            return this;
        }

        /** The next chunk of the trace: where it is, and its events (read, not kept). */
        public Builder chunk(ChunkRef ref, EventBatch events) {
            OutOfCoreStore s = open();
            if (events.size() != ref.events()) {
                throw new IllegalArgumentException("chunk at byte " + ref.offset() + " holds " + events.size() + " events, its ref says " + ref.events());
            }
            if (events.isEmpty()) {
                return this;
            }
            int n = events.size();
            if (s.count == 0) {
                s.firstTime = events.time(0);
            }
            s.indexes.chunk(s.chunks.size());
            long prev = s.lastEff;
            s.lastEff = s.indexes.add(events, 0, n, prev);
            s.indexes.flush();
            s.chunks.add(new Chunk(ref, s.count, prev, s.lastEff));
            s.count += n;
            if (!s.hasSites && events.hasSites()) {
                for (int i = 0; i < n && !s.hasSites; i++) {
                    s.hasSites = events.site(i) != -1 || events.category(i) != -1;
                }
            }
            return this;
        }

        /** The store, ready for queries; the builder is spent. */
        public OutOfCoreStore build() {
            OutOfCoreStore s = open();
            store = null;
            s.sites.trim();
            return s;
        }

        @Override
        public void close() {
            store = null;
        }
    }

    private void remember(MetaRecord m) {
        switch (m) {
            case MetaRecord.Memory(MemoryInfo mi) -> memories.put(mi.id(), mi);
            case MetaRecord.Str(int id, String v) -> strings.put(id, v);
            case MetaRecord.Thread(int id, String t) -> threads.put(id, t);
            case MetaRecord.Loss(long c) -> lost = Saturating.add(lost, c);
            case MetaRecord.Frame(var f) -> sites.add(f);
            case MetaRecord.Stack(var n) -> sites.add(n);
        }
    }

    // ---------------------------------------------------------------- the saved index

    /**
     * Writes what the store keeps in memory (metadata, chunk index, gauge and scope indexes) for
     * {@link #readIndex}. The caller frames it (trace length, checksum).
     */
    public void writeIndex(DataOutput out) throws IOException {
        out.writeInt(INDEX_LAYOUT);
        ByteWriter meta = new ByteWriter(1 << 16);
        MetaCodec.encodeSession(session, meta);
        List<MetaRecord> recs = metadata();
        meta.varint(recs.size());
        for (MetaRecord r : recs) {
            MetaCodec.encodeMeta(r, meta);
        }
        out.writeLong(meta.size());
        out.write(meta.array(), 0, meta.size());
        out.writeLong(lost);
        out.writeLong(count);
        out.writeLong(firstTime);
        out.writeLong(lastEff);
        out.writeBoolean(hasSites);
        out.writeLong(chunks.size());
        for (Chunk c : chunks) {
            ChunkRef r = c.ref();
            out.writeLong(r.offset());
            out.writeInt(r.frameBytes());
            out.writeInt(r.crc());
            out.writeInt(r.events());
            out.writeLong(r.firstTimeNs());
            out.writeLong(r.lastTimeNs());
            out.writeLong(c.prevEff());
            out.writeLong(c.lastEff());
        }
        indexes.write(out);
    }

    /**
     * A store restored from bytes {@link #writeIndex} wrote (already checked against their checksum
     * and their trace by the caller).
     *
     * @throws IllegalArgumentException when the bytes are not a consistent index of this layout (the
     *                                  caller then rebuilds it from the trace)
     */
    public static OutOfCoreStore readIndex(String name, byte[] bytes, int off, int len, ChunkSource source, long cacheBytes) {
        try {
            return readIndex(new IndexInput(bytes, off, len), name, source, cacheBytes);
        } catch (IndexInput.DamagedIndexException | TraceFormatException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("damaged index: " + e.getMessage(), e);
        }
    }

    private static OutOfCoreStore readIndex(IndexInput in, String name, ChunkSource source, long cacheBytes) throws TraceFormatException {
        int layout = in.i32();
        if (layout != INDEX_LAYOUT) {
            throw new IndexInput.DamagedIndexException("index layout " + layout + ", this build reads " + INDEX_LAYOUT);
        }
        OutOfCoreStore s = new OutOfCoreStore(name, source, cacheBytes);
        int metaLen = in.count(1);
        byte[] meta = in.bytes(metaLen);
        ByteReader r = new ByteReader(meta, 0, meta.length, name + ".idx", 0);
        s.session = MetaCodec.decodeSession(r);
        int n = r.count(r.remaining(), "index metadata count");
        for (int i = 0; i < n; i++) {
            s.remember(MetaCodec.decodeMeta(r, EventLayout.CURRENT));
        }
        s.sites.trim();
        s.lost = in.i64();
        s.count = in.i64();
        s.firstTime = in.i64();
        s.lastEff = in.i64();
        s.hasSites = in.bool();
        int chunks = in.count(56);
        long at = 0;
        for (int i = 0; i < chunks; i++) {
            ChunkRef ref = new ChunkRef(in.i64(), in.i32(), in.i32(), in.i32(), in.i64(), in.i64());
            long prev = in.i64();
            long last = in.i64();
            if (ref.events() <= 0 || ref.offset() < 0 || ref.frameBytes() <= 0 || last < prev && i > 0) {
                throw new IndexInput.DamagedIndexException("chunk " + i + " of the index is inconsistent");
            }
            s.chunks.add(new Chunk(ref, at, prev, last));
            at += ref.events();
        }
        if (at != s.count || s.count < 0) {
            throw new IndexInput.DamagedIndexException("the chunks hold " + at + " events, the index says " + s.count);
        }
        s.indexes = MemoryIndexes.read(in, chunks);
        if (in.remaining() != 0) {
            throw new IndexInput.DamagedIndexException(in.remaining() + " trailing bytes");
        }
        return s;
    }

    /** The metadata as records: memories, strings, threads, then the site table. */
    private List<MetaRecord> metadata() {
        List<MetaRecord> out = new ArrayList<>();
        memories.values().forEach(m -> out.add(new MetaRecord.Memory(m)));
        strings.forEach((id, v) -> out.add(new MetaRecord.Str(id, v)));
        threads.forEach((id, v) -> out.add(new MetaRecord.Thread(id, v)));
        for (int i = 0; i < sites.frameCount(); i++) {
            out.add(new MetaRecord.Frame(sites.frame(i)));
        }
        for (int i = 0; i < sites.nodeCount(); i++) {
            out.add(new MetaRecord.Stack(sites.node(i)));
        }
        return out;
    }

    /** Where each chunk lies in the file, in order. */
    public List<ChunkRef> chunks() {
        return chunks.stream().map(Chunk::ref).toList();
    }

    // ---------------------------------------------------------------- chunks through the cache

    private ChunkCache.Entry entry(int ci) {
        ChunkCache.Entry e = cache.get(ci);
        if (e != null) {
            return e;
        }
        EventBatch events = readChunk(ci);
        return cache.put(ci, new ChunkCache.Entry(events));
    }

    /**
     * Chunk {@code ci}'s events: from the cache, else read; a chunk wanted whole (a pass over many
     * chunks: an analysis, an export) is not kept, so such a pass does not evict what a view shows.
     */
    private EventBatch events(int ci, boolean whole) {
        if (!whole) {
            return entry(ci).events;
        }
        ChunkCache.Entry cached = cache.get(ci);
        return cached != null ? cached.events : readChunk(ci);
    }

    private EventBatch readChunk(int ci) {
        Chunk c = chunks.get(ci);
        EventBatch events = source.read(ci, c.ref());
        if (events.size() != c.ref().events()) {
            throw new IllegalStateException(name + ": chunk " + ci + " at byte " + c.ref().offset() + " now holds " + events.size()
                    + " events, the index says " + c.ref().events());
        }
        return events;
    }

    private ChunkGauges gaugesOf(int ci) {
        ChunkCache.Entry e = entry(ci);
        ChunkGauges g = e.gauges;
        if (g == null) {
            g = new ChunkGauges(e.events, chunks.get(ci).prevEff());
            e.gauges = g;
            cache.grew(e, g.bytes());
        }
        return g;
    }

    /** The chunk holding event {@code index}. */
    private int chunkOf(long index) {
        int lo = 0;
        int hi = chunks.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (chunks.get(mid).firstIndex() <= index) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * Queries answer with every partly covered gauge leaf read from its chunk (see {@link #gauges});
     * for tests and for callers that need exact bucket edges at any zoom.
     */
    public void exactGauges(boolean on) {
        exactGauges = on;
    }

    /** Chunks read from the file for queries so far (cache misses), and found in the cache (hits). */
    public long cacheMisses() {
        return cache.misses();
    }

    public long cacheHits() {
        return cache.hits();
    }

    /** Chunks in the cache now. */
    public int cachedChunks() {
        return cache.size();
    }

    /** Chunks of the trace. */
    public int chunkCount() {
        return chunks.size();
    }

    // ---------------------------------------------------------------- TraceStore

    @Override
    public SessionInfo session() {
        return session;
    }

    @Override
    public List<MemoryInfo> memories() {
        return List.copyOf(memories.values());
    }

    @Override
    public MemoryInfo memory(int id) {
        return memories.get(id);
    }

    @Override
    public String string(int id) {
        return strings.get(id);
    }

    @Override
    public Map<Integer, String> strings() {
        return new TreeMap<>(strings);
    }

    @Override
    public String threadName(int id) {
        return threads.get(id);
    }

    @Override
    public Map<Integer, String> threads() {
        return new TreeMap<>(threads);
    }

    @Override
    public SiteTable sites() {
        return sites;
    }

    @Override
    public boolean hasSites() {
        return hasSites;
    }

    @Override
    public long eventCount() {
        return count;
    }

    @Override
    public long startNs() {
        return count == 0 ? 0 : firstTime;
    }

    @Override
    public long endNs() {
        return count == 0 ? 0 : lastEff;
    }

    @Override
    public long lostEvents() {
        return lost;
    }

    @Override
    public Event event(long index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("event " + index + " of " + count);
        }
        int ci = chunkOf(index);
        return entry(ci).events.get((int) (index - chunks.get(ci).firstIndex()));
    }

    @Override
    public void copyEvents(long from, long to, EventBatch out) {
        if (from < 0 || to > count || from > to) {
            throw new IndexOutOfBoundsException("events [" + from + ", " + to + ") of " + count);
        }
        long i = from;
        while (i < to) {
            int ci = chunkOf(i);
            Chunk c = chunks.get(ci);
            long end = Math.min(to, c.firstIndex() + c.ref().events());
            out.addRange(events(ci, i == c.firstIndex() && end == c.firstIndex() + c.ref().events()),
                    (int) (i - c.firstIndex()), (int) (end - c.firstIndex()));
            i = end;
        }
    }

    @Override
    public long firstIndexAtOrAfter(long timeNs) {
        if (count == 0 || timeNs > lastEff) {
            return count;
        }
        int lo = 0;
        int hi = chunks.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (chunks.get(mid).lastEff() >= timeNs) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Chunk c = chunks.get(lo);
        EventBatch d = entry(lo).events;
        long eff = c.prevEff();
        for (int i = 0; i < d.size(); i++) {
            eff = Math.max(eff, d.time(i));
            if (eff >= timeNs) {
                return c.firstIndex() + i;
            }
        }
        return c.firstIndex() + d.size();
    }

    @Override
    public GaugeSeries gauges(int memory, long fromNs, long toNs, int buckets) {
        GaugeIndex g = indexes.gauge(memory);
        GaugeQuery q = null;
        if (g != null && buckets > 0 && toNs > fromNs) {
            prefetch(fromNs, toNs);
            q = new GaugeQuery(g, leaves, memory).exact(exactGauges);
        }
        return GaugeQuery.series(q, fromNs, toNs, buckets);
    }

    /** Chunks a zoomed-in frame may decode at once, on several cores, before its query reads them one by one. */
    static final int PREFETCH_CHUNKS = 64;

    /**
     * Decodes, on the common pool's cores, the chunks of {@code [fromNs, toNs)} not yet cached, when
     * they are few enough to be what a zoomed-in frame reads: {@value #PREFETCH_CHUNKS} at most, at most
     * half of what the cache holds and at most an eighth of the trace's chunks (a wider window is a
     * zoomed-out frame, which reads none).
     * Answers do not depend on it: the query reads the same chunks through the cache either way.
     */
    private void prefetch(long fromNs, long toNs) {
        int a = firstChunkEndingAtOrAfter(fromNs);
        int b = firstChunkEndingAtOrAfter(toNs);
        b = Math.min(chunks.size() - 1, b);
        int n = b - a + 1;
        long fits = cache.maxBytes() / 2 / ((long) (ChunkCache.EVENT_BYTES + 24) * 65_536);
        if (n < 2 || n > PREFETCH_CHUNKS || n > fits || (long) n * 8 > chunks.size()) {
            return;
        }
        java.util.stream.IntStream.rangeClosed(a, b).parallel().forEach(ci -> {
            if (!cache.contains(ci)) {
                gaugesOf(ci);
            }
        });
    }

    private int firstChunkEndingAtOrAfter(long timeNs) {
        int lo = 0;
        int hi = chunks.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (chunks.get(mid).lastEff() >= timeNs) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    @Override
    public List<ScopeInterval> scopes(int memory, long fromNs, long toNs, long minDurationNs) {
        List<ScopeInterval> out = new ArrayList<>();
        ScopeIndex s = indexes.scope(memory);
        if (s != null) {
            s.query(memory, fromNs, toNs, minDurationNs, out);
        }
        return out;
    }

    @Override
    public long eventCount(int memory) {
        GaugeIndex g = indexes.gauge(memory);
        return g == null ? 0 : g.events();
    }

    @Override
    public long peakUsed(int memory) {
        GaugeIndex g = indexes.gauge(memory);
        return g == null ? 0 : g.peakUsed();
    }

    @Override
    public long peakAux(int memory) {
        GaugeIndex g = indexes.gauge(memory);
        return g == null ? 0 : g.peakAux();
    }

    /** The indexes and the chunk index; the cache's bound is {@link #cacheBytes()}. */
    public long indexBytes() {
        return indexes.bytes() + 96L * chunks.size();
    }

    /** The decoded-chunk cache's bound. */
    public long cacheBytes() {
        return cache.maxBytes();
    }

    @Override
    public long memoryBytes() {
        return indexBytes() + cache.bytes();
    }

    @Override
    public void replayTo(EventSink sink) {
        sink.onSession(session);
        memories.values().forEach(sink::onMemory);
        strings.forEach(sink::onString);
        threads.forEach(sink::onThread);
        sites.announceAll(sink);
        for (int ci = 0; ci < chunks.size(); ci++) {
            sink.onEvents(events(ci, true));
        }
        if (lost > 0) {
            sink.onLoss(lost);
        }
        sink.onClose();
    }

    @Override
    public String toString() {
        return "OutOfCoreStore[" + name + ", " + count + " events in " + chunks.size() + " chunks]";
    }
}
