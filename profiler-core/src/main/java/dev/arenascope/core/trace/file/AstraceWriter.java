package dev.arenascope.core.trace.file;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.zip.CRC32C;

import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SinkAttachment;
import dev.arenascope.core.trace.SinkOwner;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.codec.MetaCodec;

/**
 * Records a session into an {@code .astrace} file: attach it with {@code session.addSink(new
 * AstraceWriter(path))}, or feed it from a reader or a store. Events are gathered into chunks of up to
 * {@link #CHUNK_EVENTS} and written at least every {@link #MAX_CHUNK_AGE_NS} of wall time, so a
 * recording that is killed loses at most its last second. {@link #onClose()} writes the footer index.
 * The calling thread encodes events onto the open chunk's columns as batches come (nothing of a batch is
 * kept after the call); when the machine has two cores or more, up to four other threads (one for each
 * core beyond the caller's) compress finished chunks, and the calling thread writes them in order.
 *
 * <p>Called from one thread at a time (the {@link EventSink} contract); a shared daemon thread also
 * writes a chunk that has waited a second while no events came, so an idle recording that is then
 * killed loses nothing. Methods are synchronized for that.
 *
 * <p><b>Ownership.</b> The creator closes the writer. {@link #close()} while attached to a session asks
 * the session to deliver what it still buffers first (see {@link SinkOwner}), so closing the writer before
 * its session loses nothing; events handed to it after it closed are counted in {@link #lostEvents()}.
 *
 * <p><b>Write failures</b> (a full disk, a removed device): the first one stops the writing; the events
 * not yet in a whole chunk on disk and every later one are counted as lost (the sink stays attached to
 * count them), and {@link #close()} then throws a {@link WriteFailedException}
 * saying how many events the file holds and how many were lost. The file stays readable to its last whole
 * chunk (readers recover without the footer). Each chunk is flushed to the operating system as it is
 * written, so {@link #eventsOnDisk()} is exact.
 *
 * <p><b>A ring of chunks</b> ({@link #AstraceWriter(Path, int, RingCap)}): a writer given a {@link RingCap}
 * keeps the file under a size and/or a span of session time by dropping the oldest chunks whole. When
 * the next chunk would pass the cap it writes a new file beside the old one ({@code FILE.ring-tmp}): a
 * header holding every memory, string, thread and site the dropped chunks declared and the counts of
 * what was dropped (session attributes, {@link RingWindow}), a first chunk that re-opens each memory
 * still open at the cut with its gauges then, and the kept chunks copied byte for byte; it forces that
 * file to disk and renames it over the old one in one step. So the path always names a whole, readable
 * trace (the old one until the rename, the new one after), after a crash too. A reader that had the
 * old file open reads it to its end; the next open sees the new one. The rewrite runs on the calling
 * thread and copies up to {@value RingCap#KEEP_PERCENT}% of the cap; it needs that much free disk
 * besides the file while it runs.
 *
 * <p>While it writes, the writer leaves a note beside the file ({@link WriterNote}: {@code FILE.writing},
 * naming this process) so that readers know the file is still being written rather than cut short; it
 * removes the note when it closes.
 */
public final class AstraceWriter implements EventSink, AutoCloseable {
    /** Events per chunk. */
    public static final int CHUNK_EVENTS = 1 << 16;
    /** The longest a chunk stays in memory before it is written, in ns of wall time. */
    public static final long MAX_CHUNK_AGE_NS = 1_000_000_000L;

