package dev.arenascope.core.trace.file;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.store.OutOfCoreStore;
import dev.arenascope.core.util.Progress;

/**
 * Opens an {@code .astrace} file out of core ({@link OutOfCoreStore}), with its index saved beside it as
 * {@code TRACE.astrace.idx} so the second open reads the index instead of the whole trace.
 *
 * <h2>The index file</h2>
 * <pre>
 *   "ASTRIDX\0"  u32 file version (1)  i64 trace length  i64 trace fingerprint
 *   i64 body length  u32 CRC32C(body)  body
 *   body = the read report (events, chunks, expected events, lost, problems), then the store's own
 *          index ({@link OutOfCoreStore#writeIndex}: its layout number, metadata, chunk index, gauge and
 *          scope indexes)
 * </pre>
 * Big-endian. The fingerprint is a CRC32C of the trace's length and its first and last 64 KiB (its
 * header and its footer and trailer, or for a file without footer its last chunks).
 *
 * <h2>Rules: never trusted</h2>
 * The index is used only when its magic, version and store layout are this build's, its length and
 * fingerprint match the trace as it is now, its body's checksum holds and the body reads back as a
 * consistent index. Anything else (a stale index after the trace was rewritten or grew, a damaged or
 * truncated one, one from another build) is ignored and rebuilt from the trace without a word; the
 * new one replaces it (written to a temporary file beside it, then moved into place). A directory
 * that cannot be written only costs the next open its rebuild. Beyond the fingerprint, every chunk the
 * store reads later is compared with what was indexed (offset, size, event count, times, checksum),
 * so a trace changed in its middle fails loudly at the chunk rather than answering from a stale index.
 *
 * <h2>Which store</h2>
 * {@link #outOfCore(Path)} decides for {@link AstraceReader#load}: system property
 * {@code arenascope.store} = {@code memory}, {@code file} or {@code auto} (default); in {@code auto} a
 * trace of at least {@code arenascope.store.threshold} bytes (default a sixth of the heap, at least
 * 8 MiB: the in-memory store takes about three times a trace's size, so a bigger trace would not leave
 * the analyses their room; a fixed floor of 256 MiB made every trace between a sixth of a small heap
 * and 256 MiB fail with "not enough memory" instead of opening out of core) opens out of core. The
 * chunk cache's bound is {@code arenascope.store.cache} bytes (default the smaller of 256 MiB and an
 * eighth of the heap).
 */
public final class AstraceIndex {
    private AstraceIndex() {}

    /** The index file's name is the trace's with this appended. */
    public static final String SUFFIX = ".idx";
    /** The index file's version; other versions are rebuilt. */
    public static final int FILE_VERSION = 1;
    private static final byte[] MAGIC = {'A', 'S', 'T', 'R', 'I', 'D', 'X', 0};
    private static final int HEAD_BYTES = 8 + 4 + 8 + 8 + 8 + 4;
    private static final int FINGERPRINT_BYTES = 64 << 10;

    /** How the store was had: from the saved index, or built from the trace (and why). */
    public enum Origin { INDEX, BUILT }

    /**
     * An out-of-core store opened.
     *
     * @param store  the store
     * @param report what reading the trace found (saved with the index, so a damaged trace says so again)
     * @param origin whether the saved index served
     * @param why    for {@link Origin#BUILT}, why the saved index did not serve (missing, stale, damaged:
     *               one line); empty for {@link Origin#INDEX}
     */
    public record Opened(OutOfCoreStore store, ReadReport report, Origin origin, String why) {
        public LoadedTrace loaded() {
            return new LoadedTrace(store, report);
        }
    }

    /** The index file of {@code trace}. */
    public static Path indexOf(Path trace) {
        return trace.resolveSibling(trace.getFileName() + SUFFIX);
    }

    /** Whether {@link AstraceReader#load} opens {@code trace} out of core (see the class comment). */
    public static boolean outOfCore(Path trace) throws IOException {
        String mode = System.getProperty("arenascope.store", "auto").trim().toLowerCase(Locale.ROOT);
        return switch (mode) {
            case "file" -> true;
            case "memory" -> false;
            default -> Files.size(trace) >= threshold();
        };
    }

    /** The trace size from which {@code auto} opens out of core. */
    public static long threshold() {
        String t = System.getProperty("arenascope.store.threshold");
        if (t != null) {
            try {
                return Long.parseLong(t.trim());
            } catch (NumberFormatException e) {
                // the default below
            }
        }
        return Math.max(8L << 20, Runtime.getRuntime().maxMemory() / 6);
    }

