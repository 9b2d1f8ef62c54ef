package dev.arenascope.core.trace.file;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.SessionInfo;
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
 * killed loses nothing. Methods are synchronized for that. I/O failures surface as
 * {@link UncheckedIOException} from the sink methods (a session detaches and logs such a sink).
 */
public final class AstraceWriter implements EventSink, AutoCloseable {
    /** Events per chunk. */
    public static final int CHUNK_EVENTS = 1 << 16;
    /** The longest a chunk stays in memory before it is written, in ns of wall time. */
    public static final long MAX_CHUNK_AGE_NS = 1_000_000_000L;

    private final Path path;
    private final OutputStream out;
    private final ChunkCodec codec;
    /** Encoded payloads' buffers, back from the compressing workers. */
    private final ArrayDeque<ByteWriter> spare = new ArrayDeque<>();
    private final ExecutorService pool;
    private final ThreadLocal<ChunkCodec> codecs = ThreadLocal.withInitial(ChunkCodec::new);
    private final ArrayDeque<Future<Encoded>> inFlight = new ArrayDeque<>();
    private final int maxInFlight;
    private final List<MetaRecord> meta = new ArrayList<>();
    private final ByteWriter index = new ByteWriter();
    private SessionInfo session = new SessionInfo("", "", 0, List.of(), java.util.Map.of());
    private boolean headerWritten;
    private boolean closed;
    private long position;
    private long lastChunkOffset;
    private int chunks;
    private long events;
    private long lost;
    private long pendingSince;

    public AstraceWriter(Path path) throws IOException {
        this(path, ChunkCodec.DEFAULT_LEVEL);
    }

    /** @param level zstd level (1 is the default: fast; 3 to 9 trade write speed for size) */
    public AstraceWriter(Path path, int level) throws IOException {
        this.path = path;
        this.out = new BufferedOutputStream(Files.newOutputStream(path), 1 << 20);
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
        if (closed || codec.openEvents() == 0 || System.nanoTime() - pendingSince <= MAX_CHUNK_AGE_NS) {
            return;
        }
        try {
            flushPending();
            drainInFlight();
            out.flush();
        } catch (IOException | RuntimeException e) {
            failure = e; // reported by the next call from the session
        }
    }

    private volatile Exception failure;

    private void rethrowAgerFailure() {
        Exception e = failure;
        if (e != null) {
            failure = null;
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(),
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    private final int level;

    /** An encoded frame and what the footer index needs of it. */
    private record Encoded(byte[] frame, int events, long first, long last, ByteWriter recycle) {}

    public Path path() {
        return path;
    }

    /** Events written to the file so far. */
    public long events() {
        return events;
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
    public synchronized void onLoss(long count) {
        lost += count;
        meta.add(new MetaRecord.Loss(count));
    }

    @Override
    public synchronized void onEvents(EventBatch batch) {
        rethrowAgerFailure();
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
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    /** Writes what is pending as a chunk and flushes the file (a crash after this loses nothing before it). */
    public synchronized void flush() {
        try {
            ensureHeader();
            if (codec.openEvents() > 0 || !meta.isEmpty()) {
                flushPending();
            }
            drainInFlight();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    private void ensureHeader() throws IOException {
        if (headerWritten) {
            return;
        }
        ByteWriter body = new ByteWriter(4096);
        MetaCodec.encodeSession(session, body);
        body.varint(meta.size());
        for (MetaRecord m : meta) {
            MetaCodec.encodeMeta(m, body);
        }
        meta.clear();
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
        out.write(h.array(), 0, h.size());
        position += h.size();
        headerWritten = true;
    }

    /**
     * Closes the open chunk (its events and the metadata that came before them) and writes it: the
     * columns were encoded on the calling thread as the events came; when there are spare cores a
     * worker compresses them, and finished chunks are written in order.
     */
    private void flushPending() throws IOException {
        List<MetaRecord> m = List.copyOf(meta);
        meta.clear();
        int n = codec.openEvents();
        long first = codec.openFirstTime();
        long last = codec.openLastTime();
        ByteWriter payload = spare.isEmpty() ? new ByteWriter(1 << 20) : spare.poll();
        payload.clear();
        codec.finishPayload(m, payload);
        if (pool == null) {
            write(new Encoded(codec.compressFrame(payload, n, first, last), n, first, last, payload));
            return;
        }
        while (inFlight.size() >= maxInFlight) {
            write(await(inFlight.poll()));
        }
        inFlight.add(pool.submit(() -> new Encoded(compressor().compressFrame(payload, n, first, last), n, first, last, payload)));
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
        long offset = position;
        out.write(e.frame());
        position += e.frame().length;
        events += e.events();
        chunks++;
        index.varint(offset - lastChunkOffset);
        index.varint(e.events());
        index.svarint(e.first());
        index.svarint(e.last());
        lastChunkOffset = offset;
        if (e.recycle() != null && spare.size() < maxInFlight + 1) {
            spare.add(e.recycle());
        }
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
        try {
            ensureHeader();
            if (codec.openEvents() > 0 || !meta.isEmpty()) {
                flushPending();
            }
            drainInFlight();
            ByteWriter body = new ByteWriter(index.size() + 32);
            body.varint(chunks);
            body.bytes(index.array(), 0, index.size());
            body.varint(events);
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
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        } finally {
            codec.close();
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }

    /** Same as {@link #onClose()}. */
    @Override
    public void close() {
        onClose();
    }
}
