package dev.arenascope.core.trace.codec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.TraceFormatException;

/**
 * The chunk encoding shared by {@code .astrace} files, the in-memory store and the live wire: a run of
 * events with the metadata records that arrived with them, compressed with zstd and framed with a
 * CRC32C and the chunk's time range. This class is the package's entry point; the parts live beside
 * it: {@link FrameHeader} (the 36-byte frame header), {@link Compression} (zstd), {@link MetaCodec}
 * (metadata and session records), {@link EventEncoder} / {@link EventDecoder} (the event columns of
 * each {@link EventLayout}). {@code docs/astrace-format.md} specifies the bytes.
 *
 * <pre>
 *   frame   = header (36 bytes, {@link FrameHeader}) + zstd(payload)
 *   payload = varint metadata bytes, [varint record count, records ({@link MetaCodec})], events block
 *   events  = varint count, layout-specific tables, one varint length a column, the columns ({@link EventLayout})
 * </pre>
 * Frames are independent: each one decodes without any other, so a reader resumes at any frame and a
 * file cut short loses only its last, partial frame.
 *
 * <p>Bad input: every length is checked against {@link #MAX_RAW_BYTES}, {@link #MAX_EVENTS} and the bytes
 * actually present before anything is allocated, and what chunks claim to decompress to against a
 * {@link DecodeBudget}; any inconsistency throws {@link TraceFormatException}
 * naming the source and byte offset. Not thread-safe: one codec per thread (it reuses buffers and
 * zstd contexts). Call {@link #close()} to free the native contexts early (they are also freed by GC).
 */
public final class ChunkCodec implements AutoCloseable {
    /** "ASCK" little-endian: the first four bytes of every frame. */
    public static final int FRAME_MAGIC = FrameHeader.MAGIC;
    public static final int FRAME_HEADER_BYTES = FrameHeader.BYTES;
    /** The most events one chunk may hold. */
    public static final int MAX_EVENTS = 1 << 20;
    /** The most bytes a chunk's payload may take, compressed or not. */
    public static final int MAX_RAW_BYTES = 128 << 20;
    /** The zstd level writers use: fast enough for 20 M events/s on one core. */
    public static final int DEFAULT_LEVEL = 1;
    /** The event layout written ({@link EventLayout#CURRENT}); it equals the {@code .astrace} format version. */
    public static final int VERSION = EventLayout.CURRENT.version();

    private final int level;
    private final EventLayout layout;
    private final ByteWriter metaBuf = new ByteWriter(256);
    private final ByteWriter raw = new ByteWriter(1 << 16);
    private final ByteWriter frame = new ByteWriter(1 << 16);
    private final CRC32C crc = new CRC32C();
    private final Compression zstd;
    private final EventEncoder encoder = new EventEncoder();
    private final EventDecoder decoder = new EventDecoder();
    private final DecodeBudget streamBudget = new DecodeBudget();

    public ChunkCodec() {
        this(DEFAULT_LEVEL);
    }

    /** @param level zstd compression level for encoding (1 fast .. 19 small; negative: faster still) */
    public ChunkCodec(int level) {
        this(level, VERSION);
    }

    /**
     * @param level   zstd compression level for encoding (1 fast .. 19 small; negative: faster still)
     * @param version the event layout this codec decodes by default ({@link #VERSION}, or an older one
     *                for files of that format version); it always encodes {@link #VERSION}
     * @throws IllegalArgumentException for a layout this build does not know
     */
    public ChunkCodec(int level, int version) {
        this.layout = EventLayout.of(version);
        this.level = level;
        this.zstd = new Compression(level);
        encoder.begin();
    }

    /**
     * Whether encoded events carry their sites and categories (default yes). A store that keeps them
     * beside its blocks turns it off, so its blocks do not hold them twice.
     */
    public ChunkCodec writeSites(boolean on) {
        encoder.writeSites(on);
        return this;
    }

    /** The event layout this codec decodes by default. */
    public int version() {
        return layout.version();
    }

    /** The zstd level this codec encodes with. */
    public int level() {
        return level;
    }

    // ---------------------------------------------------------------- frames