    private final Path path;
    private OutputStream out;
    private final ChunkCodec codec;
    /** Encoded payloads' buffers, back from the compressing workers. */
    private final ArrayDeque<ByteWriter> spare = new ArrayDeque<>();
    private final ExecutorService pool;
    private final ThreadLocal<ChunkCodec> codecs = ThreadLocal.withInitial(ChunkCodec::new);
    private final ArrayDeque<Future<Encoded>> inFlight = new ArrayDeque<>();
    private final int maxInFlight;
    private final List<MetaRecord> meta = new ArrayList<>();
    /**
     * The site table a producer interns into instead of announcing frames and nodes ({@link #sharedSites}),
     * or null: what it made since the last chunk goes into the next chunk's metadata, so the producer
     * keeps no second trie and no frame or node travels as an object of its own to this writer.
     */
    private SiteTable sharedSites;
    /** Whether a frame or node was announced (then no table is shared). */
    private boolean sitesAnnounced;
    private final ByteWriter index = new ByteWriter();
    private SessionInfo session = new SessionInfo("", "", 0, List.of(), Map.of());
    /** The ring's bookkeeping, null when the file is not capped. */
    private final ChunkRing ring;
    /** The note that says this file is being written, null when the writer was given a stream. */
    private final WriterNote note;
    /** Bytes of the header as written (the file's data starts there). */
    private long headerBytes;
    /** Events in the file as it is now: all written, or in a ring, the kept ones and the carried gauges. */
    private long fileEvents;
    private boolean headerWritten;
    private boolean closed;
    private long position;
    private long lastChunkOffset;
    private int chunks;
    private long events;
    private long lost;
    private long pendingSince;
    /** Events taken into chunks (open, compressing or on disk). */
    private long accepted;
    /** Events handed after close or lost to a write failure. */
    private long lostHere;
    /** The first write failure, or null. */
    private IOException writeFailure;
    private final SinkAttachment attachment = new SinkAttachment();

    /**
     * Creates (or replaces) {@code path} and writes at the default zstd level. The caller owns the writer:
     * attach it with {@code session.addSink(writer)} and close it (before or after the session).
     *
     * @throws IOException when the file cannot be created
     */
    public AstraceWriter(Path path) throws IOException {
        this(path, ChunkCodec.DEFAULT_LEVEL);
    }

    /**
     * Creates (or replaces) {@code path}.
     *
     * @param path  the file
     * @param level zstd level (1 is the default: fast; 3 to 9 trade write speed for size)
     * @throws IOException when the file cannot be created
     */
    public AstraceWriter(Path path, int level) throws IOException {
        this(path, level, null);
    }

    /**
     * Creates (or replaces) {@code path}, keeping it within {@code cap} (see the class comment), or
     * unbounded when {@code cap} is null.
     *
     * @param path  the file
     * @param level zstd level (1 is the default)
     * @param cap   the ring cap, or null for none
     * @throws IOException when the file cannot be created
     */
    public AstraceWriter(Path path, int level, RingCap cap) throws IOException {
        this(path, Files.newOutputStream(path), level, cap, WriterNote.create(path));
        Files.deleteIfExists(ringTemp(path)); // a rewrite a crash left half done
    }

    /** Writes to {@code target} (which this writer closes), naming it {@code path} in messages: for tests of failing disks. */
    AstraceWriter(Path path, OutputStream target, int level) {
        this(path, target, level, null, null);
    }

    private AstraceWriter(Path path, OutputStream target, int level, RingCap cap, WriterNote note) {
        this.path = path;
        this.ring = cap == null ? null : new ChunkRing(cap);
        this.note = note;
        this.out = new BufferedOutputStream(target, 1 << 20);
        this.codec = new ChunkCodec(level);
        this.level = level;
        // the calling thread encodes (about 30 ns an event) and writes; compressing (about 40) is the
        // rest: one worker for each core beyond the caller's keeps one thread a core (two workers on
        // two cores measured slower: the encoding caller, on the critical path, then shares a core)
        int cores = Runtime.getRuntime().availableProcessors();
        int workers = cores < 2 ? 0 : Math.min(4, cores - 1);
        this.pool = workers <= 0 ? null
                : Executors.newFixedThreadPool(workers, Thread.ofPlatform().daemon().name("astrace-encode-", 0).factory());
        this.maxInFlight = Math.max(4, workers * 2);
        this.ager = AGER.scheduleWithFixedDelay(this::flushIfStale, 250, 250, TimeUnit.MILLISECONDS);
    }

