package dev.arenascope.core.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;

/**
 * The chunk encoding shared by {@code .astrace} files, the in-memory store and the live wire: a run of
 * events stored as a table of their distinct (kind and flags, memory, thread) shapes and nine columns
 * of delta/zigzag varints (format version 2; version 1's eleven columns are still decoded), preceded by the metadata records that
 * arrived with them, compressed with zstd and framed with a CRC32C and the chunk's time range.
 * {@code docs/astrace-format.md} specifies the bytes.
 *
 * <p>A frame is a fixed 36-byte header ({@link #FRAME_HEADER_BYTES}) then the compressed payload:
 * <pre>
 *   u32 magic "ASCK"  u32 payload bytes  u32 raw bytes  u32 events
 *   i64 first time ns  i64 last (largest) time ns  u32 CRC32C of the 32 bytes before it and the payload
 * </pre>
 * Frames are independent: each one decodes without any other, so a reader resumes at any frame and a
 * file cut short loses only its last, partial frame.
 *
 * <p>Bad input: every length is checked against {@link #MAX_RAW_BYTES}, {@link #MAX_EVENTS} and the bytes
 * actually present before anything is allocated; any inconsistency throws {@link TraceFormatException}
 * naming the source and byte offset. Not thread-safe: one codec per thread (it reuses buffers and
 * zstd contexts). Call {@link #close()} to free the native contexts early (they are also freed by GC).
 */
public final class ChunkCodec implements AutoCloseable {
    /** "ASCK" little-endian: the first four bytes of every frame. */
    public static final int FRAME_MAGIC = 0x4B435341;
    public static final int FRAME_HEADER_BYTES = 36;
    /** The most events one chunk may hold. */
    public static final int MAX_EVENTS = 1 << 20;
    /** The most bytes a chunk's payload may take, compressed or not. */
    public static final int MAX_RAW_BYTES = 128 << 20;
    /** The zstd level writers use: fast enough for 20 M events/s on one core. */
    public static final int DEFAULT_LEVEL = 1;

    /**
     * The event layout written: 2 stores kind, flags, memory and thread as an index into the chunk's
     * table of distinct (kind and flags, memory, thread) "shapes", in 9 columns; 1 stored them as
     * three of 11 columns. It equals the {@code .astrace} format version.
     */
    public static final int VERSION = 2;
    private static final int COLUMNS = 11;
    private static final int COLUMNS_V2 = 9;
    private static final int MAX_MEMORY_SLOT = EventBatch.MAX_MEMORY_ID + 1;
    /** Per kind code: how {@code used} is predicted to move by {@code b} (+1 grows, -1 shrinks, 0 stays). */
    private static final int[] USED_SIGN = new int[256];
    /** Per kind code: whether the next {@code a} is predicted at {@code a + b} (a bump allocation's end). */
    private static final boolean[] A_PLUS_B = new boolean[256];
    /** Per kind code: whether {@code c} is stored relative to {@code b} (requested vs allocated bytes). */
    private static final boolean[] C_FROM_B = new boolean[256];
    /**
     * The same predictions as masks, so the column loops take no data-dependent branch (kinds come
     * mixed): by kind code and the backward flag (the low 9 bits of the packed word), -1 where the next
     * {@code a} is predicted at {@code a + b}; by kind code, -1 where {@code c} is stored against {@code b}.
     */
    private static final long[] A_NEXT = new long[512];
    private static final long[] C_MASK = new long[256];

    static {
        for (EventKind k : new EventKind[] {EventKind.ALLOC, EventKind.POOL_REQUEST, EventKind.TENSOR_LIVE}) {
            USED_SIGN[k.code()] = 1;
        }
        for (EventKind k : new EventKind[] {EventKind.FREE, EventKind.POINTER_RESTORE, EventKind.RESET,
                EventKind.POOL_HOLD, EventKind.TENSOR_DEAD}) {
            USED_SIGN[k.code()] = -1;
        }
        A_PLUS_B[EventKind.ALLOC.code()] = true;
        A_PLUS_B[EventKind.POOL_REQUEST.code()] = true;
        C_FROM_B[EventKind.ALLOC.code()] = true;
        C_FROM_B[EventKind.POOL_REQUEST.code()] = true;
        for (int kf = 0; kf < 512; kf++) {
            boolean backward = (kf >>> 8 & Event.FLAG_BACKWARD) != 0;
            A_NEXT[kf] = A_PLUS_B[kf & 0xff] && !backward ? -1L : 0;
        }
        for (int k = 0; k < 256; k++) {
            C_MASK[k] = C_FROM_B[k] ? -1L : 0;
        }
    }

    private final int level;
    private final int version;
    private final ByteWriter metaBuf = new ByteWriter(256);
    private final ByteWriter raw = new ByteWriter(1 << 16);
    private final ByteWriter frame = new ByteWriter(1 << 16);
    private final CRC32C crc = new CRC32C();
    private ZstdCompressCtx cctx;
    private ZstdDecompressCtx dctx;
    private long[] prevA = new long[64];
    private long[] prevUsed = new long[64];
    private long[] prevAux = new long[64];
    private int slotsInUse;

    public ChunkCodec() {
        this(DEFAULT_LEVEL);
    }

    /** @param level zstd compression level for encoding (1 fast .. 19 small; negative: faster still) */
    public ChunkCodec(int level) {
        this(level, VERSION);
    }

    /**
     * @param level   zstd compression level for encoding (1 fast .. 19 small; negative: faster still)
     * @param version the event layout this codec decodes by default ({@link #VERSION}, or 1 for files
     *                of format version 1); it always encodes {@link #VERSION}
     */
    public ChunkCodec(int level, int version) {
        if (version < 1 || version > VERSION) {
            throw new IllegalArgumentException("event layout version " + version + " (this build knows 1 to " + VERSION + ")");
        }
        this.level = level;
        this.version = version;
    }

    /** The event layout this codec decodes by default. */
    public int version() {
        return version;
    }

    /** The zstd level this codec encodes with. */
    public int level() {
        return level;
    }

    // ---------------------------------------------------------------- frames