    /**
     * One decoded chunk.
     *
     * @param meta        metadata records, in the order they arrived (all precede the events)
     * @param events      the events, in stored order
     * @param firstTimeNs time of the first event (0 when there are none)
     * @param lastTimeNs  the largest event time (0 when there are none)
     * @param payload     the compressed payload exactly as framed (a store may keep it as is)
     * @param rawBytes    the payload's uncompressed size
     * @param frameBytes  the frame's size including its header
     * @param version     the event layout of the payload (see {@link #VERSION})
     */
    public record Chunk(List<MetaRecord> meta, EventBatch events, long firstTimeNs, long lastTimeNs,
                        byte[] payload, int rawBytes, int frameBytes, int version) {}

    /**
     * Encodes metadata and events {@code [from, to)} of {@code batch} as one frame and writes it.
     *
     * @return bytes written
     */
    public int writeFrame(OutputStream out, List<MetaRecord> meta, EventBatch batch, int from, int to) throws IOException {
        encodeFrameInto(meta, batch, from, to);
        out.write(frame.array(), 0, frame.size());
        return frame.size();
    }

    /** Encodes metadata and events {@code [from, to)} of {@code batch} as one frame. */
    public byte[] encodeFrame(List<MetaRecord> meta, EventBatch batch, int from, int to) {
        encodeFrameInto(meta, batch, from, to);
        return frame.toByteArray();
    }

    private void encodeFrameInto(List<MetaRecord> meta, EventBatch batch, int from, int to) {
        int n = to - from;
        checkEventCount(n);
        raw.clear();
        encodePayload(meta, batch, from, to, raw);
        frameInto(raw, n, firstTime(batch, from, to), lastTime(batch, from, to));
    }

    private static void checkEventCount(int n) {
        if (n < 0 || n > MAX_EVENTS) {
            throw new IllegalArgumentException("a chunk holds 0 to " + MAX_EVENTS + " events, got " + n);
        }
    }

    /** The first event's time of {@code [from, to)}, 0 when empty: a frame's first time. */
    public static long firstTime(EventBatch batch, int from, int to) {
        return to > from ? batch.time(from) : 0;
    }

    /** The largest event time of {@code [from, to)}, 0 when empty: a frame's last time. */
    public static long lastTime(EventBatch batch, int from, int to) {
        long last = to > from ? batch.time(from) : 0;
        for (int i = from + 1; i < to; i++) {
            last = Math.max(last, batch.time(i));
        }
        return last;
    }

    /**
     * Compresses and frames a payload already encoded by {@link #encodePayload} (so one thread can
     * encode while another compresses): the same frame {@link #encodeFrame} makes of those events.
     *
     * @param events the payload's event count
     * @param first  {@link #firstTime} of its events
     * @param last   {@link #lastTime} of its events
     */
    public byte[] compressFrame(ByteWriter payload, int events, long first, long last) {
        checkEventCount(events);
        frameInto(payload, events, first, last);
        return frame.toByteArray();
    }

    private void frameInto(ByteWriter raw, int n, long first, long last) {
        if (raw.size() > MAX_RAW_BYTES) {
            throw new IllegalArgumentException("chunk payload of " + raw.size() + " bytes exceeds " + MAX_RAW_BYTES);
        }
        FrameHeader.begin(frame, raw.size(), n, first, last);
        int bound = Compression.bound(raw.size());
        frame.ensureCapacity(FRAME_HEADER_BYTES + bound);
        int clen = zstd.compress(raw.array(), raw.size(), frame.array(), FRAME_HEADER_BYTES, bound);
        FrameHeader.seal(frame, clen, crc);
    }