    /** One daemon thread for every writer: writes chunks that waited too long while no events came. */
    private static final ScheduledExecutorService AGER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("astrace-age").factory());
    private final ScheduledFuture<?> ager;

    private synchronized void flushIfStale() {
        if (closed || writeFailure != null || codec.openEvents() == 0 || System.nanoTime() - pendingSince <= MAX_CHUNK_AGE_NS) {
            return;
        }
        try {
            flushPending();
            drainInFlight();
            out.flush();
        } catch (IOException e) {
            failed(e);
        } catch (RuntimeException e) {
            failed(new IOException(e));
        }
    }

    /** The first write failure: what is not on disk yet becomes lost, and nothing more is written. */
    private void failed(IOException e) {
        if (writeFailure != null) {
            return;
        }
        writeFailure = e;
        lostHere += accepted - events;
        accepted = events;
        for (Future<Encoded> f : inFlight) {
            f.cancel(true);
        }
        inFlight.clear();
    }

    /**
     * What {@link #close()} throws after a write failure: how many events the file holds and how many were
     * lost. The file is readable to its last whole chunk.
     */
    public static final class WriteFailedException extends UncheckedIOException {
        private final long written;
        private final long lost;

        WriteFailedException(Path path, long written, long lost, IOException cause) {
            super("cannot write " + path + ": " + reason(cause) + "; " + written + " events written, " + lost
                    + " lost; the file is readable to its last whole chunk", cause);
            this.written = written;
            this.lost = lost;
        }

        /** Events in whole chunks on disk. */
        public long written() {
            return written;
        }

        /** Events that did not reach the file (including those lost before it, by the session). */
        public long lost() {
            return lost;
        }

        private static String reason(IOException e) {
            String m = e.getMessage();
            return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
        }
    }

    private final int level;

    /**
     * An encoded frame and what the footer index needs of it; for a ring, the metadata it carries and the
     * gauges at its end.
     */
    private record Encoded(byte[] frame, int events, long first, long last, ByteWriter recycle, List<MetaRecord> meta,
                           List<ChunkRing.Gauge> gauges) {}

    /** The file this writer writes. */
    public Path path() {
        return path;
    }

    /**
     * Events this writer has taken so far (in whole chunks on disk, or in chunks still being compressed or
     * filled, which {@link #flush()} and {@link #close()} write); after a write failure, those on disk.
     */
    public synchronized long events() {
        return accepted;
    }

    /** Events in whole chunks already written to the file (what a reader would find if the process died now). */
    public synchronized long eventsOnDisk() {
        return events;
    }

    /**
     * Events that did not get into the file: those the session lost before they reached this writer
     * ({@link #onLoss}), those lost to a write failure, and those handed to it after it closed.
     */
    public synchronized long lostEvents() {
        return Saturating.add(lost, lostHere);
    }

    /** The first write failure (the file holds {@link #eventsOnDisk()} events), or null. */
    public synchronized IOException writeFailure() {
        return writeFailure;
    }

    @Override
    public void onAttach(SinkOwner owner) {
        attachment.attach(owner);
    }

    /** Bytes written to the file so far. */
    public long bytesWritten() {
        return position;
    }

    @Override
    public synchronized void onSession(SessionInfo info) {
        session = info;
    }

    @Override
    public synchronized void onMemory(MemoryInfo memory) {
        meta.add(new MetaRecord.Memory(memory));
        if (ring != null) {
            ring.declare(memory);
        }
    }

    @Override
    public synchronized void onString(int id, String value) {
        meta.add(new MetaRecord.Str(id, value));
    }

    @Override
    public synchronized void onThread(int id, String name) {
        meta.add(new MetaRecord.Thread(id, name));
    }

    @Override
    public synchronized void onFrame(StackFrame frame) {
        refuseAnnouncedSites();
        meta.add(new MetaRecord.Frame(frame));
    }

    @Override
    public synchronized void onStack(StackNode node) {
        refuseAnnouncedSites();
        meta.add(new MetaRecord.Stack(node));
    }

    private void refuseAnnouncedSites() {
        if (sharedSites != null) {
            throw new IllegalStateException(path + ": a frame or stack node announced to a writer whose site table a producer interns into");
        }
        sitesAnnounced = true;
    }

    /**
     * A site table for a producer to intern into instead of announcing frames and nodes (see
     * {@link EventSink#sharedSites}), while none was announced and the file is not a ring (a ring's
     * header carries every site its dropped chunks declared, which it learns from announced records).
     * Each chunk's metadata then holds the frames and nodes the table gained since the one before, frames
     * first, so they precede the events that name them (the producer interns a site before handing over
     * its events). A frame or node announced afterwards is refused ({@link IllegalStateException}).
     */
    @Override
    public synchronized SiteTable sharedSites() {
        if (ring != null || sitesAnnounced || headerWritten) {
            return null;
        }
        if (sharedSites == null) {
            sharedSites = new SiteTable();
        }
        return sharedSites.frameCount() == 0 && sharedSites.nodeCount() == 0 ? sharedSites : null;
    }

    /** Whether a producer interned sites into the table {@link #sharedSites} gave it (tests). */
    synchronized boolean sitesInterned() {
        return sharedSites != null && sharedSites.frameCount() > 0;
    }

    /** Moves the frames and nodes the shared table gained since the last call into the pending metadata. */
    private void takeSharedSites() {
        if (sharedSites == null || !sharedSites.hasUnannounced()) {
            return;
        }
        SiteTable.Delta d = sharedSites.takeNew();
        for (StackFrame f : d.frames()) {
            meta.add(new MetaRecord.Frame(f));
        }
        for (StackNode n : d.nodes()) {
            meta.add(new MetaRecord.Stack(n));
        }
    }

    @Override
    public synchronized void onLoss(long count) {
        lost = Saturating.add(lost, count);
        meta.add(new MetaRecord.Loss(count));
    }

    @Override
    public synchronized void onEvents(EventBatch batch) {
        if (closed || writeFailure != null) {
            if (closed && writeFailure == null && lostHere == 0) {
                Logger.getLogger(AstraceWriter.class.getName()).warning("events were handed to " + path
                        + " after it was closed: they are counted as lost (said once)");
            }
            lostHere += batch.size();
            return;
        }
        accepted += batch.size();
        try {
            ensureHeader();
            // events are encoded onto the open chunk as they come: nothing of the caller's batch is kept
            int n = batch.size();
            for (int i = 0; i < n; ) {
                if (codec.openEvents() == 0) {
                    pendingSince = System.nanoTime();
                }
                int take = Math.min(n - i, CHUNK_EVENTS - codec.openEvents());
                codec.appendEvents(batch, i, i + take);
                if (ring != null) {
                    ring.track(batch, i, i + take);
                }
                i += take;
                if (codec.openEvents() == CHUNK_EVENTS) {
                    flushPending();
                }
            }
            if (codec.openEvents() > 0 && System.nanoTime() - pendingSince > MAX_CHUNK_AGE_NS) {
                flushPending();
                drainInFlight();
                out.flush();
            }
        } catch (IOException e) {
            failed(e);
        }
    }

    /**
     * Writes what is pending as a chunk and flushes the file (a crash after this loses nothing before it).
     * Does nothing after a write failure or close.
     */
    public synchronized void flush() {
        if (closed || writeFailure != null) {
            return;
        }
        try {
            ensureHeader();
            takeSharedSites();
            if (codec.openEvents() > 0 || !meta.isEmpty()) {
                flushPending();
            }
            drainInFlight();
            out.flush();
        } catch (IOException e) {
            failed(e);
        }
    }

    private void ensureHeader() throws IOException {
        if (headerWritten) {
            return;
        }
        takeSharedSites();
        if (ring != null) {
            ring.header(meta);
        }
        ByteWriter h = header(session, meta);
        meta.clear();
        out.write(h.array(), 0, h.size());
        position += h.size();
        headerBytes = h.size();
        headerWritten = true;
    }

    /** The header for {@code info} and {@code records}; in a ring, the session's attributes say what was dropped. */
    private ByteWriter header(SessionInfo info, List<MetaRecord> records) {
        if (ring != null) {
            info = new SessionInfo(info.name(), info.host(), info.startEpochNs(), info.devices(), ring.window().into(info.attributes()));
        }
        ByteWriter body = new ByteWriter(4096);
        MetaCodec.encodeSession(info, body);
        body.varint(records.size());
        for (MetaRecord m : records) {
            MetaCodec.encodeMeta(m, body);
        }
        ByteWriter h = new ByteWriter(AstraceFormat.HEADER_FIXED + body.size());
        h.bytes(AstraceFormat.MAGIC, 0, AstraceFormat.MAGIC.length);
        h.u8(AstraceFormat.VERSION);
        h.u8(AstraceFormat.VERSION >>> 8);
        h.u8(0);
        h.u8(0);
        h.u32(body.size());
        CRC32C crc = new CRC32C();
        crc.update(body.array(), 0, body.size());
        h.u32((int) crc.getValue());
        h.bytes(body.array(), 0, body.size());
        return h;
    }

    /**
     * Closes the open chunk (its events and the metadata that came before them) and writes it: the
     * columns were encoded on the calling thread as the events came; when there are spare cores a
     * worker compresses them, and finished chunks are written in order.
     */
    private void flushPending() throws IOException {
        takeSharedSites();
        List<MetaRecord> m = List.copyOf(meta);
        meta.clear();
        int n = codec.openEvents();
        long first = codec.openFirstTime();
        long last = codec.openLastTime();
        ByteWriter payload = spare.isEmpty() ? new ByteWriter(1 << 20) : spare.poll();
        payload.clear();
        codec.finishPayload(m, payload);
        List<ChunkRing.Gauge> gauges = ring == null ? List.of() : ring.seal();
        if (pool == null) {
            write(new Encoded(codec.compressFrame(payload, n, first, last), n, first, last, payload, m, gauges));
            return;
        }
        while (inFlight.size() >= maxInFlight) {
            write(await(inFlight.poll()));
        }
        inFlight.add(pool.submit(() -> new Encoded(compressor().compressFrame(payload, n, first, last), n, first, last, payload, m, gauges)));
        while (!inFlight.isEmpty() && inFlight.peek().isDone()) {
            write(await(inFlight.poll()));
        }
    }

    /** This worker's codec, at the writer's level. */
    private ChunkCodec compressor() {
        ChunkCodec cc = codecs.get();
        if (cc.level() != level) {
            cc = new ChunkCodec(level);
            codecs.set(cc);
        }
        return cc;
    }

    private Encoded await(Future<Encoded> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing " + path, e);
        } catch (ExecutionException e) {
            throw new IOException("encoding a chunk of " + path + " failed: " + e.getCause(), e.getCause());
        }
    }

    private void write(Encoded e) throws IOException {
        if (ring != null) {
            int drop = ring.toDrop(position, headerBytes, e.frame().length, e.last());
            if (drop > 0) {
                rewrite(drop, e.events() > 0 ? e.first() : 0);
            }
        }
        long offset = position;
        out.write(e.frame());
        out.flush(); // a whole chunk handed to the system: eventsOnDisk stays exact when the disk fills
        position += e.frame().length;
        events += e.events();
        fileEvents += e.events();
        indexChunk(offset, e.events(), e.first(), e.last());
        if (ring != null) {
            ring.log.add(new ChunkRing.Logged(offset, e.frame().length, e.events(), e.first(), e.last(), e.meta(),
                    ChunkRing.metaBytes(e.meta()), e.gauges(), false));
        }
        if (e.recycle() != null && spare.size() < maxInFlight + 1) {
            spare.add(e.recycle());
        }
    }

    private void indexChunk(long offset, int n, long first, long last) {
        chunks++;
        index.varint(offset - lastChunkOffset);
        index.varint(n);
        index.svarint(first);
        index.svarint(last);
        lastChunkOffset = offset;
    }

    /** Where a ring writes the file that replaces its own. */
    static Path ringTemp(Path path) {
        return path.resolveSibling(path.getFileName() + ".ring-tmp");
    }

    /**
     * Drops the {@code drop} oldest chunks: writes the replacement beside the file (header with the carried
     * metadata, the carried gauges, the kept chunks' bytes), forces it to disk, renames it over the file
     * and goes on appending to it.
     */
    private void rewrite(int drop, long nextFirst) throws IOException {
        long keepFrom = drop < ring.log.size() ? ring.log.get(drop).offset() : position;
        ring.drop(drop, nextFirst);
        Path tmp = ringTemp(path);
        ByteWriter h = header(session, ring.headerMeta());
        EventBatch carried = ring.carryEvents();
        byte[] carryFrame = null;
        if (carried.size() > 0) {
            try (ChunkCodec cc = new ChunkCodec(level)) {
                carryFrame = cc.encodeFrame(List.of(), carried, 0, carried.size());
            }
        }
        List<ChunkRing.Logged> kept = List.copyOf(ring.log);
        long newPosition;
        try (FileChannel to = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
             FileChannel from = FileChannel.open(path, StandardOpenOption.READ)) {
            writeFully(to, h.array(), h.size());
            if (carryFrame != null) {
                writeFully(to, carryFrame, carryFrame.length);
            }
            long at = keepFrom;
            while (at < position) {
                long n = from.transferTo(at, position - at, to);
                if (n <= 0) {
                    throw new IOException("could not copy the kept chunks of " + path + " (stopped at byte " + at + ")");
                }
                at += n;
            }
            to.force(true); // on disk before the rename: the name never points at a file still in the cache
            newPosition = to.position();
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        out.close();
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        out = new BufferedOutputStream(Files.newOutputStream(path, StandardOpenOption.WRITE, StandardOpenOption.APPEND), 1 << 20);
        // the footer index and the ring's log, at the new offsets
        headerBytes = h.size();
        index.clear();
        chunks = 0;
        lastChunkOffset = 0;
        fileEvents = 0;
        ring.log.clear();
        long offset = headerBytes;
        if (carryFrame != null) {
            indexChunk(offset, carried.size(), carried.time(0), carried.time(0));
            ring.log.add(new ChunkRing.Logged(offset, carryFrame.length, carried.size(), carried.time(0), carried.time(0),
                    List.of(), 0, ring.carryGauges(), true));
            fileEvents += carried.size();
            offset += carryFrame.length;
        }
        long shift = offset - keepFrom;
        for (ChunkRing.Logged l : kept) {
            indexChunk(l.offset() + shift, l.events(), l.first(), l.last());
            ring.log.add(l.at(l.offset() + shift));
            fileEvents += l.events();
        }
        position = newPosition;
    }

    private static void writeFully(FileChannel ch, byte[] b, int n) throws IOException {
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b, 0, n);
        while (bb.hasRemaining()) {
            ch.write(bb);
        }
    }

    /** What this writer's file kept and dropped, or null when it is not capped. */
    public synchronized RingWindow ringWindow() {
        return ring == null ? null : ring.window();
    }

    private void drainInFlight() throws IOException {
        while (!inFlight.isEmpty()) {
            write(await(inFlight.poll()));
        }
    }

    @Override
    public synchronized void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        ager.cancel(false);
        if (writeFailure != null) {
            try {
                out.close();
            } catch (IOException ignored) {
                // already failed: the first failure is the one reported
            } finally {
                codec.close();
                if (pool != null) {
                    pool.shutdownNow();
                }
            }
            removeNote();
            throw new WriteFailedException(path, events, Saturating.add(lost, lostHere), writeFailure);
        }
        try {
            ensureHeader();
            takeSharedSites();
            if (codec.openEvents() > 0 || !meta.isEmpty()) {
                flushPending();
            }
            drainInFlight();
            ByteWriter body = new ByteWriter(index.size() + 32);
            body.varint(chunks);
            body.bytes(index.array(), 0, index.size());
            body.varint(fileEvents);
            body.varint(lost);
            CRC32C crc = new CRC32C();
            crc.update(body.array(), 0, body.size());
            ByteWriter f = new ByteWriter(body.size() + 40);
            f.u32(AstraceFormat.FOOTER_MAGIC);
            f.u32(body.size());
            f.u32((int) crc.getValue());
            f.bytes(body.array(), 0, body.size());
            long footerOffset = position;
            f.i64(footerOffset);
            f.u32(AstraceFormat.FOOTER_FIXED + body.size());
            f.u32(AstraceFormat.TRAILER_MAGIC);
            out.write(f.array(), 0, f.size());
            position += f.size();
            out.close();
        } catch (IOException e) {
            writeFailure = e;
            lostHere += accepted - events;
            accepted = events;
            try {
                out.close();
            } catch (IOException ignored) {
                // the first failure is the one reported
            }
            throw new WriteFailedException(path, events, Saturating.add(lost, lostHere), e);
        } finally {
            codec.close();
            if (pool != null) {
                pool.shutdownNow();
            }
            removeNote();
        }
    }

    private void removeNote() {
        if (note != null) {
            note.remove();
        }
    }

    /**
     * Closes the file: when still attached to a session, the session first delivers what it buffers and
     * detaches this writer ({@link SinkOwner#detach()}); then the last chunk and the footer are written.
     * Safe to call more than once and in any order with the session's close. Not to be called while
     * holding this writer's lock.
     *
     * @throws WriteFailedException after a write failure (the first close only)
     */
    @Override
    public void close() {
        attachment.detach(); // delivers, then calls onClose
        onClose();
    }
}
