package dev.arenascope.core.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
 * events stored as eleven columns of delta/zigzag varints, preceded by the metadata records that
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

    private static final int COLUMNS = 11;
    private static final int MAX_MEMORY_SLOT = EventBatch.MAX_MEMORY_ID + 1;
    /** Per kind code: how {@code used} is predicted to move by {@code b} (+1 grows, -1 shrinks, 0 stays). */
    private static final int[] USED_SIGN = new int[256];
    /** Per kind code: whether the next {@code a} is predicted at {@code a + b} (a bump allocation's end). */
    private static final boolean[] A_PLUS_B = new boolean[256];
    /** Per kind code: whether {@code c} is stored relative to {@code b} (requested vs allocated bytes). */
    private static final boolean[] C_FROM_B = new boolean[256];

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
    }

    private final int level;
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
        this.level = level;
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
     */
    public record Chunk(List<MetaRecord> meta, EventBatch events, long firstTimeNs, long lastTimeNs,
                        byte[] payload, int rawBytes, int frameBytes) {}

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
        if (raw.size() > MAX_RAW_BYTES) {
            throw new IllegalArgumentException("chunk payload of " + raw.size() + " bytes exceeds " + MAX_RAW_BYTES);
        }
        long first = 0;
        long last = 0;
        if (n > 0) {
            first = batch.time(from);
            last = first;
            for (int i = from + 1; i < to; i++) {
                last = Math.max(last, batch.time(i));
            }
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
        // every event takes at least one byte in each of the 11 columns: a forged count cannot over-allocate
        EventBatch events = new EventBatch(Math.min(fh.events(), fh.rawBytes() / COLUMNS + 16));
        List<MetaRecord> meta = new ArrayList<>();
        ByteReader r = new ByteReader(rawBytes, 0, rawBytes.length, source + " (chunk at byte " + offset + ", decompressed)", 0);
        decodePayload(r, meta, events);
        if (events.size() != fh.events()) {
            throw new TraceFormatException(source, offset, "chunk header says " + fh.events() + " events, payload holds " + events.size());
        }
        if (r.remaining() != 0) {
            throw new TraceFormatException(source, offset, "chunk payload has " + r.remaining() + " trailing bytes");
        }
        return new Chunk(meta, events, fh.firstTimeNs(), fh.lastTimeNs(), exact, fh.rawBytes(),
                FRAME_HEADER_BYTES + fh.payloadBytes());
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
        byte[] rawb = decompress(packed, rawBytes, source, 0);
        ByteReader r = new ByteReader(rawb, 0, rawb.length, source, 0);
        int metaLen = r.count(r.remaining(), "metadata length");
        r.skip(metaLen);
        decodeEvents(r, out);
    }

    private byte[] decompress(byte[] src, int rawLen, String source, long offset) throws TraceFormatException {
        if (dctx == null) {
            dctx = new ZstdDecompressCtx();
        }
        long declared = Zstd.getFrameContentSize(src, 0, src.length);
        if (declared != rawLen) {
            throw new TraceFormatException(source, offset, "compressed payload declares " + declared + " bytes, header says " + rawLen);
        }
        byte[] dst = new byte[rawLen];
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
        ByteWriter m = metaBuf;
        m.clear();
        m.varint(meta.size());
        for (MetaRecord rec : meta) {
            encodeMeta(rec, m);
        }
        out.varint(m.size());
        out.bytes(m.array(), 0, m.size());
        encodeEvents(batch, from, to, out);
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
        decodeEvents(r, events);
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
     * Writes events {@code [from, to)} as: varint count, eleven varint column lengths, the columns
     * (time, kind+flags, memory, thread, a, b, c, used, aux, ref, ref2). Deltas run within the chunk only.
     */
    public void encodeEvents(EventBatch batch, int from, int to, ByteWriter out) {
        resetSlots();
        int n = to - from;
        int cap = Math.max(64, n * 10);
        if (scratch[0] == null || scratch[0].length < cap) {
            for (int k = 0; k < COLUMNS; k++) {
                scratch[k] = new byte[cap];
            }
        }
        byte[] bT = scratch[0], bK = scratch[1], bM = scratch[2], bTh = scratch[3], bA = scratch[4], bB = scratch[5],
                bC = scratch[6], bU = scratch[7], bX = scratch[8], bR = scratch[9], bR2 = scratch[10];
        int pT = 0, pK = 0, pM = 0, pTh = 0, pA = 0, pB = 0, pC = 0, pU = 0, pX = 0, pR = 0, pR2 = 0;
        long prevT = 0;
        int prevMem = -1;
        int prevTh = 0;
        for (int i = from; i < to; i++) {
            long t = batch.time(i);
            pT = zz(bT, pT, t - prevT);
            prevT = t;
            int packed = batch.packed(i);
            int kind = packed & 0xff;
            int mem = (packed >>> 16) - 1;
            pK = uv(bK, pK, packed & 0xffff);
            pM = zz(bM, pM, mem - prevMem);
            prevMem = mem;
            int th = batch.thread(i);
            pTh = zz(bTh, pTh, (long) th - prevTh);
            prevTh = th;
            int sl = mem + 1;
            if (sl >= slotsInUse) {
                slot(sl);
            }
            long a = batch.a(i);
            long b = batch.b(i);
            pA = zz(bA, pA, a - prevA[sl]);
            prevA[sl] = A_PLUS_B[kind] && (packed & (Event.FLAG_BACKWARD << 8)) == 0 ? a + b : a;
            pB = zz(bB, pB, b);
            long c = batch.c(i);
            pC = zz(bC, pC, C_FROM_B[kind] ? c - b : c);
            long used = batch.used(i);
            pU = zz(bU, pU, used - prevUsed[sl] - USED_SIGN[kind] * b);
            prevUsed[sl] = used;
            long aux = batch.aux(i);
            pX = zz(bX, pX, aux - prevAux[sl]);
            prevAux[sl] = aux;
            pR = zz(bR, pR, batch.ref(i));
            pR2 = zz(bR2, pR2, batch.ref2(i));
        }
        int[] lens = {pT, pK, pM, pTh, pA, pB, pC, pU, pX, pR, pR2};
        out.varint(n);
        for (int len : lens) {
            out.varint(len);
        }
        for (int k = 0; k < COLUMNS; k++) {
            out.bytes(scratch[k], 0, lens[k]);
        }
    }

    private final byte[][] scratch = new byte[COLUMNS][];

    private static int uv(byte[] b, int p, long v) {
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

    /** Reads columns written by {@link #encodeEvents} and appends the events to {@code out}. */
    public void decodeEvents(ByteReader r, EventBatch out) throws TraceFormatException {
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
        Col[] c = new Col[COLUMNS];
        for (int k = 0; k < COLUMNS; k++) {
            long at = r.sourceOffset();
            int p = r.position();
            r.skip(len[k]);
            c[k] = new Col(rBuf(r), p, p + len[k], at, r);
        }
        Col cT = c[0], cK = c[1], cM = c[2], cTh = c[3], cA = c[4], cB = c[5], cC = c[6], cU = c[7], cX = c[8], cR = c[9], cR2 = c[10];
        long prevT = 0;
        long prevMem = -1;
        long prevTh = 0;
        for (int i = 0; i < n; i++) {
            long t = prevT + cT.sv();
            prevT = t;
            long kf = cK.uv();
            int kind = (int) (kf & 0xff);
            if (kf > 0xffff || EventKind.ofCode(kind) == null) {
                throw cK.error("event " + i + ": unknown kind code " + kind);
            }
            long mem = prevMem + cM.sv();
            if (mem < -1 || mem > EventBatch.MAX_MEMORY_ID) {
                throw cM.error("event " + i + ": memory id " + mem + " out of range");
            }
            prevMem = mem;
            long th = prevTh + cTh.sv();
            if (th != (int) th) {
                throw cTh.error("event " + i + ": thread id " + th + " out of range");
            }
            prevTh = th;
            int s = (int) mem + 1;
            slot(s);
            long a = prevA[s] + cA.sv();
            long b = cB.sv();
            prevA[s] = A_PLUS_B[kind] && (kf & (Event.FLAG_BACKWARD << 8)) == 0 ? a + b : a;
            long cv = cC.sv();
            long cc = C_FROM_B[kind] ? cv + b : cv;
            long used = prevUsed[s] + USED_SIGN[kind] * b + cU.sv();
            prevUsed[s] = used;
            long aux = prevAux[s] + cX.sv();
            prevAux[s] = aux;
            long ref = cR.sv();
            long ref2 = cR2.sv();
            if (ref != (int) ref || ref2 != (int) ref2) {
                throw cR.error("event " + i + ": ref out of 32-bit range");
            }
            out.add(t, (int) kf | ((int) mem + 1) << 16, (int) th, a, b, cc, used, aux, (int) ref, (int) ref2);
        }
        for (int k = 0; k < COLUMNS; k++) {
            if (c[k].pos != c[k].end) {
                throw c[k].error("column " + k + " has " + (c[k].end - c[k].pos) + " bytes left after " + n + " events");
            }
        }
    }

    private static byte[] rBuf(ByteReader r) {
        return r.backing();
    }

    /** A cursor over one column's bytes. */
    private static final class Col {
        final byte[] buf;
        int pos;
        final int end;
        final long base;
        final ByteReader owner;

        Col(byte[] buf, int pos, int end, long sourceOffset, ByteReader owner) {
            this.buf = buf;
            this.pos = pos;
            this.end = end;
            this.base = sourceOffset - pos;
            this.owner = owner;
        }

        long uv() throws TraceFormatException {
            int p = pos;
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (p >= end) {
                    pos = p;
                    throw error("truncated varint");
                }
                int b = buf[p++];
                v |= (long) (b & 0x7f) << shift;
                if (b >= 0) {
                    pos = p;
                    return v;
                }
            }
            pos = p;
            throw error("varint longer than 10 bytes");
        }

        long sv() throws TraceFormatException {
            long v = uv();
            return (v >>> 1) ^ -(v & 1);
        }

        TraceFormatException error(String what) {
            return new TraceFormatException(owner.source(), base + pos, what);
        }
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
