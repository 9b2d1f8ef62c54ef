package dev.arenascope.core.trace.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.format.Bytes;
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
 * <h2>Spilling</h2>
 * A store made with a spill threshold ({@link #EventStore(String, long, Path)}, or {@link #live} for the
 * sessions the window and {@code listen} record) goes out of core when the bytes it holds
 * ({@link #memoryBytes()}) pass the threshold at a sealed block: its sealed blocks move, with their sites,
 * to a temporary {@link SpillFile} in the directory given, its gauge indexes are rebuilt once in the
 * out-of-core form ({@link OutOfCoreStore}'s: leaves of up to {@value OutOfCoreStore#LEAF_EVENTS} events
 * that never cross a block, their events read back from the block, through a byte-bounded cache of
 * decoded blocks), and from then on every sealed block goes to the file as it is sealed. What stays in
 * memory is the open block, the gauge pyramid and scope index, the block index and the metadata: a
 * fraction of a byte an event for the gauges (scope-heavy streams about a byte), against 10 to 18.
 * Queries answer as before, with {@link OutOfCoreStore#gauges}' one documented difference at zoomed-out
 * frames (a short leaf counts whole in the bucket it starts in; {@link #exactGauges} turns it off). The
 * switch itself decodes every block once, on the writer's thread, under the write lock. A spill file that
 * cannot be made or written leaves the store in memory as it was ({@link #spillProblem()} says why).
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
    /**
     * Bytes of decoded blocks a spilled store keeps for its gauge leaves (and their gauge columns) at
     * most; a quarter of the spill threshold when that is less, and at least 1 MiB.
     */
    static final long LEAF_CACHE_BYTES = 32L << 20;

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
    private SiteColumns siteColumns = new SiteColumns();

    private final SealedBlocks blocks;
    private MemoryIndexes indexes = new MemoryIndexes();
    // starts at 64 events (4 KiB: a test's store holds a few) and doubles up to BLOCK_EVENTS, then is reused
    private EventBatch tail = new EventBatch(64);
    private long tailFirstIndex;
    private long tailFirstEff;
    private long count;
    private long firstTime;
    private long lastEff = Long.MIN_VALUE;

    // spilling: the threshold (0: never), where the spill file goes, and the state once spilled
    private long spillPast;
    private final Path spillDir;
    private boolean spilled;
    private boolean spilledSites; // whether a spilled block carries a site or category
    private ChunkCodec spillCodec; // packs blocks with their sites, for the spill file
    private ChunkCache leafCache;
    private final LeafSource leaves = this::leafGauges;
    private volatile boolean exactGauges;
    private String spillProblem;

    public EventStore() {
        this("store");
    }

    /** @param name what the store holds (a file name), used in messages */
    public EventStore(String name) {
        this(name, 0, null);
    }

    /**
     * A store that goes out of core past {@code spillPastBytes} held (see the class comment).
     *
     * @param name           what the store holds, used in messages
     * @param spillPastBytes the bytes held ({@link #memoryBytes()}) past which sealed blocks move to a
     *                       spill file; 0 never to spill
     * @param spillDir       the directory the spill file is made in (null: the system's temporary directory)
     * @throws IllegalArgumentException when {@code spillPastBytes} is negative
     */
    public EventStore(String name, long spillPastBytes, Path spillDir) {
        if (spillPastBytes < 0) {
            throw new IllegalArgumentException("spill threshold must be 0 (never) or positive, got " + spillPastBytes);
        }
        this.name = name;
        this.blocks = new SealedBlocks(name);
        this.spillPast = spillPastBytes;
        this.spillDir = spillDir != null ? spillDir : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * A store for a live or recorded session, spilling as the {@code arenascope.store.spill} property says:
     * a size in bytes as {@link Bytes#parse} reads one ({@code 512MiB}, {@code 2G}, binary units),
     * {@code off} never to spill, or {@code auto} (default: a quarter of the maximum heap); the spill file
     * goes to {@code arenascope.store.spill.dir} (default the system's temporary directory).
     *
     * @throws IllegalArgumentException when the property is neither a size, {@code off} nor {@code auto}
     */
    public static EventStore live(String name) {
        String dir = System.getProperty("arenascope.store.spill.dir");
        return new EventStore(name, spillThreshold(), dir == null || dir.isBlank() ? null : Path.of(dir.trim()));
    }

    /**
     * The spill threshold {@link #live} applies, from the {@code arenascope.store.spill} property.
     *
     * @throws IllegalArgumentException when the property is neither a size, {@code off} nor {@code auto}
     */
    public static long spillThreshold() {
        String v = System.getProperty("arenascope.store.spill", "auto").trim();
        if (v.equalsIgnoreCase("auto") || v.isEmpty()) {
            return Math.max(8L << 20, Runtime.getRuntime().maxMemory() / 4);
        }
        if (v.equalsIgnoreCase("off")) {
            return 0;
        }
        // the project's one reading of a byte count (Bytes.parse); a threshold of 0 is said as off
        try {
            long n = Bytes.parse(v);
            if (n <= 0) {
                throw new IllegalArgumentException("not positive");
            }
            return n;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("arenascope.store.spill: '" + v + "' is not a size (such as 512MiB), off or auto");
        }
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
                    if (spilled) {
                        indexes.chunk(blocks.size()); // the open block is the next block: leaves do not cross it
                    }
                }
                index(b, i, j);
                if (spilled) {
                    spilledSites = spilledSites || carriesSites(b, i, j); // the open block keeps them; sealed, the spilled block does
                } else {
                    siteColumns.keep(b, i, j, count);
                }
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
            if (spilled) { // blocks are the store's own from now on: this one goes through the open block to the file
                onEvents(b);
                return;
            }
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
            spillIfPast();
        }
    }

    /** Indexes events {@code [from, to)} of {@code b}, the next of the store's events. */
    private void index(EventBatch b, int from, int to) {
        if (to > from && count == 0 && lastEff == Long.MIN_VALUE) {
            firstTime = b.time(from);
        }
        lastEff = indexes.add(b, from, to, lastEff);
    }

    private static boolean carriesSites(EventBatch b, int from, int to) {
        if (!b.hasSites()) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (b.site(i) != -1 || b.category(i) != -1) {
                return true;
            }
        }
        return false;
    }

    /** Whether any event of the store carries a site or a category. */
    @Override
    public boolean hasSites() {
        try (var held = lock.read()) {
            return !siteColumns.isEmpty() || spilledSites;
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

    private void seal() {
        int n = tail.size();
        if (spilled) {
            ChunkCodec.Packed p = spillCodec.pack(List.of(), tail, 0, n); // with the sites the open block holds
            blocks.add(new SealedBlocks.Block(tailFirstIndex, n, tailFirstEff, lastEff, p.bytes(), p.bytes().length, -1, p.rawBytes(),
                    ChunkCodec.VERSION, true));
            try {
                blocks.spill(blocks.size() - 1, p.bytes(), p.rawBytes(), ChunkCodec.VERSION, true);
            } catch (IOException e) {
                // the block stays in memory, its sites packed in; later blocks try the file again
                spillProblem = "spill file " + blocks.spillPath() + ": " + e.getMessage() + " (a block stayed in memory)";
            }
            tailFirstIndex += n;
            tail.clear();
            lengthenLeaves();
            return;
        }
        if (writeCodec == null) {
            writeCodec = new ChunkCodec().writeSites(false);
        }
        ChunkCodec.Packed p = writeCodec.pack(List.of(), tail, 0, n);
        blocks.add(new SealedBlocks.Block(tailFirstIndex, n, tailFirstEff, lastEff, p.bytes(), p.rawBytes(), ChunkCodec.VERSION));
        tailFirstIndex += n;
        tail.clear();
        spillIfPast();
    }

    /** Goes out of core when the store holds more than its spill threshold (the writer, under the write lock). */
    private void spillIfPast() {
        if (spilled || spillPast <= 0 || tail.size() > 0) {
            return;
        }
        if (blocks.bytes() + indexes.bytes() + siteColumns.bytes() > spillPast) {
            spill();
        }
    }

    /**
     * The switch out of core (see the class comment): every sealed block is decoded once, indexed
     * again into out-of-core gauge indexes (a block is a chunk), and moved to the spill file with its
     * sites. Called with the open block empty.
     */
    private void spill() {
        SpillFile file;
        try {
            file = SpillFile.create(spillDir, name);
        } catch (IOException | RuntimeException e) {
            spillProblem = "cannot make a spill file in " + spillDir + ": " + e.getMessage() + " (the store stays in memory)";
            spillPast = 0;
            return;
        }
        long span = Math.max(1, (lastEff - firstTime) / SPILLED_SPAN_LEAVES);
        MemoryIndexes ooc = new MemoryIndexes(OutOfCoreStore.LEAF_EVENTS, true, span);
        ChunkCodec packer = new ChunkCodec();
        ChunkCodec reader = new ChunkCodec();
        blocks.spillTo(file);
        boolean withSites = !siteColumns.isEmpty();
        long eff = Long.MIN_VALUE;
        int n = blocks.size();
        for (int bi = 0; bi < n; bi++) {
            SealedBlocks.Block blk = blocks.get(bi);
            EventBatch d = blocks.decodeOnce(bi, reader);
            ooc.chunk(bi);
            eff = ooc.add(d, 0, d.size(), eff);
            ooc.flush();
            byte[] packed = blk.packed();
            int raw = blk.rawBytes();
            int layout = blk.layout();
            if (withSites) { // the side columns' sites go into the block, so the columns can go
                siteColumns.put(d, 0, blk.firstIndex());
                ChunkCodec.Packed p = packer.pack(List.of(), d, 0, d.size());
                packed = p.bytes();
                raw = p.rawBytes();
                layout = ChunkCodec.VERSION;
            }
            try {
                blocks.spill(bi, packed, raw, layout, withSites);
            } catch (IOException e) {
                // nothing is lost: blocks already spilled read back from the file, the rest stay in memory, and
                // the side columns stay until every block carries its sites
                spillProblem = "spill file " + file.path() + ": " + e.getMessage() + " (the store stays in memory)";
                spillPast = 0;
                return;
            }
        }
        indexes = ooc;
        siteColumns = new SiteColumns();
        spilledSites = withSites;
        spillCodec = packer;
        leafCache = new ChunkCache(Math.min(LEAF_CACHE_BYTES, Math.max(1L << 20, spillPast / 4)));
        spilled = true;
    }

    /**
     * Leaves of a memory over the session's span at most, for a spilled store, whose bound on a leaf's
     * time doubles as the session grows (so it lies between 1/16,384 and 1/8,192 of the span so far):
     * still under a quarter of a bucket of a whole-session frame 1,600 buckets wide, so such a frame
     * reads no block, while each doubling adds at most this many leaves a memory.
     */
    static final long SPILLED_SPAN_LEAVES = OutOfCoreStore.SPAN_LEAVES / 2;

    /** A spilled store's gauge leaves may span a longer time as the session grows (see {@link #SPILLED_SPAN_LEAVES}). */
    private void lengthenLeaves() {
        long wanted = (lastEff - firstTime) / SPILLED_SPAN_LEAVES;
        if (wanted >= 2 * indexes.leafSpan()) {
            indexes.leafSpan(wanted);
        }
    }

    /** A spilled store's block {@code bi} as its out-of-core gauge leaves read it: the open block's made afresh, sealed ones cached. */
    private ChunkGauges leafGauges(int bi) {
        if (bi == blocks.size()) {
            return new ChunkGauges(tail, blocks.isEmpty() ? Long.MIN_VALUE : blocks.last().lastEff());
        }
        ChunkCache.Entry e = leafCache.get(bi);
        if (e == null) {
            e = leafCache.put(bi, new ChunkCache.Entry(blocks.decoded(bi)));
        }
        ChunkGauges g = e.gauges;
        if (g == null) {
            g = new ChunkGauges(e.events, bi == 0 ? Long.MIN_VALUE : blocks.get(bi - 1).lastEff());
            e.gauges = g;
            leafCache.grew(e, g.bytes());
        }
        return g;
    }

    /** Whether the store has gone out of core (its sealed blocks in a spill file). */
    public boolean spilled() {
        try (var held = lock.read()) {
            return spilled;
        }
    }

    /** Bytes of packed blocks in the spill file (0 before the store spills). */
    public long spilledBytes() {
        try (var held = lock.read()) {
            return blocks.spilledBytes();
        }
    }

    /** Why the store could not spill (it then stays in memory), or null. */
    public String spillProblem() {
        try (var held = lock.read()) {
            return spillProblem;
        }
    }

    /**
     * For a spilled store, whether gauge queries read every partly covered leaf from its block (see
     * {@link OutOfCoreStore#exactGauges}); an in-memory store's answers are exact either way.
     */
    public void exactGauges(boolean on) {
        exactGauges = on;
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
        try (var held = lock.read()) {
            GaugeIndex g = indexes.gauge(memory);
            GaugeQuery q = g == null ? null
                    : spilled ? new GaugeQuery(g, leaves, memory).exact(exactGauges) : new GaugeQuery(g);
            return GaugeQuery.series(q, fromNs, toNs, buckets);
        }
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
            if (leafCache != null) {
                n += leafCache.bytes();
            }
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