    /** The chunk cache's bound. */
    public static long cacheBytes() {
        String t = System.getProperty("arenascope.store.cache");
        if (t != null) {
            try {
                return Math.max(1, Long.parseLong(t.trim()));
            } catch (NumberFormatException e) {
                // the default below
            }
        }
        return Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8);
    }

    /**
     * Opens {@code trace} out of core: from its saved index when that is sound and current, else by
     * reading the trace once (decoding on several cores) and saving a new index.
     *
     * @param progress told the events read so far ({@link Progress#EVENTS_READ}) while the trace is read
     *                 (not when the index serves), or null; a report may throw to stop the read
     * @throws dev.arenascope.core.trace.TraceFormatException when the trace's header cannot be read
     */
    public static Opened open(Path trace, Progress progress) throws IOException {
        return open(trace, progress, cacheBytes());
    }

    /** As {@link #open(Path, Progress)} with a chunk cache of {@code cacheBytes}. */
    public static Opened open(Path trace, Progress progress, long cacheBytes) throws IOException {
        LongConsumer eventsRead = Progress.eventsRead(progress);
        Path idx = indexOf(trace);
        String why;
        try (AstraceReader r = AstraceReader.open(trace)) { // the trace's header is checked before any index is used
            long length = r.size();
            long fingerprint = fingerprint(trace, length);
            AstraceChunks chunks = new AstraceChunks(trace, r.version());
            try {
                Opened o = fromIndex(trace, idx, length, fingerprint, chunks, cacheBytes);
                chunks.sites(o.store().sites());
                return o;
            } catch (StaleIndex e) {
                why = e.getMessage();
            }
            OutOfCoreStore.Builder b = OutOfCoreStore.builder(trace.getFileName().toString(), chunks, r.footerSpan(), cacheBytes);
            ReadReport report = AstraceLoad.readChunks(r, new MetaSink(b), (c, at) -> b.chunk(ref(at), c.events()), eventsRead);
            OutOfCoreStore store = b.build();
            chunks.sites(store.sites());
            save(idx, length, fingerprint, report, store);
            return new Opened(store, report, Origin.BUILT, why);
        }
    }

    private static OutOfCoreStore.ChunkRef ref(AstraceReader.Located at) {
        var fh = at.fh();
        return new OutOfCoreStore.ChunkRef(at.offset(), ChunkCodec.FRAME_HEADER_BYTES + fh.payloadBytes(), fh.crc(), fh.events(),
                fh.firstTimeNs(), fh.lastTimeNs());
    }

    /** CRC32C of the length and the first and last {@value #FINGERPRINT_BYTES} bytes of the trace. */
    static long fingerprint(Path trace, long length) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer len = ByteBuffer.allocate(8).putLong(0, length);
        crc.update(len);
        try (FileChannel ch = FileChannel.open(trace, StandardOpenOption.READ)) {
            int head = (int) Math.min(FINGERPRINT_BYTES, length);
            crc.update(readAt(ch, 0, head));
            long tailAt = Math.max(head, length - FINGERPRINT_BYTES);
            crc.update(readAt(ch, tailAt, (int) (length - tailAt)));
        }
        return crc.getValue();
    }

    private static byte[] readAt(FileChannel ch, long at, int n) throws IOException {
        byte[] b = new byte[n];
        ByteBuffer bb = ByteBuffer.wrap(b);
        while (bb.hasRemaining()) {
            if (ch.read(bb, at + bb.position()) < 0) {
                throw new IOException("the file ended while it was read");
            }
        }
        return b;
    }

    /** Why a saved index was not used. */
    private static final class StaleIndex extends Exception {
        StaleIndex(String why) {
            super(why, null, false, false);
        }
    }

    private static Opened fromIndex(Path trace, Path idx, long length, long fingerprint, AstraceChunks chunks, long cacheBytes)
            throws StaleIndex {
        byte[] all;
        try {
            if (!Files.isRegularFile(idx)) {
                throw new StaleIndex("no index beside the trace");
            }
            long size = Files.size(idx);
            if (size < HEAD_BYTES || size > Integer.MAX_VALUE - 64) {
                throw new StaleIndex("index of " + size + " bytes");
            }
            all = Files.readAllBytes(idx);
        } catch (IOException e) {
            throw new StaleIndex("unreadable index: " + e.getMessage());
        }
        ByteBuffer h = ByteBuffer.wrap(all).order(ByteOrder.BIG_ENDIAN);
        if (all.length < HEAD_BYTES || !Arrays.equals(all, 0, 8, MAGIC, 0, 8)) {
            throw new StaleIndex("not an index (wrong magic)");
        }
        int version = h.getInt(8);
        if (version != FILE_VERSION) {
            throw new StaleIndex("index file version " + version + ", this build writes " + FILE_VERSION);
        }
        if (h.getLong(12) != length || h.getLong(20) != fingerprint) {
            throw new StaleIndex("stale index: the trace changed since it was indexed");
        }
        long bodyLen = h.getLong(28);
        if (bodyLen != all.length - HEAD_BYTES) {
            throw new StaleIndex("index body of " + (all.length - HEAD_BYTES) + " bytes, its head says " + bodyLen);
        }
        CRC32C crc = new CRC32C();
        crc.update(all, HEAD_BYTES, (int) bodyLen);
        if ((int) crc.getValue() != h.getInt(36)) {
            throw new StaleIndex("index checksum mismatch");
        }
        try {
            ByteBuffer b = ByteBuffer.wrap(all, HEAD_BYTES, (int) bodyLen).order(ByteOrder.BIG_ENDIAN);
            long events = b.getLong();
            long parts = b.getLong();
            long expected = b.getLong();
            long lost = b.getLong();
            int problemCount = b.getInt();
            int shown = b.getInt();
            if (shown < 0 || shown > 64) {
                throw new StaleIndex("index lists " + shown + " problems");
            }
            List<String> problems = new ArrayList<>();
            for (int i = 0; i < shown; i++) {
                int n = b.getInt();
                if (n < 0 || n > b.remaining()) {
                    throw new StaleIndex("index problem text of " + n + " bytes");
                }
                byte[] s = new byte[n];
                b.get(s);
                problems.add(new String(s, java.nio.charset.StandardCharsets.UTF_8));
            }
            OutOfCoreStore store = OutOfCoreStore.readIndex(trace.getFileName().toString(), all, b.position(), b.remaining(), chunks, cacheBytes);
            if (store.eventCount() != events) {
                throw new StaleIndex("damaged index: its report says " + events + " events, its store holds " + store.eventCount());
            }
            ReadReport report = new ReadReport(trace.toString(), events, parts, "chunks", length, expected, lost, problemCount, problems);
            return new Opened(store, report, Origin.INDEX, "");
        } catch (RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            throw new StaleIndex(m.startsWith("damaged index") ? m : "damaged index: " + m);
        }
    }

    /** Writes the index beside the trace (temporary file, then moved); a failure only loses the index. */
    private static void save(Path idx, long length, long fingerprint, ReadReport report, OutOfCoreStore store) {
        Path tmp = null;
        try {
            tmp = Files.createTempFile(idx.toAbsolutePath().getParent(), idx.getFileName().toString(), ".tmp");
            CRC32C crc = new CRC32C();
            long[] bodyLen = {0};
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(HEAD_BYTES), 0); // the head, filled in below
                ch.position(HEAD_BYTES);
                OutputStream body = new OutputStream() {
                    private final OutputStream to = java.nio.channels.Channels.newOutputStream(ch);

                    @Override
                    public void write(int b) throws IOException {
                        crc.update(b);
                        bodyLen[0]++;
                        to.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        crc.update(b, off, len);
                        bodyLen[0] += len;
                        to.write(b, off, len);
                    }
                };
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(body, 1 << 20));
                out.writeLong(report.events());
                out.writeLong(report.parts());
                out.writeLong(report.expectedEvents());
                out.writeLong(report.lostEvents());
                out.writeInt(report.problemCount());
                out.writeInt(report.problems().size());
                for (String p : report.problems()) {
                    byte[] s = p.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    out.writeInt(s.length);
                    out.write(s);
                }
                store.writeIndex(out);
                out.flush();
                ByteBuffer head = ByteBuffer.allocate(HEAD_BYTES).order(ByteOrder.BIG_ENDIAN);
                head.put(MAGIC).putInt(FILE_VERSION).putLong(length).putLong(fingerprint).putLong(bodyLen[0]).putInt((int) crc.getValue());
                head.flip();
                while (head.hasRemaining()) {
                    ch.write(head, head.position());
                }
                ch.force(false);
            }
            try {
                Files.move(tmp, idx, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, idx, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException | RuntimeException e) {
            // a directory we cannot write: the next open rebuilds the index
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    // left behind: nothing reads *.tmp
                }
            }
        }
    }

    /** Passes a reader's metadata to a store builder; events arrive as chunks, never here. */
    private static final class MetaSink implements EventSink {
        private final OutOfCoreStore.Builder b;

        MetaSink(OutOfCoreStore.Builder b) {
            this.b = b;
        }

        @Override
        public void onSession(SessionInfo info) {
            b.session(info);
        }

        @Override
        public void onMemory(MemoryInfo memory) {
            b.meta(new MetaRecord.Memory(memory));
        }

        @Override
        public void onString(int id, String value) {
            b.meta(new MetaRecord.Str(id, value));
        }

        @Override
        public void onThread(int id, String name) {
            b.meta(new MetaRecord.Thread(id, name));
        }

        @Override
        public void onFrame(StackFrame frame) {
            b.meta(new MetaRecord.Frame(frame));
        }

        @Override
        public void onStack(StackNode node) {
            b.meta(new MetaRecord.Stack(node));
        }

        @Override
        public void onLoss(long n) {
            b.loss(n);
        }

        @Override
        public void onEvents(EventBatch batch) {
            throw new IllegalStateException("an out-of-core store takes whole chunks");
        }

        @Override
        public void onClose() {
            // the builder is finished by the caller
        }
    }
}
