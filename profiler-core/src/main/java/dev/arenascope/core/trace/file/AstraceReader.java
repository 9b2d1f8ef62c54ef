package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackBounds;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.codec.DecodeBudget;
import dev.arenascope.core.trace.codec.DuplicateFrames;
import dev.arenascope.core.trace.codec.EventLayout;
import dev.arenascope.core.trace.codec.FrameHeader;
import dev.arenascope.core.trace.codec.MetaCodec;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.util.Progress;

/**
 * Reads an {@code .astrace} file: as a pull reader ({@link #nextChunk()}, {@link #readEvent()}), into any
 * {@link EventSink} ({@link #read}) or into an {@link EventStore} ({@link #load}), the last two decoding
 * chunks on several cores.
 *
 * <p>Damage: a bad header (wrong magic, unknown version, a length past the file, a checksum mismatch)
 * throws {@link TraceFormatException} from {@link #open}, since nothing after it can be trusted. A bad
 * chunk (truncated, checksum mismatch, forged lengths, undecodable columns) is skipped: the reader moves
 * to the next chunk the footer index names, or scans for the next frame whose checksum holds, and
 * records the problem in {@link #result()}. A file without footer (a recording that was killed) reads
 * up to its last whole chunk. Lengths are checked against the bytes left in the file before anything
 * is allocated. What chunks claim to decompress to is bounded by a {@link DecodeBudget}: a chunk past
 * the per-chunk bound is skipped as damaged, and reading stops (keeping what came before) at the
 * first chunk that would take the whole file past its bound, so a small file never costs more than a
 * constant plus a multiple of its size. A chunk that repeats an earlier one byte for byte
 * ({@link DuplicateFrames}) is skipped and recorded, so no event counts twice. Not thread-safe.
 *
 * <p>Parts: this class is the pull reader (header, footer, frames found, checked and resynchronised,
 * metadata remembered); {@link AstraceLoad} is the whole-file pipeline on top of it (decoding on worker
 * threads, delivery in file order).
 */
public final class AstraceReader implements AutoCloseable {
    private static final int MAX_PROBLEMS = 8;
    private static final int MAX_RESYNC_CANDIDATES = 4096;

    private final Path path;
    private final String source;
    private final FileChannel ch;
    /** The file's length when opened (or when a follower last {@link #refresh refreshed}). */
    private long size;
    private final SessionInfo session;
    private final List<MetaRecord> headerMeta;
    private final long dataStart;
    /** The file's format version, which is also its chunks' event layout. */
    private final int version;
    private final ChunkCodec codec;
    private final CRC32C crc = new CRC32C();
    // footer, when present and sound
    private long footerOffset = -1;
    private long[] indexOffsets;
    private long[] indexLastTimes;
    private long footerEvents = -1;
    private long footerLost;
    private long firstFooterTime;
    // progress
    private long pos;
    private boolean done;
    private boolean sawFooter;
    private long events;
    private int chunks;
    private long lost;
    private final List<String> problems = new ArrayList<>();
    /** Whether the file was still being written when it was opened (its {@link WriterNote} names a running process). */
    private boolean stillWriting;
    /** The file's identity when opened (null where the file system has none), to tell a replaced file. */
    private final Object fileKey;
    /** Whether the header was not written yet when the file was opened (a recording in progress). */
    private final boolean headerMissing;
    private int problemCount;
    /** The file offset of the chunk accepted last (what a problem found while delivering it names). */
    private long acceptedAt;
    // pull state
    private ChunkCodec.Chunk current;
    // what the chunks found so far claim (bounded against what the file holds), and which frames were seen
    private final DecodeBudget budget = new DecodeBudget();
    private final DuplicateFrames seenFrames = new DuplicateFrames();
    private long chargedTo = -1;
    private int currentIndex;
    private final Map<Integer, MemoryInfo> memories = new HashMap<>();
    private final Map<Integer, String> strings = new HashMap<>();
    private final Map<Integer, String> threads = new HashMap<>();
    private final SiteTable sites = new SiteTable();
    private final StackBounds depths = new StackBounds();

