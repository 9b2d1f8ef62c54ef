package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.codec.DecodeBudget;
import dev.arenascope.core.trace.codec.FrameHeader;

/**
 * Small files that claim much more than they hold (issue 19 #1 #2): decompression bombs in metadata
 * strings and in event runs, many chunks that together claim too much, and a chunk copied twice. Each
 * is read in bounded work and memory, keeps the honest events, and says where it went wrong.
 */
class HostileAstraceTest {
    private static final int HONEST = 5_000;

    @TempDir
    Path dir;

    /** A sound recording of {@link #HONEST} synthetic events, footer and all. */
    private byte[] honest() throws Exception {
        Path p = dir.resolve("honest.astrace");
        SyntheticTrace.write(5, HONEST, new AstraceWriter(p));
        return Files.readAllBytes(p);
    }

    /** Where the footer starts (the trailer's first field). */
    private static int footerOffset(byte[] file) {
        return (int) ByteBuffer.wrap(file, file.length - AstraceFormat.TRAILER_BYTES, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** The file as a killed recording leaves it: no footer, no trailer. */
    private static byte[] withoutFooter(byte[] file) {
        return Arrays.copyOf(file, footerOffset(file));
    }

    private Path write(String name, byte[]... parts) throws Exception {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.write(p);
        }
        Path p = dir.resolve(name);
        Files.write(p, o.toByteArray());
        return p;
    }

    private static byte[] repeat(byte[] frame, int times) {
        byte[] all = new byte[frame.length * times];
        for (int i = 0; i < times; i++) {
            System.arraycopy(frame, 0, all, i * frame.length, frame.length);
        }
        return all;
    }

    /** One frame whose metadata is a single string of {@code bytes} bytes (zstd makes it a few hundred). */
    private static byte[] stringFrame(int id, int bytes) {
        try (ChunkCodec c = new ChunkCodec()) {
            return c.encodeFrame(List.of(new MetaRecord.Str(id, "x".repeat(bytes))), new EventBatch(), 0, 0);
        }
    }

    @Test
    void aStringBombIsRefusedBeforeItIsDecompressed() throws Exception {
        byte[] base = withoutFooter(honest());
        byte[] bomb = stringFrame(1000, 20 << 20);
        assertTrue(bomb.length < 4096, "the bomb is small: " + bomb.length + " bytes");
        Path p = write("string-bomb.astrace", base, repeat(bomb, 60));
        LoadedTrace t = AstraceReader.load(p);
        assertEquals(HONEST, t.store().eventCount(), "the honest events are all kept");
        ReadReport r = t.report();
        assertTrue(r.damaged());
        String first = r.problems().getFirst();
        assertTrue(first.contains("at byte " + base.length) && first.contains("decompression bomb"), first);
        assertEquals(60, r.problemCount(), r.summary());
    }

    @Test
    void aChunkOfAMillionIdenticalEventsIsRefused() throws Exception {
        byte[] base = withoutFooter(honest());
        EventBatch flood = new EventBatch(1 << 20);
        for (int i = 0; i < 1_000_000; i++) {
            flood.add(7, EventBatch.pack(EventKind.MARKER.code(), 0, -1), 1, 0, 0, 0, 0, 0, 0, 0);
        }
        byte[] frame;
        try (ChunkCodec c = new ChunkCodec()) {
            frame = c.encodeFrame(List.of(), flood, 0, flood.size());
        }
        assertTrue(frame.length < 2048, "a million markers compress to " + frame.length + " bytes");
        Path p = write("marker-flood.astrace", base, repeat(frame, 300));
        LoadedTrace t = AstraceReader.load(p);
        assertEquals(HONEST, t.store().eventCount(), "no flood event is indexed");
        assertEquals(300, t.report().problemCount(), t.report().summary());
        assertTrue(t.report().summary().contains("decompression bomb"), t.report().summary());
    }

    @Test
    void chunksThatTogetherClaimTooMuchStopTheReadWhereTheyPassIt() throws Exception {
        byte[] base = withoutFooter(honest());
        // each under the per-chunk floor, so only their sum is refused (each string is also too long to keep)
        int each = 7 << 20;
        ByteArrayOutputStream chunks = new ByteArrayOutputStream();
        long[] offsets = new long[48];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = base.length + chunks.size();
            chunks.write(stringFrame(2000 + i, each));
        }
        Path p = write("many-bombs.astrace", base, chunks.toByteArray());
        LoadedTrace t = AstraceReader.load(p);
        assertEquals(HONEST, t.store().eventCount());
        ReadReport r = t.report();
        String stop = r.problems().stream().filter(s -> s.contains("stopped reading here")).findFirst().orElse(null);
        assertNotNull(stop, r.problems().toString());
        // the first chunk past 256 MiB + 64 × compressed: with each 7 MiB from under 1 KiB, the 37th
        int past = (int) (DecodeBudget.STREAM_FLOOR / each) + 1;
        assertTrue(stop.contains("at byte " + offsets[past - 1]) || stop.contains("at byte " + offsets[past]), stop);
        assertTrue(r.problemCount() < offsets.length + 1, "chunks after the stop are not read: " + r.summary());
    }