    /**
     * Reads one frame from a stream (a file, a socket). The frames one codec reads are charged to one
     * {@link DecodeBudget}: a connection whose chunks would decompress to more than it can honestly
     * hold is refused at the first frame past it, before that frame's payload is read.
     *
     * @param offset where the frame starts in {@code source}, for messages
     * @return the chunk, or null when the stream ends cleanly before the frame's first byte
     * @throws TraceFormatException when the frame is truncated, corrupt or inconsistent
     */
    public Chunk readFrame(InputStream in, String source, long offset) throws IOException {
        byte[] h = in.readNBytes(FRAME_HEADER_BYTES);
        if (h.length == 0) {
            return null;
        }
        if (h.length < FRAME_HEADER_BYTES) {
            throw new TraceFormatException(source, offset, "truncated chunk header (" + h.length + " of " + FRAME_HEADER_BYTES + " bytes)");
        }
        FrameHeader fh = FrameHeader.parse(h, 0, source, offset);
        streamBudget.charge(fh, source, offset); // before reading the payload: a bomb costs its header only
        // readNBytes grows its buffer as bytes arrive, so a forged length cannot allocate more than the stream holds
        byte[] payload = in.readNBytes(fh.payloadBytes());
        if (payload.length < fh.payloadBytes()) {
            throw new TraceFormatException(source, offset + FRAME_HEADER_BYTES,
                    "truncated chunk payload (" + payload.length + " of " + fh.payloadBytes() + " bytes)");
        }
        return decodeFrame(h, 0, fh, payload, 0, source, offset);
    }

    /**
     * Checks and decodes a frame whose header and payload are in memory.
     *
     * @param header     the frame's header bytes (for the checksum)
     * @param fh         the parsed header
     * @param payload    the compressed payload ({@code fh.payloadBytes()} bytes from {@code payloadOff})
     * @param offset     where the frame starts in {@code source}
     */
    public Chunk decodeFrame(byte[] header, int headerOff, FrameHeader fh, byte[] payload, int payloadOff,
                             String source, long offset) throws TraceFormatException {
        return decodeFrame(header, headerOff, fh, payload, payloadOff, source, offset, null);
    }

    /**
     * As {@link #decodeFrame(byte[], int, FrameHeader, byte[], int, String, long)}, decoding the events
     * into {@code into} (cleared first; null for a new batch), so a reader can reuse batches.
     */
    public Chunk decodeFrame(byte[] header, int headerOff, FrameHeader fh, byte[] payload, int payloadOff,
                             String source, long offset, EventBatch into) throws TraceFormatException {
        DecodeBudget.checkChunk(fh, source, offset);
        fh.checkCrc(header, headerOff, payload, payloadOff, crc, source, offset);
        byte[] exact = payloadOff == 0 && payload.length == fh.payloadBytes()
                ? payload : Arrays.copyOfRange(payload, payloadOff, payloadOff + fh.payloadBytes());
        byte[] rawBytes = zstd.decompress(exact, fh.rawBytes(), source, offset + FRAME_HEADER_BYTES);
        // every event takes at least one byte in each column: a forged count cannot over-allocate
        EventBatch events = into != null ? into : new EventBatch(Math.min(fh.events(), fh.rawBytes() / layout.columns() + 16));
        events.clear();
        List<MetaRecord> meta = new ArrayList<>();
        ByteReader r = new ByteReader(rawBytes, 0, fh.rawBytes(), source + " (chunk at byte " + offset + ", decompressed)", 0);
        decodePayload(r, meta, events);
        if (events.size() != fh.events()) {
            throw new TraceFormatException(source, offset, "chunk header says " + fh.events() + " events, payload holds " + events.size());
        }
        if (r.remaining() != 0) {
            throw new TraceFormatException(source, offset, "chunk payload has " + r.remaining() + " trailing bytes");
        }
        return new Chunk(meta, events, fh.firstTimeNs(), fh.lastTimeNs(), exact, fh.rawBytes(),
                FRAME_HEADER_BYTES + fh.payloadBytes(), layout.version());
    }

    // ---------------------------------------------------------------- packed payloads (for stores)

    /** A compressed payload and its uncompressed size. */
    public record Packed(byte[] bytes, int rawBytes) {}

    /** Compresses a payload of metadata and events {@code [from, to)}, without a frame header. */
    public Packed pack(List<MetaRecord> meta, EventBatch batch, int from, int to) {
        raw.clear();
        encodePayload(meta, batch, from, to, raw);
        frame.clear();
        int bound = Compression.bound(raw.size());
        frame.ensureCapacity(bound);
        int n = zstd.compress(raw.array(), raw.size(), frame.array(), 0, bound);
        return new Packed(Arrays.copyOf(frame.array(), n), raw.size());
    }