    /** What a frame header says. */
    public record FrameHeader(int payloadBytes, int rawBytes, int events, long firstTimeNs, long lastTimeNs, int crc) {}

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
        if (n < 0 || n > MAX_EVENTS) {
            throw new IllegalArgumentException("a chunk holds 0 to " + MAX_EVENTS + " events, got " + n);
        }
        raw.clear();
        encodePayload(meta, batch, from, to, raw);
        frameInto(raw, n, firstTime(batch, from, to), lastTime(batch, from, to));
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
        if (events < 0 || events > MAX_EVENTS) {
            throw new IllegalArgumentException("a chunk holds 0 to " + MAX_EVENTS + " events, got " + events);
        }
        frameInto(payload, events, first, last);
        return frame.toByteArray();
    }

    private void frameInto(ByteWriter raw, int n, long first, long last) {
        if (raw.size() > MAX_RAW_BYTES) {
            throw new IllegalArgumentException("chunk payload of " + raw.size() + " bytes exceeds " + MAX_RAW_BYTES);
        }
        frame.clear();
        int bound = (int) Math.min(Integer.MAX_VALUE - 64, Zstd.compressBound(raw.size()));
        frame.u32(FRAME_MAGIC);
        frame.u32(0);
        frame.u32(raw.size());
        frame.u32(n);
        frame.i64(first);
        frame.i64(last);
        frame.u32(0);
        frame.ensureCapacity(FRAME_HEADER_BYTES + bound);
        int clen = compressInto(raw.array(), raw.size(), frame.array(), FRAME_HEADER_BYTES, bound);
        frame.putU32(4, clen);
        byte[] f = frame.array();
        crc.reset();
        crc.update(f, 0, 32);
        crc.update(f, FRAME_HEADER_BYTES, clen);
        frame.putU32(32, (int) crc.getValue());
        frame.setSize(FRAME_HEADER_BYTES + clen);
    }

    private int compressInto(byte[] src, int srcLen, byte[] dst, int dstOff, int dstCap) {
        if (cctx == null) {
            cctx = new ZstdCompressCtx().setLevel(level).setContentSize(true).setChecksum(false);
        }
        return cctx.compressByteArray(dst, dstOff, dstCap, src, 0, srcLen);
    }

    /**
     * Parses and checks a frame header.
     *
     * @param h      at least {@link #FRAME_HEADER_BYTES} bytes from {@code off}
     * @param offset where the header starts in {@code source}, for messages
     */
    public static FrameHeader parseHeader(byte[] h, int off, String source, long offset) throws TraceFormatException {
        ByteReader r = new ByteReader(h, off, FRAME_HEADER_BYTES, source, offset);
        int magic = r.u32();
        if (magic != FRAME_MAGIC) {
            throw new TraceFormatException(source, offset, "not a chunk (bad chunk magic 0x" + Integer.toHexString(magic) + ")");
        }
        int payload = r.u32();
        int rawLen = r.u32();
        int events = r.u32();
        long first = r.i64();
        long last = r.i64();
        int c = r.u32();
        if (payload <= 0 || payload > MAX_RAW_BYTES) {
            throw new TraceFormatException(source, offset + 4, "chunk payload length " + Integer.toUnsignedString(payload) + " out of range");
        }
        if (rawLen <= 0 || rawLen > MAX_RAW_BYTES) {
            throw new TraceFormatException(source, offset + 8, "chunk raw length " + Integer.toUnsignedString(rawLen) + " out of range");
        }
        if (events < 0 || events > MAX_EVENTS) {
            throw new TraceFormatException(source, offset + 12, "chunk event count " + Integer.toUnsignedString(events) + " out of range");
        }
        return new FrameHeader(payload, rawLen, events, first, last, c);
    }

    /**
     * Reads one frame from a stream (a file, a socket).
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
        FrameHeader fh = parseHeader(h, 0, source, offset);
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
        crc.reset();
        crc.update(header, headerOff, 32);
        crc.update(payload, payloadOff, fh.payloadBytes());
        if ((int) crc.getValue() != fh.crc()) {
            throw new TraceFormatException(source, offset, "chunk checksum mismatch (CRC32C 0x"
                    + Integer.toHexString((int) crc.getValue()) + ", header says 0x" + Integer.toHexString(fh.crc()) + ")");
        }
        byte[] exact = payloadOff == 0 && payload.length == fh.payloadBytes()
                ? payload : Arrays.copyOfRange(payload, payloadOff, payloadOff + fh.payloadBytes());
        byte[] rawBytes = decompress(exact, fh.rawBytes(), source, offset + FRAME_HEADER_BYTES);
        // every event takes at least one byte in each of the 9 (or 11) columns: a forged count cannot over-allocate
        EventBatch events = into != null ? into : new EventBatch(Math.min(fh.events(), fh.rawBytes() / COLUMNS_V2 + 16));
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
                FRAME_HEADER_BYTES + fh.payloadBytes(), version);
    }

    // ---------------------------------------------------------------- packed payloads (for stores)

    /** A compressed payload and its uncompressed size. */
    public record Packed(byte[] bytes, int rawBytes) {}

    /** Compresses a payload of metadata and events {@code [from, to)}, without a frame header. */
    public Packed pack(List<MetaRecord> meta, EventBatch batch, int from, int to) {
        raw.clear();
        encodePayload(meta, batch, from, to, raw);
        frame.clear();
        int bound = (int) Zstd.compressBound(raw.size());
        frame.ensureCapacity(bound);
        int n = compressInto(raw.array(), raw.size(), frame.array(), 0, bound);
        return new Packed(Arrays.copyOf(frame.array(), n), raw.size());
    }

    /**
     * Decodes the events of a packed payload (from {@link #pack} or {@link Chunk#payload()}) and
     * appends them to {@code out}; the metadata records are skipped.
     */
    public void unpackEvents(byte[] packed, int rawBytes, EventBatch out, String source) throws TraceFormatException {
        unpackEvents(packed, rawBytes, version, out, source);
    }

    /** As {@link #unpackEvents(byte[], int, EventBatch, String)} for a payload of event layout {@code layout}. */
    public void unpackEvents(byte[] packed, int rawBytes, int layout, EventBatch out, String source) throws TraceFormatException {
        byte[] rawb = decompress(packed, rawBytes, source, 0);
        ByteReader r = new ByteReader(rawb, 0, rawBytes, source, 0);
        int metaLen = r.count(r.remaining(), "metadata length");
        r.skip(metaLen);
        decodeEvents(r, out, layout);
    }

    private byte[] rawBuf = new byte[1 << 16];

    /** Decompresses into this codec's buffer: bytes {@code [0, rawLen)} of the array returned. */
    private byte[] decompress(byte[] src, int rawLen, String source, long offset) throws TraceFormatException {
        if (dctx == null) {
            dctx = new ZstdDecompressCtx();
        }
        long declared = Zstd.getFrameContentSize(src, 0, src.length);
        if (declared != rawLen) {
            throw new TraceFormatException(source, offset, "compressed payload declares " + declared + " bytes, header says " + rawLen);
        }
        // the decompressed bytes are only read while decoding: one buffer per codec serves every chunk
        if (rawBuf.length < rawLen) {
            rawBuf = new byte[Math.max(rawLen, Math.min(MAX_RAW_BYTES, 2 * rawBuf.length))];
        }
        byte[] dst = rawBuf;
        int n;
        try {
            n = dctx.decompressByteArray(dst, 0, rawLen, src, 0, src.length);
        } catch (ZstdException e) {
            throw new TraceFormatException(source, offset, "corrupt compressed payload (" + e.getMessage() + ")");
        }
        if (n != rawLen) {
            throw new TraceFormatException(source, offset, "payload decompressed to " + n + " bytes, header says " + rawLen);
        }
        return dst;
    }

    // ---------------------------------------------------------------- payload = metadata + events

    /** Writes a payload: varint metadata byte length, the metadata records, then the event columns. */
    public void encodePayload(List<MetaRecord> meta, EventBatch batch, int from, int to, ByteWriter out) {
        beginEvents();
        appendEvents(batch, from, to);
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
            encodeMeta(rec, m);
        }
        out.varint(m.size());
        out.bytes(m.array(), 0, m.size());
        finishEvents(out);
    }

    /** Reads a payload written by {@link #encodePayload}, appending to {@code meta} and {@code events}. */
    public void decodePayload(ByteReader r, List<MetaRecord> meta, EventBatch events) throws TraceFormatException {
        int metaLen = r.count(r.remaining(), "metadata length");
        ByteReader mr = r.slice(metaLen);
        int count = mr.count(mr.remaining(), "metadata record count");
        for (int i = 0; i < count; i++) {
            meta.add(decodeMeta(mr));
        }
        if (mr.remaining() != 0) {
            throw mr.error("metadata has " + mr.remaining() + " trailing bytes");
        }
        decodeEvents(r, events, version);
    }

    private static final int TAG_MEMORY = 1;
    private static final int TAG_STRING = 2;
    private static final int TAG_THREAD = 3;
    private static final int TAG_LOSS = 4;

    /** Writes one metadata record. */
    public static void encodeMeta(MetaRecord rec, ByteWriter w) {
        switch (rec) {
            case MetaRecord.Memory(MemoryInfo mi) -> {
                w.u8(TAG_MEMORY);
                encodeMemory(mi, w);
            }
            case MetaRecord.Str(int id, String value) -> {
                w.u8(TAG_STRING);
                w.svarint(id);
                w.string(value);
            }
            case MetaRecord.Thread(int id, String name) -> {
                w.u8(TAG_THREAD);
                w.svarint(id);
                w.string(name);
            }
            case MetaRecord.Loss(long count) -> {
                w.u8(TAG_LOSS);
                w.varint(count);
            }
        }
    }

    /** Reads one metadata record. */
    public static MetaRecord decodeMeta(ByteReader r) throws TraceFormatException {
        long at = r.sourceOffset();
        int tag = r.u8();
        return switch (tag) {
            case TAG_MEMORY -> new MetaRecord.Memory(decodeMemory(r));
            case TAG_STRING -> new MetaRecord.Str(r.svarint32("string id"), r.string());
            case TAG_THREAD -> new MetaRecord.Thread(r.svarint32("thread id"), r.string());
            case TAG_LOSS -> {
                long n = r.varint();
                if (n < 0) {
                    throw r.error("negative loss count");
                }
                yield new MetaRecord.Loss(n);
            }
            default -> throw new TraceFormatException(r.source(), at, "unknown metadata record tag " + tag);
        };
    }

    /** Writes a memory's registration. */
    public static void encodeMemory(MemoryInfo m, ByteWriter w) {
        w.varint(m.id());
        w.string(m.name());
        w.u8(m.kind().code());
        w.string(m.device());
        w.svarint(m.capacity());
        encodeMap(m.attributes(), w);
    }

    /** Reads a memory's registration. */
    public static MemoryInfo decodeMemory(ByteReader r) throws TraceFormatException {
        int id = r.count(EventBatch.MAX_MEMORY_ID, "memory id");
        String name = r.string();
        int kindCode = r.u8();
        MemoryKind kind = MemoryKind.ofCode(kindCode);
        if (kind == null) {
            throw r.error("unknown memory kind code " + kindCode);
        }
        String device = r.string();
        long capacity = r.svarint();
        Map<String, String> attrs = decodeMap(r);
        return new MemoryInfo(id, name == null ? "" : name, kind, device == null ? "" : device, capacity, attrs);
    }

    /** Writes session metadata (file headers, the live handshake). */
    public static void encodeSession(SessionInfo s, ByteWriter w) {
        w.string(s.name());
        w.string(s.host());
        w.svarint(s.startEpochNs());
        w.varint(s.devices().size());
        for (DeviceInfo d : s.devices()) {
            w.string(d.kind().name());
            w.svarint(d.index());
            w.string(d.name());
            w.svarint(d.totalBytes());
            w.svarint(d.freeBytes());
        }
        encodeMap(s.attributes(), w);
    }

    /** Reads session metadata written by {@link #encodeSession}. */
    public static SessionInfo decodeSession(ByteReader r) throws TraceFormatException {
        String name = r.string();
        String host = r.string();
        long start = r.svarint();
        int n = r.count(r.remaining(), "device count");
        List<DeviceInfo> devices = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String kindName = r.string();
            DeviceKind kind;
            try {
                kind = DeviceKind.valueOf(kindName);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw r.error("unknown device kind '" + kindName + "'");
            }
            int index = r.svarint32("device index");
            String dn = r.string();
            long total = r.svarint();
            long free = r.svarint();
            devices.add(new DeviceInfo(kind, index, dn == null ? "" : dn, total, free));
        }
        Map<String, String> attrs = decodeMap(r);
        return new SessionInfo(name == null ? "" : name, host == null ? "" : host, start, devices, attrs);
    }

    private static void encodeMap(Map<String, String> map, ByteWriter w) {
        w.varint(map.size());
        for (var e : new java.util.TreeMap<>(map).entrySet()) {
            w.string(e.getKey());
            w.string(e.getValue());
        }
    }

    private static Map<String, String> decodeMap(ByteReader r) throws TraceFormatException {
        int n = r.count(r.remaining() / 2, "attribute count");
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String k = r.string();
            String v = r.string();
            if (k == null || v == null) {
                throw r.error("null attribute key or value");
            }
            m.put(k, v);
        }
        return m;
    }

    // ---------------------------------------------------------------- event columns

    private void resetSlots() {
        int n = Math.min(slotsInUse, prevA.length);
        Arrays.fill(prevA, 0, n, 0);
        Arrays.fill(prevUsed, 0, n, 0);
        Arrays.fill(prevAux, 0, n, 0);
        slotsInUse = 0;
    }

    private void slot(int s) {
        if (s >= prevA.length) {
            int cap = Math.min(MAX_MEMORY_SLOT + 1, Math.max(s + 1, prevA.length * 2));
            prevA = Arrays.copyOf(prevA, cap);
            prevUsed = Arrays.copyOf(prevUsed, cap);
            prevAux = Arrays.copyOf(prevAux, cap);
        }
        if (s >= slotsInUse) {
            slotsInUse = s + 1;
        }
    }

    /**
     * Writes events {@code [from, to)} in layout {@link #VERSION}: varint count, the shape table
     * (varint shapes, then per shape varint kind+flags, zigzag memory id, zigzag thread, in order of
     * first use), nine varint column lengths, the columns (time, shape index, a, b, c, used, aux, ref,
     * ref2). Deltas run within the chunk only.
     */
    public void encodeEvents(EventBatch batch, int from, int to, ByteWriter out) {
        beginEvents();
        appendEvents(batch, from, to);
        finishEvents(out);
    }

    // the open chunk: its columns so far, and what the next events are predicted from
    private final byte[][] openCols = new byte[COLUMNS_V2][];
    private final int[] openLen = new int[COLUMNS_V2];
    private int openEvents;
    private long openPrevTime;
    private long openFirstTime;
    private long openLastTime;

    /** Opens an empty chunk (forgetting any events appended since the last {@link #finishEvents}). */
    public void beginEvents() {
        resetSlots();
        clearShapes();
        Arrays.fill(openLen, 0);
        openEvents = 0;
        openPrevTime = 0;
        openFirstTime = 0;
        openLastTime = 0;
    }

    /** Events appended to the open chunk so far. */
    public int openEvents() {
        return openEvents;
    }

    /** The first event's time in the open chunk (0 when empty): its frame's first time. */
    public long openFirstTime() {
        return openFirstTime;
    }

    /** The largest event time in the open chunk (0 when empty): its frame's last time. */
    public long openLastTime() {
        return openLastTime;
    }

    /**
     * Encodes events {@code [from, to)} of {@code batch} onto the open chunk's columns: a chunk can be
     * filled from several batches without holding their events (a writer fed by a session's drain
     * gets batches of a quarter of a chunk). Each column is written by its own loop straight from the
     * batch's arrays.
     */
    public void appendEvents(EventBatch batch, int from, int to) {
        int m = to - from;
        if (m < 0 || from < 0 || to > batch.size) {
            throw new IndexOutOfBoundsException("events [" + from + ", " + to + ") of " + batch.size);
        }
        if ((long) openEvents + m > MAX_EVENTS) {
            throw new IllegalArgumentException("a chunk holds at most " + MAX_EVENTS + " events");
        }
        if (m == 0) {
            return;
        }
        int[] pk = batch.kindFlagsMemory;
        int[] th = batch.thread;
        long[] ta = batch.time;
        appendShapes(pk, th, from, to);
        int maxSlot = 0;
        long last = openEvents == 0 ? ta[from] : openLastTime;
        for (int i = from; i < to; i++) {
            maxSlot = Math.max(maxSlot, pk[i] >>> 16);
            last = Math.max(last, ta[i]);
        }
        if (openEvents == 0) {
            openFirstTime = ta[from];
        }
        openLastTime = last;
        slot(maxSlot);
        long[] pA = prevA;
        long[] pU = prevUsed;
        long[] pX = prevAux;
        long[] va = batch.a;
        long[] vb = batch.b;
        long[] vc = batch.c;
        long[] vu = batch.used;
        long[] vx = batch.aux;
        int[] r1 = batch.ref;
        int[] r2 = batch.ref2;
        for (int k = 0; k < COLUMNS_V2; k++) {
            // every value takes at most 10 bytes, and the branch-free writer stores 8 at a time
            byte[] buf = openCols[k];
            int p = openLen[k];
            long need = (long) p + 10L * m + 16;
            if (buf == null || need > buf.length) {
                if (need > Integer.MAX_VALUE - 16) {
                    throw new IllegalArgumentException("chunk column too large to encode");
                }
                long cap = Math.max(need, buf == null ? 1 << 14 : Math.min(Integer.MAX_VALUE - 16, 2L * buf.length));
                buf = openCols[k] = buf == null ? new byte[(int) cap] : Arrays.copyOf(buf, (int) cap);
            }
            openLen[k] = switch (k) {
                case 0 -> deltas(buf, p, ta, from, to, openPrevTime);
                case 1 -> shapeIndexes(buf, p, shapeOf, m);
                case 2 -> predictedA(buf, p, va, vb, pk, pA, from, to);
                case 3 -> plain(buf, p, vb, from, to);
                case 4 -> requested(buf, p, vc, vb, pk, from, to);
                case 5 -> predictedUsed(buf, p, vu, vb, pk, pU, from, to);
                case 6 -> perMemoryDeltas(buf, p, vx, pk, pX, from, to);
                case 7 -> plain(buf, p, r1, from, to);
                default -> plain(buf, p, r2, from, to);
            };
        }
        openPrevTime = ta[to - 1];
        openEvents += m;
    }

    /** Writes the open chunk's events block to {@code out} and opens an empty chunk. */
    public void finishEvents(ByteWriter out) {
        out.varint(openEvents);
        out.varint(shapeCount);
        for (int s = 0; s < shapeCount; s++) {
            long key = shapeKeys[s];
            int packed = (int) (key >>> 32);
            out.varint(packed & 0xffff);
            out.svarint((packed >>> 16) - 1);
            out.svarint((int) key);
        }
        for (int k = 0; k < COLUMNS_V2; k++) {
            out.varint(openLen[k]);
        }
        for (int k = 0; k < COLUMNS_V2; k++) {
            if (openLen[k] > 0) {
                out.bytes(openCols[k], 0, openLen[k]);
            }
        }
        beginEvents();
    }

    // the shape table of the chunk being encoded: keys (packed kind/flags/memory << 32 | thread) in
    // order of first use, an open-addressing index over them, and each event's shape
    private long[] shapeKeys = new long[64];
    private int[] shapeSlots = new int[64];
    private long[] tableKeys = new long[128];
    private int[] tableVals = new int[128]; // shape + 1; 0 is empty
    private int[] shapeOf = new int[1024];

    private int shapeCount;

    /** Forgets the open chunk's shapes: only the table slots they took are emptied. */
    private void clearShapes() {
        for (int s = 0; s < shapeCount; s++) {
            tableVals[shapeSlots[s]] = 0;
        }
        shapeCount = 0;
    }

    /**
     * Fills {@link #shapeOf} from index 0 with the shape of events {@code [from, to)}, adding the new
     * ones to the open chunk's table.
     */
    private void appendShapes(int[] pk, int[] th, int from, int to) {
        int n = to - from;
        if (shapeOf.length < n) {
            shapeOf = new int[Math.max(n, 2 * shapeOf.length)];
        }
        int[] sOf = shapeOf;
        long[] tk = tableKeys;
        int[] tv = tableVals;
        int mask = tv.length - 1;
        int shift = 64 - Integer.numberOfTrailingZeros(tv.length);
        int count = shapeCount;
        long lastKey = 0;
        int last = -1;
        for (int i = 0; i < n; i++) {
            long key = (long) pk[from + i] << 32 | (th[from + i] & 0xffffffffL);
            if (key != lastKey || last < 0) {
                int h = (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
                while (true) {
                    int v = tv[h];
                    if (v == 0) {
                        if (count == shapeKeys.length) {
                            shapeKeys = Arrays.copyOf(shapeKeys, count * 2);
                            shapeSlots = Arrays.copyOf(shapeSlots, count * 2);
                        }
                        shapeKeys[count] = key;
                        shapeSlots[count] = h;
                        last = count++;
                        tk[h] = key;
                        tv[h] = count;
                        if (2 * count > tv.length) {
                            growShapeTable(count);
                            tk = tableKeys;
                            tv = tableVals;
                            mask = tv.length - 1;
                            shift = 64 - Integer.numberOfTrailingZeros(tv.length);
                        }
                        break;
                    }
                    if (tk[h] == key) {
                        last = v - 1;
                        break;
                    }
                    h = (h + 1) & mask;
                }
                lastKey = key;
            }
            sOf[i] = last;
        }
        shapeCount = count;
    }

    private void growShapeTable(int count) {
        int cap = tableVals.length * 2;
        long[] tk = new long[cap];
        int[] tv = new int[cap];
        int shift = 64 - Integer.numberOfTrailingZeros(cap);
        for (int s = 0; s < count; s++) {
            int h = (int) ((shapeKeys[s] * 0x9E3779B97F4A7C15L) >>> shift);
            while (tv[h] != 0) {
                h = (h + 1) & (cap - 1);
            }
            tk[h] = shapeKeys[s];
            tv[h] = s + 1;
            shapeSlots[s] = h;
        }
        tableKeys = tk;
        tableVals = tv;
    }

    private static int shapeIndexes(byte[] buf, int p, int[] sOf, int n) {
        for (int i = 0; i < n; i++) {
            p = uv(buf, p, sOf[i]);
        }
        return p;
    }

    // one loop a column, each small enough for the JIT to compile on its own

    private static int deltas(byte[] buf, int p, long[] v, int from, int to, long prev) {
        for (int i = from; i < to; i++) {
            long x = v[i];
            p = zz(buf, p, x - prev);
            prev = x;
        }
        return p;
    }

    private static int plain(byte[] buf, int p, long[] v, int from, int to) {
        for (int i = from; i < to; i++) {
            p = zz(buf, p, v[i]);
        }
        return p;
    }

    private static int plain(byte[] buf, int p, int[] v, int from, int to) {
        for (int i = from; i < to; i++) {
            p = zz(buf, p, v[i]);
        }
        return p;
    }

    private static int predictedA(byte[] buf, int p, long[] va, long[] vb, int[] pk, long[] pA, int from, int to) {
        for (int i = from; i < to; i++) {
            int packed = pk[i];
            int sl = packed >>> 16;
            long a = va[i];
            p = zz(buf, p, a - pA[sl]);
            pA[sl] = a + (A_NEXT[packed & 0x1ff] & vb[i]);
        }
        return p;
    }

    private static int requested(byte[] buf, int p, long[] vc, long[] vb, int[] pk, int from, int to) {
        for (int i = from; i < to; i++) {
            long c = vc[i];
            p = zz(buf, p, c - (C_MASK[pk[i] & 0xff] & vb[i]));
        }
        return p;
    }

    private static int predictedUsed(byte[] buf, int p, long[] vu, long[] vb, int[] pk, long[] pU, int from, int to) {
        for (int i = from; i < to; i++) {
            int packed = pk[i];
            int sl = packed >>> 16;
            long u = vu[i];
            p = zz(buf, p, u - pU[sl] - USED_SIGN[packed & 0xff] * vb[i]);
            pU[sl] = u;
        }
        return p;
    }

    private static int perMemoryDeltas(byte[] buf, int p, long[] vx, int[] pk, long[] pX, int from, int to) {
        for (int i = from; i < to; i++) {
            int sl = pk[i] >>> 16;
            long x = vx[i];
            p = zz(buf, p, x - pX[sl]);
            pX[sl] = x;
        }
        return p;
    }

    /** Events decoded a slice at a time (layout 2): the slice's values stay in the cache between passes. */
    private static final int SLICE = 2048;
    private final long[][] colScratch = {new long[SLICE], new long[SLICE], new long[SLICE], new long[1024], new long[1024]};

    private static final VarHandle LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    /**
     * Writes {@code v} as an unsigned LEB128 varint at {@code p} and returns the position after it.
     * Values below 2^56 (all but the rarest) take a branch-free path: the seven-bit groups are spread
     * to bytes with three shift-and-mask steps, the continuation bits come from the length, and one 8-byte store
     * writes it, so {@code b} must have 8 bytes of room from {@code p} (the encoder keeps 10 a value).
     */
    private static int uv(byte[] b, int p, long v) {
        if ((v & ~0x7FL) == 0) {
            b[p] = (byte) v; // most values of most columns: a single byte
            return p + 1;
        }
        if (v >>> 56 != 0) {
            return uvLong(b, p, v);
        }
        // spread 28-bit halves to 32-bit lanes, then 14-bit quarters to 16-bit lanes, then 7-bit groups to bytes
        long x = (v & 0x0fffffffL) | (v << 4 & 0x0fffffff00000000L);
        x = (x & 0x00003fff00003fffL) | (x << 2 & 0x3fff00003fff0000L);
        x = (x & 0x007f007f007f007fL) | (x << 1 & 0x7f007f007f007f00L);
        int nb = VARINT_BYTES[64 - Long.numberOfLeadingZeros(v)];
        LE.set(b, p, x | (HIGH_BITS & ((1L << ((nb - 1) << 3)) - 1)));
        return p + nb;
    }

    /** Bytes of a varint by the bit length of its value (0..64). */
    private static final int[] VARINT_BYTES = new int[65];

    static {
        for (int bits = 0; bits <= 64; bits++) {
            VARINT_BYTES[bits] = Math.max(1, (bits + 6) / 7);
        }
    }

    private static int uvLong(byte[] b, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    private static int zz(byte[] b, int p, long v) {
        return uv(b, p, (v << 1) ^ (v >> 63));
    }

    private static long unzz(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /** Kind codes a reader accepts (the known {@link EventKind} codes). */
    private static final boolean[] KNOWN_KIND = new boolean[256];

    static {
        for (EventKind k : EventKind.values()) {
            KNOWN_KIND[k.code()] = true;
        }
    }

    /**
     * Reads columns written by {@link #encodeEvents} and appends the events to {@code out}. Each column
     * is read by its own loop into the batch's arrays; an error names the byte offset of the bad value.
     */
    public void decodeEvents(ByteReader r, EventBatch out) throws TraceFormatException {
        decodeEvents(r, out, version);
    }

    /** As {@link #decodeEvents(ByteReader, EventBatch)} for columns of event layout {@code layout} (1 or 2). */
    public void decodeEvents(ByteReader r, EventBatch out, int layout) throws TraceFormatException {
        if (layout == 1) {
            decodeEventsV1(r, out);
        } else if (layout == VERSION) {
            decodeEventsV2(r, out);
        } else {
            throw new IllegalArgumentException("event layout version " + layout);
        }
    }

    // the shape table of the chunk being decoded
    private int[] shapePacked = new int[64];
    private int[] shapeThread = new int[64];

    /** Layout 2: the shape table, then nine columns. */
    private void decodeEventsV2(ByteReader r, EventBatch out) throws TraceFormatException {
        resetSlots();
        int n = r.count(Math.min(MAX_EVENTS, r.remaining()), "event count");
        // a shape takes at least 3 bytes and is used by some event
        int shapes = r.count(Math.min(n, r.remaining() / 3), "shape count");
        if (shapePacked.length < shapes) {
            shapePacked = new int[Math.max(shapes, 2 * shapePacked.length)];
            shapeThread = new int[shapePacked.length];
        }
        int[] sp = shapePacked;
        int[] st = shapeThread;
        int maxSlot = 0;
        for (int s = 0; s < shapes; s++) {
            long at = r.sourceOffset();
            long kf = r.varint();
            if (kf < 0 || kf > 0xffff || !KNOWN_KIND[(int) kf & 0xff]) {
                throw new TraceFormatException(r.source(), at, "shape " + s + ": unknown kind code " + (kf & 0xff));
            }
            at = r.sourceOffset();
            long mem = r.svarint();
            if (mem < -1 || mem > EventBatch.MAX_MEMORY_ID) {
                throw new TraceFormatException(r.source(), at, "shape " + s + ": memory id " + mem + " out of range");
            }
            int thread = r.svarint32("shape " + s + ": thread id");
            sp[s] = (int) kf | (int) (mem + 1) << 16;
            st[s] = thread;
            maxSlot = Math.max(maxSlot, (int) (mem + 1));
        }
        int[] len = new int[COLUMNS_V2];
        long total = 0;
        for (int k = 0; k < COLUMNS_V2; k++) {
            len[k] = r.count(r.remaining(), "column length");
            total += len[k];
        }
        if (total > r.remaining()) {
            throw r.error("columns claim " + total + " bytes, " + r.remaining() + " left");
        }
        if (total < (long) n * COLUMNS_V2) {
            throw r.error(n + " events need at least " + (long) n * COLUMNS_V2 + " column bytes, the columns hold " + total);
        }
        if (n > 0 && shapes == 0) {
            throw r.error(n + " events and no shapes");
        }
        byte[] buf = r.backing();
        int[] colStart = new int[COLUMNS_V2 + 1];
        long base = r.sourceOffset() - r.position(); // source offset of buf[0]
        colStart[0] = r.position();
        for (int k = 0; k < COLUMNS_V2; k++) {
            colStart[k + 1] = colStart[k] + len[k];
        }
        r.skip((int) total);
        String src = r.source();
        out.reserve(n);
        int o = out.size;
        long[] ta = out.time;
        int[] pk = out.kindFlagsMemory;
        int[] th = out.thread;
        long[] va = out.a;
        long[] vb = out.b;
        long[] vc = out.c;
        long[] vu = out.used;
        long[] vx = out.aux;
        int[] r1 = out.ref;
        int[] r2 = out.ref2;
        long[] vs = colScratch[0];
        long[] v7 = colScratch[1];
        long[] v8 = colScratch[2];
        slot(maxSlot);
        long[] pA = prevA;
        long[] pU = prevUsed;
        long[] pX = prevAux;
        int[] pos = colStart.clone();
        long t = 0;
        // slice by slice, so what one pass writes the next reads from the cache
        for (int first = 0; first < n; first += SLICE) {
            int m = Math.min(SLICE, n - first);
            int o0 = o + first;
            // the stored varints, before deltas and predictions: the columns of several bytes a value
            // four at a time, those of mostly one byte one by one; long columns straight into the batch
            readColumns(buf, pos, colStart, 0, 2, 3, 4, ta, va, vb, vc, o0, m, first, src, base);
            readColumn(buf, pos, colStart, 1, vs, 0, m, first, src, base);
            readColumn(buf, pos, colStart, 5, vu, o0, m, first, src, base);
            readColumn(buf, pos, colStart, 6, vx, o0, m, first, src, base);
            readColumn(buf, pos, colStart, 7, v7, 0, m, first, src, base);
            readColumn(buf, pos, colStart, 8, v8, 0, m, first, src, base);
            for (int i = 0; i < m; i++) {
                int j = o0 + i;
                t += unzz(ta[j]);
                ta[j] = t;
                long shape = vs[i];
                if (shape < 0 || shape >= shapes) {
                    throw valueError(buf, colStart, 1, first + i, src, base, "event " + (first + i) + ": shape " + shape + " of " + shapes);
                }
                int packed = sp[(int) shape];
                pk[j] = packed;
                th[j] = st[(int) shape];
                int s = packed >>> 16;
                int kind = packed & 0xff;
                long b = unzz(vb[j]);
                vb[j] = b;
                long a = pA[s] + unzz(va[j]);
                va[j] = a;
                pA[s] = a + (A_NEXT[packed & 0x1ff] & b);
                long c = unzz(vc[j]);
                vc[j] = c + (C_MASK[kind] & b);
                long u = pU[s] + USED_SIGN[kind] * b + unzz(vu[j]);
                vu[j] = u;
                pU[s] = u;
                long x = pX[s] + unzz(vx[j]);
                vx[j] = x;
                pX[s] = x;
                long x1 = unzz(v7[i]);
                long x2 = unzz(v8[i]);
                if (x1 != (int) x1 || x2 != (int) x2) {
                    throw valueError(buf, colStart, x1 != (int) x1 ? 7 : 8, first + i, src, base,
                            "event " + (first + i) + ": ref out of 32-bit range");
                }
                r1[j] = (int) x1;
                r2[j] = (int) x2;
            }
        }
        checkEnds(pos, colStart, COLUMNS_V2, n, src, base);
        out.size = o + n;
    }

    /** Layout 1: eleven columns, kind+flags, memory and thread among them. */
    private void decodeEventsV1(ByteReader r, EventBatch out) throws TraceFormatException {
        resetSlots();
        int n = r.count(Math.min(MAX_EVENTS, r.remaining()), "event count");
        int[] len = new int[COLUMNS];
        long total = 0;
        for (int k = 0; k < COLUMNS; k++) {
            len[k] = r.count(r.remaining(), "column length");
            total += len[k];
        }
        if (total > r.remaining()) {
            throw r.error("columns claim " + total + " bytes, " + r.remaining() + " left");
        }
        if (total < (long) n * COLUMNS) {
            throw r.error(n + " events need at least " + (long) n * COLUMNS + " column bytes, the columns hold " + total);
        }
        byte[] buf = r.backing();
        int[] colStart = new int[COLUMNS + 1];
        long base = r.sourceOffset() - r.position(); // source offset of buf[0]
        colStart[0] = r.position();
        for (int k = 0; k < COLUMNS; k++) {
            colStart[k + 1] = colStart[k] + len[k];
        }
        r.skip((int) total);
        if (colScratch[0].length < n) {
            for (int k = 0; k < colScratch.length; k++) {
                colScratch[k] = new long[Math.max(n, 2 * colScratch[k].length)];
            }
        }
        String src = r.source();
        out.reserve(n);
        int o = out.size;
        long[] ta = out.time;
        int[] pk = out.kindFlagsMemory;
        int[] th = out.thread;
        long[] va = out.a;
        long[] vb = out.b;
        long[] vc = out.c;
        long[] vu = out.used;
        long[] vx = out.aux;
        int[] r1 = out.ref;
        int[] r2 = out.ref2;
        long[] vk = colScratch[0];
        long[] vm = colScratch[1];
        long[] vt = colScratch[2];
        long[] v9 = colScratch[3];
        long[] v10 = colScratch[4];
        // the stored varints, before deltas and predictions: the columns of several bytes a value four
        // at a time, those of mostly one byte one by one; long columns straight into the batch
        int[] pos = colStart.clone();
        readColumns(buf, pos, colStart, 0, 4, 5, 6, ta, va, vb, vc, o, n, 0, src, base);
        readColumn(buf, pos, colStart, 1, vk, 0, n, 0, src, base);
        readColumn(buf, pos, colStart, 2, vm, 0, n, 0, src, base);
        readColumn(buf, pos, colStart, 3, vt, 0, n, 0, src, base);
        readColumn(buf, pos, colStart, 7, vu, o, n, 0, src, base);
        readColumn(buf, pos, colStart, 8, vx, o, n, 0, src, base);
        readColumn(buf, pos, colStart, 9, v9, 0, n, 0, src, base);
        readColumn(buf, pos, colStart, 10, v10, 0, n, 0, src, base);
        checkEnds(pos, colStart, COLUMNS, n, src, base);
        // memory slots first: the per-memory predictions index arrays by them
        long sl = 0;
        int maxSlot = 0;
        for (int i = 0; i < n; i++) {
            sl += unzz(vm[i]);
            if (sl < 0 || sl > MAX_MEMORY_SLOT) {
                throw valueError(buf, colStart, 2, i, src, base, "event " + i + ": memory id " + (sl - 1) + " out of range");
            }
            vm[i] = sl;
            maxSlot = Math.max(maxSlot, (int) sl);
        }
        slot(maxSlot);
        long[] pA = prevA;
        long[] pU = prevUsed;
        long[] pX = prevAux;
        long t = 0;
        long tv = 0;
        for (int i = 0; i < n; i++) {
            int j = o + i;
            t += unzz(ta[j]);
            ta[j] = t;
            long kf = vk[i];
            if ((kf & ~0xffffL) != 0 || !KNOWN_KIND[(int) kf & 0xff]) {
                throw valueError(buf, colStart, 1, i, src, base, "event " + i + ": unknown kind code " + (kf & 0xff));
            }
            int s = (int) vm[i];
            int packed = (int) kf | s << 16;
            pk[j] = packed;
            tv += unzz(vt[i]);
            if (tv != (int) tv) {
                throw valueError(buf, colStart, 3, i, src, base, "event " + i + ": thread id " + tv + " out of range");
            }
            th[j] = (int) tv;
            int kind = packed & 0xff;
            long b = unzz(vb[j]);
            vb[j] = b;
            long a = pA[s] + unzz(va[j]);
            va[j] = a;
            pA[s] = a + (A_NEXT[packed & 0x1ff] & b);
            long c = unzz(vc[j]);
            vc[j] = c + (C_MASK[kind] & b);
            long u = pU[s] + USED_SIGN[kind] * b + unzz(vu[j]);
            vu[j] = u;
            pU[s] = u;
            long x = pX[s] + unzz(vx[j]);
            vx[j] = x;
            pX[s] = x;
            long x1 = unzz(v9[i]);
            long x2 = unzz(v10[i]);
            if (x1 != (int) x1 || x2 != (int) x2) {
                throw valueError(buf, colStart, x1 != (int) x1 ? 9 : 10, i, src, base, "event " + i + ": ref out of 32-bit range");
            }
            r1[j] = (int) x1;
            r2[j] = (int) x2;
        }
        out.size = o + n;
    }

    /**
     * The value of a varint whose bytes start {@code w} (little-endian), given {@code tz}, the bit
     * index of its last byte's high bit: the 7-bit groups gathered with three shift-and-mask steps.
     */
    private static long gather(long w, int tz) {
        long x = w & (-1L >>> (63 - tz));
        x = (x & 0x007f007f007f007fL) | (x >>> 1 & 0x3f803f803f803f80L);
        x = (x & 0x00003fff00003fffL) | (x >>> 2 & 0x0fffc0000fffc000L);
        return (x & 0x000000000fffffffL) | (x >>> 4 & 0x00fffffff0000000L);
    }

    /**
     * Reads {@code m} varints of each of the four columns {@code k0 .. k3}, from {@code pos[k]} (which
     * advance), into {@code d0 .. d3} from index {@code off}. A varint's length depends on where the
     * previous one ended, so one column decodes at the speed of that chain of loads; reading four
     * columns in one loop runs four chains side by side. Each value is gathered branch-free from an
     * 8-byte read; the loop stops short of each column's last 8 bytes (and at any varint longer than 8
     * bytes), and {@link #readColumn} finishes byte by byte. For columns whose values take several
     * bytes. {@code first} is the first value's event index, for messages.
     */
    private static void readColumns(byte[] buf, int[] pos, int[] start, int k0, int k1, int k2, int k3,
                                    long[] d0, long[] d1, long[] d2, long[] d3, int off, int m, int first,
                                    String source, long base) throws TraceFormatException {
        int p0 = pos[k0];
        int p1 = pos[k1];
        int p2 = pos[k2];
        int p3 = pos[k3];
        int f0 = start[k0 + 1] - 8;
        int f1 = start[k1 + 1] - 8;
        int f2 = start[k2 + 1] - 8;
        int f3 = start[k3 + 1] - 8;
        int i = 0;
        for (; i < m && p0 <= f0 && p1 <= f1 && p2 <= f2 && p3 <= f3; i++) {
            long w0 = (long) LE.get(buf, p0);
            long s0 = ~w0 & HIGH_BITS;
            long w1 = (long) LE.get(buf, p1);
            long s1 = ~w1 & HIGH_BITS;
            long w2 = (long) LE.get(buf, p2);
            long s2 = ~w2 & HIGH_BITS;
            long w3 = (long) LE.get(buf, p3);
            long s3 = ~w3 & HIGH_BITS;
            if (s0 == 0 | s1 == 0 | s2 == 0 | s3 == 0) {
                break;
            }
            int t0 = Long.numberOfTrailingZeros(s0);
            int t1 = Long.numberOfTrailingZeros(s1);
            int t2 = Long.numberOfTrailingZeros(s2);
            int t3 = Long.numberOfTrailingZeros(s3);
            d0[off + i] = gather(w0, t0);
            d1[off + i] = gather(w1, t1);
            d2[off + i] = gather(w2, t2);
            d3[off + i] = gather(w3, t3);
            p0 += (t0 + 1) >>> 3;
            p1 += (t1 + 1) >>> 3;
            p2 += (t2 + 1) >>> 3;
            p3 += (t3 + 1) >>> 3;
        }
        pos[k0] = readColumn(buf, p0, start[k0 + 1], k0, d0, off, i, m, first, source, base);
        pos[k1] = readColumn(buf, p1, start[k1 + 1], k1, d1, off, i, m, first, source, base);
        pos[k2] = readColumn(buf, p2, start[k2 + 1], k2, d2, off, i, m, first, source, base);
        pos[k3] = readColumn(buf, p3, start[k3 + 1], k3, d3, off, i, m, first, source, base);
    }

    /** {@link #readColumn(byte[], int, int, int, long[], int, int, int, int, String, long)} of column {@code k} from {@code pos[k]}. */
    private static void readColumn(byte[] buf, int[] pos, int[] start, int k, long[] dst, int off, int m, int first,
                                   String source, long base) throws TraceFormatException {
        pos[k] = readColumn(buf, pos[k], start[k + 1], k, dst, off, 0, m, first, source, base);
    }

    /**
     * Reads values {@code [i, m)} of column {@code k} (which ends at {@code end}) from {@code p} into
     * {@code dst} from index {@code off + i}, and returns where it stopped. A value of one byte (what
     * most columns hold) takes a predicted branch; longer ones are gathered branch-free.
     */
    private static int readColumn(byte[] buf, int p, int end, int k, long[] dst, int off, int i, int m, int first,
                                  String source, long base) throws TraceFormatException {
        int fastEnd = end - 8;
        while (i < m) {
            if (p <= fastEnd) {
                long w = (long) LE.get(buf, p);
                if ((w & 0x80) == 0) {
                    dst[off + i++] = w & 0x7f; // most values of most columns: a single byte
                    p++;
                    continue;
                }
                long stop = ~w & HIGH_BITS;
                if (stop != 0) {
                    int tz = Long.numberOfTrailingZeros(stop);
                    dst[off + i++] = gather(w, tz);
                    p += (tz + 1) >>> 3;
                    continue;
                }
            }
            // near the column's end, or a varint of 9 or 10 bytes: byte by byte
            if (p >= end) {
                throw new TraceFormatException(source, base + p, "column " + k + ": truncated varint (event " + (first + i) + ")");
            }
            long x = buf[p++];
            if (x < 0) {
                x &= 0x7f;
                for (int shift = 7; ; shift += 7) {
                    if (shift > 63) {
                        throw new TraceFormatException(source, base + p, "column " + k + ": varint longer than 10 bytes");
                    }
                    if (p >= end) {
                        throw new TraceFormatException(source, base + p, "column " + k + ": truncated varint (event " + (first + i) + ")");
                    }
                    long y = buf[p++];
                    x |= (y & 0x7f) << shift;
                    if (y >= 0) {
                        break;
                    }
                }
            }
            dst[off + i++] = x;
        }
        return p;
    }

    /** Checks that every column was read to its end. */
    private static void checkEnds(int[] pos, int[] start, int columns, int n, String source, long base) throws TraceFormatException {
        for (int k = 0; k < columns; k++) {
            if (pos[k] != start[k + 1]) {
                throw new TraceFormatException(source, base + pos[k], "column " + k + " has " + (start[k + 1] - pos[k])
                        + " bytes left after " + n + " events");
            }
        }
    }

    /** An error about value {@code i} of column {@code k}, at that value's byte offset (found by rescanning). */
    private static TraceFormatException valueError(byte[] buf, int[] start, int k, int i, String source, long base, String what) {
        int p = start[k];
        for (int j = 0; j < i; j++) {
            while (buf[p++] < 0) {
                // skip the varint: the column was read whole already, so it is well formed
            }
        }
        return new TraceFormatException(source, base + p, what);
    }

    @Override
    public void close() {
        if (cctx != null) {
            cctx.close();
            cctx = null;
        }
        if (dctx != null) {
            dctx.close();
            dctx = null;
        }
    }
}