    @Test
    void aChunkCopiedTwiceIsReadOnceEvenWhenTheFooterIsStale() throws Exception {
        byte[] file = honest();
        int footer = footerOffset(file);
        int firstChunk = findFirstChunk(file);
        int len = FrameHeader.BYTES + ByteBuffer.wrap(file, firstChunk + 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        byte[] copy = Arrays.copyOfRange(file, firstChunk, firstChunk + len);
        // the copy goes just before the footer, whose index does not list it; the trailer moves with it
        byte[] trailer = Arrays.copyOfRange(file, file.length - AstraceFormat.TRAILER_BYTES, file.length);
        ByteBuffer.wrap(trailer).order(ByteOrder.LITTLE_ENDIAN).putLong(0, footer + copy.length);
        Path p = write("duplicated.astrace", Arrays.copyOf(file, footer), copy,
                Arrays.copyOfRange(file, footer, file.length - AstraceFormat.TRAILER_BYTES), trailer);
        LoadedTrace t = AstraceReader.load(p);
        assertEquals(HONEST, t.store().eventCount(), "never more events than were recorded");
        ReadReport r = t.report();
        assertEquals(HONEST, r.expectedEvents());
        assertTrue(r.summary().contains("repeats the chunk at byte " + firstChunk), r.summary());
        assertTrue(r.summary().contains("recovered " + HONEST + " of " + HONEST), r.summary());

        // and without a footer at all
        Path q = write("duplicated-killed.astrace", Arrays.copyOf(file, footer), copy);
        assertEquals(HONEST, AstraceReader.load(q).store().eventCount());
    }

    private static int findFirstChunk(byte[] f) {
        for (int i = 0; i + 4 <= f.length; i++) {
            if (f[i] == 'A' && f[i + 1] == 'S' && f[i + 2] == 'C' && f[i + 3] == 'K') {
                return i;
            }
        }
        throw new AssertionError("no chunk");
    }

    @Test
    void aConnectionIsRefusedAtTheFirstFramePastItsBudgetBeforeItsPayloadIsRead() throws Exception {
        byte[] bomb = stringFrame(1, 20 << 20);
        // the header alone: had the codec read on, it would report a truncated payload instead
        byte[] header = Arrays.copyOf(bomb, FrameHeader.BYTES);
        try (ChunkCodec c = new ChunkCodec()) {
            TraceFormatException e = assertThrows(TraceFormatException.class,
                    () -> c.readFrame(new ByteArrayInputStream(header), "peer", 17));
            assertTrue(e.getMessage().contains("peer at byte 17") && e.getMessage().contains("decompression bomb"), e.getMessage());
        }
    }

    @Test
    void theBudgetGrowsWithWhatArrivedAndRefusesOnlyPastIt() throws Exception {
        DecodeBudget b = new DecodeBudget();
        FrameHeader small = new FrameHeader(1000, DecodeBudget.CHUNK_FLOOR, 0, 0, 0, 0);
        int accepted = 0;
        TraceFormatException refused = null;
        for (int i = 0; i < 1000 && refused == null; i++) {
            try {
                b.charge(small, "conn", i);
                accepted++;
            } catch (TraceFormatException e) {
                refused = e;
            }
        }
        assertNotNull(refused);
        assertTrue(b.rawBytes() <= DecodeBudget.STREAM_FLOOR + DecodeBudget.RATIO * b.compressedBytes());
        assertEquals(accepted, refused.offset(), "refused at the first chunk past the budget");
        // honest chunks (a few times their compressed size) are never refused, however many
        DecodeBudget h = new DecodeBudget();
        for (int i = 0; i < 100_000; i++) {
            h.charge(new FrameHeader(200_000, 900_000, 65_536, 0, 0, 0), "honest", i);
        }
    }

    @Test
    void aStringLongerThanTheLimitIsRefusedAtItsOffset() {
        byte[] frame = stringFrame(3, DecodeBudget.MAX_STRING_BYTES + 1);
        try (ChunkCodec c = new ChunkCodec()) {
            TraceFormatException e = assertThrows(TraceFormatException.class,
                    () -> c.readFrame(new ByteArrayInputStream(frame), "f", 0));
            assertTrue(e.getMessage().contains("string of " + (DecodeBudget.MAX_STRING_BYTES + 1) + " bytes"), e.getMessage());
        }
    }
}