    /**
     * Decodes the events of a packed payload (from {@link #pack} or {@link Chunk#payload()}) and
     * appends them to {@code out}; the metadata records are skipped.
     */
    public void unpackEvents(byte[] packed, int rawBytes, EventBatch out, String source) throws TraceFormatException {
        unpackEvents(packed, rawBytes, layout.version(), out, source);
    }

    /** As {@link #unpackEvents(byte[], int, EventBatch, String)} for a payload of event layout {@code layout}. */
    public void unpackEvents(byte[] packed, int rawBytes, int layout, EventBatch out, String source) throws TraceFormatException {
        byte[] rawb = zstd.decompress(packed, rawBytes, source, 0);
        ByteReader r = new ByteReader(rawb, 0, rawBytes, source, 0);
        int metaLen = r.count(r.remaining(), "metadata length");
        r.skip(metaLen);
        decoder.decode(r, out, EventLayout.of(layout));
    }

    // ---------------------------------------------------------------- payload = metadata + events

    /** Writes a payload: varint metadata byte length, the metadata records, then the event columns. */
    public void encodePayload(List<MetaRecord> meta, EventBatch batch, int from, int to, ByteWriter out) {
        encoder.begin();
        encoder.append(batch, from, to);
        finishPayload(meta, out);
    }

    /**
     * Writes the payload of the open chunk ({@link #appendEvents}): varint metadata byte length, the
     * metadata records, then the events; and opens an empty chunk.
     */
    public void finishPayload(List<MetaRecord> meta, ByteWriter out) {
        ByteWriter m = metaBuf;
        m.clear();
        m.varint(meta.size());
        for (MetaRecord rec : meta) {
            MetaCodec.encodeMeta(rec, m);
        }
        out.varint(m.size());
        out.bytes(m.array(), 0, m.size());
        encoder.finish(out);
    }

    /** Reads a payload written by {@link #encodePayload}, appending to {@code meta} and {@code events}. */
    public void decodePayload(ByteReader r, List<MetaRecord> meta, EventBatch events) throws TraceFormatException {
        int metaLen = r.count(r.remaining(), "metadata length");
        ByteReader mr = r.slice(metaLen);
        int count = mr.count(mr.remaining(), "metadata record count");
        for (int i = 0; i < count; i++) {
            meta.add(MetaCodec.decodeMeta(mr, layout));
        }
        if (mr.remaining() != 0) {
            throw mr.error("metadata has " + mr.remaining() + " trailing bytes");
        }
        decoder.decode(r, events, layout);
    }

    // ---------------------------------------------------------------- event columns

    /** Opens an empty chunk (forgetting any events appended since the last {@link #finishPayload}). */
    public void beginEvents() {
        encoder.begin();
    }

    /** Events appended to the open chunk so far. */
    public int openEvents() {
        return encoder.openEvents();
    }

    /** The first event's time in the open chunk (0 when empty): its frame's first time. */
    public long openFirstTime() {
        return encoder.openFirstTime();
    }

    /** The largest event time in the open chunk (0 when empty): its frame's last time. */
    public long openLastTime() {
        return encoder.openLastTime();
    }

    /**
     * Encodes events {@code [from, to)} of {@code batch} onto the open chunk's columns: a chunk can be
     * filled from several batches without holding their events (a writer fed by a session's drain
     * gets batches of a quarter of a chunk).
     */
    public void appendEvents(EventBatch batch, int from, int to) {
        encoder.append(batch, from, to);
    }

    /**
     * Reads columns written by {@link #appendEvents} and {@link #finishPayload} and appends the events to {@code out}. An error
     * names the byte offset of the bad value.
     */
    public void decodeEvents(ByteReader r, EventBatch out) throws TraceFormatException {
        decoder.decode(r, out, layout);
    }

    /** As {@link #decodeEvents(ByteReader, EventBatch)} for columns of event layout {@code layout}. */
    public void decodeEvents(ByteReader r, EventBatch out, int layout) throws TraceFormatException {
        decoder.decode(r, out, EventLayout.of(layout));
    }

    @Override
    public void close() {
        zstd.close();
    }
}