    private AstraceReader(Path path, FileChannel ch) throws IOException {
        this.path = path;
        this.source = path.toString();
        this.ch = ch;
        this.stillWriting = WriterNote.check(path) == WriterNote.State.WRITING;
        this.fileKey = fileKey(path);
        this.size = ch.size();
        this.headerMissing = stillWriting && !headerSealed();
        if (headerMissing) {
            // a recording that has not written its first chunk yet: nothing to read so far, and no damage
            session = new SessionInfo("", "", 0, List.of(), Map.of());
            headerMeta = List.of();
            version = AstraceFormat.VERSION;
            codec = new ChunkCodec(ChunkCodec.DEFAULT_LEVEL, version);
            dataStart = size;
            pos = size;
            done = true;
            return;
        }
        if (size < AstraceFormat.HEADER_FIXED) {
            throw new TraceFormatException(source, 0, "too short to be an .astrace file (" + size + " bytes)");
        }
        byte[] fixed = readAt(0, AstraceFormat.HEADER_FIXED);
        if (!Arrays.equals(fixed, 0, 8, AstraceFormat.MAGIC, 0, 8)) {
            throw new TraceFormatException(source, 0, "not an .astrace file (wrong magic)");
        }
        ByteReader r = new ByteReader(fixed, 8, fixed.length - 8, source, 8);
        int version = r.u8() | r.u8() << 8;
        if (version < AstraceFormat.OLDEST_VERSION || version > AstraceFormat.VERSION) {
            throw new TraceFormatException(source, 8, "unsupported .astrace version " + version + " (this build reads versions "
                    + AstraceFormat.OLDEST_VERSION + " to " + AstraceFormat.VERSION + ")");
        }
        this.version = version;
        this.codec = new ChunkCodec(ChunkCodec.DEFAULT_LEVEL, version);
        r.skip(2);
        long bodyLen = r.u32() & 0xffffffffL;
        int bodyCrc = r.u32();
        if (bodyLen > size - AstraceFormat.HEADER_FIXED || bodyLen > AstraceFormat.MAX_META_BYTES) {
            throw new TraceFormatException(source, 12, "header claims " + bodyLen + " bytes, the file has "
                    + (size - AstraceFormat.HEADER_FIXED) + " after the fixed header");
        }
        byte[] body = readAt(AstraceFormat.HEADER_FIXED, (int) bodyLen);
        crc.reset();
        crc.update(body);
        if ((int) crc.getValue() != bodyCrc) {
            throw new TraceFormatException(source, AstraceFormat.HEADER_FIXED, "header checksum mismatch");
        }
        ByteReader br = new ByteReader(body, 0, body.length, source, AstraceFormat.HEADER_FIXED);
        session = MetaCodec.decodeSession(br);
        int n = br.count(br.remaining(), "header metadata count");
        List<MetaRecord> meta = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            meta.add(MetaCodec.decodeMeta(br, EventLayout.of(version)));
        }
        if (br.remaining() != 0) {
            throw br.error("header has " + br.remaining() + " trailing bytes");
        }
        headerMeta = List.copyOf(meta);
        acceptedAt = AstraceFormat.HEADER_FIXED;
        meta.forEach(this::remember);
        dataStart = AstraceFormat.HEADER_FIXED + bodyLen;
        pos = dataStart;
        readFooter();
    }

    private static Object fileKey(Path path) {
        try {
            return java.nio.file.Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** Whether the header was not in the file yet when it was opened: a follower opens it again later. */
    boolean headerMissing() {
        return headerMissing;
    }

    /**
     * For a follower ({@link AstraceTail}): takes in what the writer sealed since the last read (the
     * file's new length; its footer once the writer closed it), so that {@link #nextChunk()} goes on
     * from where it stopped.
     *
     * @return false when the path names another file now (a capped recording replaced it), or none
     */
    boolean refresh() throws IOException {
        Object now = fileKey(path);
        if (now == null || fileKey != null && !fileKey.equals(now)) {
            return false;
        }
        stillWriting = WriterNote.check(path) == WriterNote.State.WRITING;
        size = ch.size();
        if (!stillWriting && footerOffset < 0) {
            readFooter();
        }
        done = false;
        current = null;
        return true;
    }

    /** Whether the whole header is in the file yet (it is written with the first chunk). */
    private boolean headerSealed() throws IOException {
        if (size < AstraceFormat.HEADER_FIXED) {
            return false;
        }
        byte[] fixed = readAt(0, AstraceFormat.HEADER_FIXED);
        long bodyLen = (fixed[12] & 0xffL) | (fixed[13] & 0xffL) << 8 | (fixed[14] & 0xffL) << 16 | (fixed[15] & 0xffL) << 24;
        return bodyLen <= size - AstraceFormat.HEADER_FIXED;
    }

    /**
     * Whether the file was still being written when it was opened: what the reader yields is what was
     * sealed by then, and a missing footer or a last chunk not yet whole is no damage.
     */
    public boolean stillWriting() {
        return stillWriting;
    }

    /**
     * Opens a file and reads its header (and footer index, when present).
     *
     * @throws TraceFormatException when the file is not a readable {@code .astrace} file
     */
    public static AstraceReader open(Path path) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new AstraceReader(path, ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private void readFooter() {
        if (size - dataStart < AstraceFormat.TRAILER_BYTES + AstraceFormat.FOOTER_FIXED) {
            return;
        }
        try {
            byte[] t = readAt(size - AstraceFormat.TRAILER_BYTES, AstraceFormat.TRAILER_BYTES);
            ByteReader tr = new ByteReader(t, 0, t.length, source, size - AstraceFormat.TRAILER_BYTES);
            long off = tr.i64();
            long len = tr.u32() & 0xffffffffL;
            if (tr.u32() != AstraceFormat.TRAILER_MAGIC) {
                return; // no trailer: a recording that did not finish; chunks are read one by one
            }
            if (off < dataStart || len < AstraceFormat.FOOTER_FIXED || off + len != size - AstraceFormat.TRAILER_BYTES
                    || len > AstraceFormat.MAX_META_BYTES) {
                problem(size - AstraceFormat.TRAILER_BYTES, "trailer names a footer outside the file; reading chunk by chunk");
                return;
            }
            byte[] f = readAt(off, (int) len);
            ByteReader fr = new ByteReader(f, 0, f.length, source, off);
            if (fr.u32() != AstraceFormat.FOOTER_MAGIC) {
                problem(off, "footer magic missing; reading chunk by chunk");
                return;
            }
            int bodyLen = fr.u32();
            int bodyCrc = fr.u32();
            if (bodyLen != len - AstraceFormat.FOOTER_FIXED) {
                problem(off, "footer length mismatch; reading chunk by chunk");
                return;
            }
            crc.reset();
            crc.update(f, AstraceFormat.FOOTER_FIXED, bodyLen);
            if ((int) crc.getValue() != bodyCrc) {
                problem(off, "footer checksum mismatch; reading chunk by chunk");
                return;
            }
            int n = fr.count(fr.remaining(), "footer chunk count");
            long[] offs = new long[n];
            long[] lasts = new long[n];
            long at = 0;
            for (int i = 0; i < n; i++) {
                at += fr.varint();
                fr.varint();
                long first = fr.svarint();
                if (i == 0) {
                    firstFooterTime = first;
                }
                lasts[i] = fr.svarint();
                if (at < dataStart || at >= off) {
                    problem(off, "footer index names chunk " + i + " outside the data; reading chunk by chunk");
                    return;
                }
                offs[i] = at;
            }
            footerEvents = fr.varint();
            footerLost = fr.varint();
            indexOffsets = offs;
            indexLastTimes = lasts;
            footerOffset = off;
        } catch (IOException e) {
            problem(size - AstraceFormat.TRAILER_BYTES, "unreadable footer (" + e.getMessage() + "); reading chunk by chunk");
        }
    }

    public Path path() {
        return path;
    }

    public SessionInfo session() {
        return session;
    }

    /** Metadata records stored in the header (what was registered before the first chunk). */
    public List<MetaRecord> headerMetadata() {
        return headerMeta;
    }

    /** Byte offsets of the chunks as the footer lists them, or null when the file has no sound footer. */
    public long[] chunkOffsets() {
        return indexOffsets == null ? null : indexOffsets.clone();
    }

    /**
     * Positions the pull reader at the first chunk that holds events at or after {@code timeNs}, using
     * the footer index (without it, the reader stays where it is and returns false). Metadata of the
     * chunks skipped is not read: a reader that seeks should know its memories from the header.
     */
    public boolean seek(long timeNs) {
        if (indexOffsets == null) {
            return false;
        }
        int k = 0;
        while (k < indexOffsets.length && indexLastTimes[k] < timeNs) {
            k++;
        }
        pos = k < indexOffsets.length ? indexOffsets[k] : footerOffset;
        done = false;
        current = null;
        return true;
    }

    /** The memory with this id among those read so far, or null (for pull readers). */
    public MemoryInfo memory(int id) {
        return memories.get(id);
    }

    /** The string with this id among those read so far, or null. */
    public String string(int id) {
        return strings.get(id);
    }

    /** The name of a thread among those read so far, or null. */
    public String threadName(int id) {
        return threads.get(id);
    }

    private void remember(MetaRecord m) {
        switch (m) {
            case MetaRecord.Memory(MemoryInfo mi) -> memories.put(mi.id(), mi);
            case MetaRecord.Str(int id, String v) -> strings.put(id, v);
            case MetaRecord.Thread(int id, String name) -> threads.put(id, name);
            case MetaRecord.Loss(long c) -> lost = Saturating.add(lost, c);
            case MetaRecord.Frame(var f) -> {
                String tooLong = StackBounds.frameProblem(f);
                if (tooLong != null) {
                    problem(acceptedAt, "site table: " + tooLong + " (the record is left out)");
                } else {
                    rememberSite(() -> sites.add(f));
                }
            }
            case MetaRecord.Stack(var n) -> {
                String tooDeep = n.id() >= sites.nodeCount() ? depths.add(n) : null;
                if (tooDeep != null) {
                    problem(acceptedAt, "site table: " + tooDeep + " (the record is left out)");
                } else {
                    rememberSite(() -> sites.add(n));
                }
            }
        }
    }

    private void rememberSite(Runnable add) {
        try {
            add.run();
        } catch (IllegalArgumentException e) {
            problem(acceptedAt, "site table: " + e.getMessage() + " (the record is left out)");
        }
    }

    /** The allocation-site frames and stack nodes read so far (layout 3 files; empty before). */
    public SiteTable sites() {
        return sites;
    }

    private void problem(long offset, String what) {
        problemCount++;
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(source + " at byte " + offset + ": " + what);
        }
    }

    /** A problem that ends the read: always kept in the list (in the last place when it is full). */
    private void lastProblem(long offset, String what) {
        if (problems.size() == MAX_PROBLEMS) {
            problems.removeLast();
        }
        problem(offset, what);
    }

    private byte[] readAt(long offset, int n) throws IOException {
        byte[] b = new byte[n];
        ByteBuffer bb = ByteBuffer.wrap(b);
        while (bb.hasRemaining()) {
            int r = ch.read(bb, offset + bb.position());
            if (r < 0) {
                throw new TraceFormatException(source, offset + bb.position(), "unexpected end of file");
            }
        }
        return b;
    }

    // ---------------------------------------------------------------- locating frames

    /** A frame found in the file, checked for fitting; not yet checksummed. */
    record Located(long offset, byte[] header, FrameHeader fh, byte[] payload) {}

    /** The next frame from {@link #pos}, advancing past it; null at the end. Records and skips damage. */
    Located locate() throws IOException {
        while (!done) {
            long left = (footerOffset >= 0 ? footerOffset : size) - pos;
            if (left <= 0) {
                finish(footerOffset >= 0);
                return null;
            }
            if (stillWriting && footerOffset < 0 && (left < ChunkCodec.FRAME_HEADER_BYTES || tailNotWhole(left))) {
                finish(false); // the chunk being written: not sealed yet
                return null;
            }
            if (left < 4) {
                problem(pos, "file ends inside a chunk header (" + left + " bytes)");
                finish(false);
                return null;
            }
            byte[] m = readAt(pos, 4);
            int magic = (m[0] & 0xff) | (m[1] & 0xff) << 8 | (m[2] & 0xff) << 16 | (m[3] & 0xff) << 24;
            if (magic == AstraceFormat.FOOTER_MAGIC && footerOffset < 0) {
                // a footer without a sound trailer: the end of the data either way
                finish(false);
                return null;
            }
            if (left < ChunkCodec.FRAME_HEADER_BYTES) {
                problem(pos, "file ends inside a chunk header (" + left + " of " + ChunkCodec.FRAME_HEADER_BYTES + " bytes)");
                finish(false);
                return null;
            }
            byte[] h = readAt(pos, ChunkCodec.FRAME_HEADER_BYTES);
            FrameHeader fh;
            try {
                fh = FrameHeader.parse(h, 0, source, pos);
            } catch (TraceFormatException e) {
                problem(pos, stripSource(e));
                resync(pos + 1);
                continue;
            }
            long avail = left - ChunkCodec.FRAME_HEADER_BYTES;
            if (fh.payloadBytes() > avail) {
                problem(pos, "chunk claims " + fh.payloadBytes() + " bytes, " + avail + " left in the file");
                resync(pos + 1);
                continue;
            }
            try {
                DecodeBudget.checkChunk(fh, source, pos);
            } catch (TraceFormatException e) {
                problem(pos, stripSource(e));
                resync(pos + 1);
                continue;
            }
            if (pos > chargedTo) { // a frame found again after a resync is neither charged nor a duplicate twice
                long first = seenFrames.firstSeenAt(fh, pos);
                if (first >= 0) {
                    problem(pos, "chunk repeats the chunk at byte " + first + " (same header and checksum); skipped, so no event counts twice");
                    pos += ChunkCodec.FRAME_HEADER_BYTES + fh.payloadBytes();
                    continue;
                }
                try {
                    budget.charge(fh, source, pos);
                } catch (TraceFormatException e) {
                    lastProblem(pos, stripSource(e) + "; stopped reading here");
                    finish(false);
                    return null;
                }
                chargedTo = pos;
            }
            byte[] payload = readAt(pos + ChunkCodec.FRAME_HEADER_BYTES, fh.payloadBytes());
            Located l = new Located(pos, h, fh, payload);
            pos += ChunkCodec.FRAME_HEADER_BYTES + fh.payloadBytes();
            return l;
        }
        return null;
    }

    /** Whether the frame at {@link #pos} claims more bytes than the file holds yet (a writer's chunk half written). */
    private boolean tailNotWhole(long left) throws IOException {
        byte[] h = readAt(pos, ChunkCodec.FRAME_HEADER_BYTES);
        try {
            return FrameHeader.parse(h, 0, source, pos).payloadBytes() > left - ChunkCodec.FRAME_HEADER_BYTES;
        } catch (TraceFormatException e) {
            return false;
        }
    }

    private void finish(boolean reachedFooter) {
        done = true;
        sawFooter = reachedFooter;
        if (!reachedFooter && problemCount == 0 && !stillWriting) {
            problem(pos, "no footer: the recording did not finish");
        }
    }

    /** Moves {@link #pos} to the next sound frame at or after {@code from}, or to the end. */
    private void resync(long from) throws IOException {
        long end = footerOffset >= 0 ? footerOffset : size;
        if (indexOffsets != null) {
            for (long o : indexOffsets) {
                if (o >= from) {
                    pos = o;
                    return;
                }
            }
            pos = end;
            return;
        }
        int candidates = 0;
        long at = from;
        byte[] window = new byte[1 << 16];
        while (at + ChunkCodec.FRAME_HEADER_BYTES <= end && candidates < MAX_RESYNC_CANDIDATES) {
            int n = (int) Math.min(window.length, end - at);
            byte[] w = n == window.length ? window : new byte[n];
            ByteBuffer bb = ByteBuffer.wrap(w, 0, n);
            while (bb.hasRemaining() && ch.read(bb, at + bb.position()) >= 0) {
                // fill
            }
            for (int i = 0; i + 4 <= n; i++) {
                if (w[i] == 'A' && w[i + 1] == 'S' && w[i + 2] == 'C' && w[i + 3] == 'K') {
                    candidates++;
                    if (soundFrameAt(at + i, end)) {
                        pos = at + i;
                        return;
                    }
                }
            }
            at += Math.max(1, n - 3);
        }
        pos = end;
    }

    private boolean soundFrameAt(long o, long end) throws IOException {
        if (end - o < ChunkCodec.FRAME_HEADER_BYTES) {
            return false;
        }
        byte[] h = readAt(o, ChunkCodec.FRAME_HEADER_BYTES);
        try {
            FrameHeader fh = FrameHeader.parse(h, 0, source, o);
            if (fh.payloadBytes() > end - o - ChunkCodec.FRAME_HEADER_BYTES) {
                return false;
            }
            byte[] p = readAt(o + ChunkCodec.FRAME_HEADER_BYTES, fh.payloadBytes());
            crc.reset();
            crc.update(h, 0, 32);
            crc.update(p);
            return (int) crc.getValue() == fh.crc();
        } catch (TraceFormatException e) {
            return false;
        }
    }

    private static String stripSource(TraceFormatException e) {
        String m = e.getMessage();
        int i = m.indexOf(": ");
        return i >= 0 ? m.substring(i + 2) : m;
    }

    // ---------------------------------------------------------------- pull reading

    /**
     * The next sound chunk, or null at the end. Damaged chunks are skipped and recorded in
     * {@link #result()}. Its metadata is remembered ({@link #memory}, {@link #string}).
     */
    public ChunkCodec.Chunk nextChunk() throws IOException {
        while (true) {
            Located l = locate();
            if (l == null) {
                return null;
            }
            Decoded d = decodeLocated(codec, l);
            if (d.chunk != null) {
                accept(d.chunk, l.offset());
                return d.chunk;
            }
            skipDamaged(d);
        }
    }

    void accept(ChunkCodec.Chunk c, long offset) {
        acceptedAt = offset;
        c.meta().forEach(this::remember);
        events += c.events().size();
        chunks++;
    }

    /** The next event, or null at the end. */
    public Event readEvent() throws IOException {
        while (current == null || currentIndex >= current.events().size()) {
            current = nextChunk();
            currentIndex = 0;
            if (current == null) {
                return null;
            }
        }
        return current.events().get(currentIndex++);
    }

    /** What has been read so far, and what was wrong. */
    public ReadReport result() {
        return new ReadReport(source, events, chunks, "chunks", size, footerEvents, Math.max(lost, footerLost),
                problemCount, problems, stillWriting && footerOffset < 0);
    }

    @Override
    public void close() throws IOException {
        codec.close();
        ch.close();
    }

    // ---------------------------------------------------------------- whole-file reading

    /**
     * Reads a whole file into {@code sink} (session, metadata, events, losses; then {@code onClose}),
     * decoding chunks on up to three other threads.
     *
     * @return what was recovered; {@link ReadReport#damaged()} when chunks were skipped or the file ends early
     * @throws TraceFormatException when the header cannot be read
     */
    public static ReadReport read(Path path, EventSink sink) throws IOException {
        return AstraceLoad.read(path, sink, null, null);
    }

    /** Reads a whole file into a new store. */
    public static LoadedTrace load(Path path) throws IOException {
        return load(path, null);
    }

    /**
     * Reads a whole file into a new store (in memory, or out of core over the file when it is large:
     * {@link AstraceIndex#outOfCore}), telling {@code progress} (on the calling thread) the events read
     * so far after each adopted chunk ({@link Progress#EVENTS_READ}); a report may throw (a
     * {@code CancellationException}, say) to stop the read, which then propagates with the file closed.
     *
     * @param progress told the events read, or null
     */
    public static LoadedTrace load(Path path, Progress progress) throws IOException {
        if (AstraceIndex.outOfCore(path)) {
            return AstraceIndex.open(path, progress).loaded();
        }
        return loadInMemory(path, progress);
    }

    /** Reads a whole file into a new in-memory store, whatever its size (see {@link #load(Path, Progress)}). */
    public static LoadedTrace loadInMemory(Path path, Progress progress) throws IOException {
        EventStore store = new EventStore(path.getFileName().toString());
        ReadReport r = AstraceLoad.read(path, store, store, Progress.eventsRead(progress));
        return new LoadedTrace(store, r);
    }

    /**
     * Whether {@code m} may go on to a sink: every record but a frame or stack node the reader's own
     * site table refused (an id that skips ahead, a node naming what was never announced: a damaged
     * or forged file), which {@link #remember} already reported.
     */
    boolean deliverable(MetaRecord m) {
        return switch (m) {
            case MetaRecord.Frame(var f) -> f.id() < sites.frameCount() && sites.frame(f.id()).equals(f);
            case MetaRecord.Stack(var n) -> n.id() < sites.nodeCount() && sites.node(n.id()).equals(n);
            default -> true;
        };
    }

    /**
     * Drops the site of each event of {@code events} that names a stack node never (validly) announced:
     * the event keeps its place, and the problem is recorded against the chunk accepted last.
     */
    void dropDanglingSites(EventBatch events) {
        if (!events.hasSites()) {
            return;
        }
        int nodes = sites.nodeCount();
        int dangling = 0;
        for (int i = 0; i < events.size(); i++) {
            if (events.site(i) >= nodes) {
                events.setSite(i, -1, events.category(i));
                dangling++;
            }
        }
        if (dangling > 0) {
            problem(acceptedAt, String.format("%,d events name a stack node that was never announced: their site is dropped", dangling));
        }
    }

    /** Losses the footer totals but no surviving chunk carried. */
    long unreportedLoss() {
        return footerLost - lost;
    }

    /** The reader's own codec (for decoding on the calling thread). */
    ChunkCodec codec() {
        return codec;
    }

    /** The file's size when opened. */
    long size() {
        return size;
    }

    /**
     * The time span the footer's index covers (the latest chunk end less the first chunk's start), or 0
     * without a sound footer.
     */
    long footerSpan() {
        if (indexLastTimes == null || indexLastTimes.length == 0) {
            return 0;
        }
        long max = Long.MIN_VALUE;
        for (long t : indexLastTimes) {
            max = Math.max(max, t);
        }
        return Math.max(0, max - Math.min(indexLastTimes[0], firstFooterTime));
    }

    /** The file's format version (its chunks' event layout). */
    int version() {
        return version;
    }

    /** The file, as messages name it. */
    String source() {
        return source;
    }

    /** A decoded frame or why it could not be decoded. */
    record Decoded(Located at, ChunkCodec.Chunk chunk, TraceFormatException error) {}

    private Decoded decodeLocated(ChunkCodec cc, Located l) {
        return decodeLocated(cc, l, null);
    }

    Decoded decodeLocated(ChunkCodec cc, Located l, EventBatch into) {
        try {
            return new Decoded(l, cc.decodeFrame(l.header, 0, l.fh, l.payload, 0, source, l.offset, into), null);
        } catch (TraceFormatException e) {
            return new Decoded(l, null, e);
        }
    }

    /** Records a damaged frame and moves to the next sound one (its header may have lied about its length). */
    void skipDamaged(Decoded d) throws IOException {
        problem(d.at.offset, stripSource(d.error));
        done = false;
        resync(d.at.offset + 1);
    }
}
