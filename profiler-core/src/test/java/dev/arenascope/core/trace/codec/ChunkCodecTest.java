package dev.arenascope.core.trace.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.TraceFormatException;

class ChunkCodecTest {

    static EventBatch extremes() {
        EventBatch b = new EventBatch();
        long[] edge = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40, -(1L << 40)};
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 5000; i++) {
            EventKind k = EventKind.values()[r.nextInt(EventKind.values().length)];
            int mem = r.nextInt(10) == 0 ? -1 : r.nextInt(10) == 0 ? EventBatch.MAX_MEMORY_ID : r.nextInt(4);
            long[] v = new long[6];
            for (int j = 0; j < 6; j++) {
                v[j] = r.nextBoolean() ? edge[r.nextInt(edge.length)] : r.nextLong();
            }
            int[] ints = {Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0, r.nextInt()};
            b.add(new Event(v[0], k, r.nextInt(256), mem, ints[r.nextInt(5)], v[1], v[2], v[3], v[4], v[5],
                    ints[r.nextInt(5)], ints[r.nextInt(5)]));
        }
        return b;
    }

    @Test
    void everyFieldRoundTripsAtItsExtremes() throws Exception {
        EventBatch b = extremes();
        List<MetaRecord> meta = List.of(
                new MetaRecord.Memory(new MemoryInfo(EventBatch.MAX_MEMORY_ID, "m ü", MemoryKind.SEGMENTED, "cuda:0", -1, Map.of("k", "v"))),
                new MetaRecord.Str(-5, "a string"), new MetaRecord.Str(6, null), new MetaRecord.Thread(Integer.MAX_VALUE, "t"),
                new MetaRecord.Loss(Long.MAX_VALUE));
        try (ChunkCodec c = new ChunkCodec()) {
            byte[] frame = c.encodeFrame(meta, b, 0, b.size());
            ChunkCodec.Chunk back = c.readFrame(new ByteArrayInputStream(frame), "mem", 0);
            assertEquals(meta, back.meta());
            assertEquals(b.size(), back.events().size());
            for (int i = 0; i < b.size(); i++) {
                assertEquals(b.get(i), back.events().get(i), "event " + i);
            }
            EventBatch unpacked = new EventBatch();
            c.unpackEvents(back.payload(), back.rawBytes(), unpacked, "mem");
            assertEquals(b.get(4321), unpacked.get(4321));
        }
    }

    @Test
    void varintsOfEveryLengthDecodeAtEveryDistanceFromTheColumnEnd() throws Exception {
        // the decoder reads 8 bytes a value until a column's last 8 bytes, then byte by byte: every
        // varint length (1 to 10 bytes) must come out right on both paths, into a reused batch too
        EventBatch reused = new EventBatch(4);
        try (ChunkCodec c = new ChunkCodec()) {
            for (int n = 1; n <= 40; n++) {
                for (int shift = 0; shift < 64; shift += 9) {
                    EventBatch b = new EventBatch();
                    for (int i = 0; i < n; i++) {
                        int bits = (i * 7 + shift) % 64;
                        long v = bits == 0 ? 0 : (1L << bits) - 1;
                        long signed = (i & 1) == 0 ? v : -v;
                        b.add(new Event(signed, EventKind.ALLOC, 0, i % 3, (int) signed, signed, v, -signed, v ^ 0x55, signed,
                                (int) v, (int) -v));
                    }
                    byte[] f = c.encodeFrame(List.of(), b, 0, b.size());
                    FrameHeader fh = FrameHeader.parse(f, 0, "t", 0);
                    ChunkCodec.Chunk back = c.decodeFrame(f, 0, fh, f, ChunkCodec.FRAME_HEADER_BYTES, "t", 0, reused);
                    assertEquals(n, back.events().size());
                    for (int i = 0; i < n; i++) {
                        assertEquals(b.get(i), back.events().get(i), n + " events, shift " + shift + ", event " + i);
                    }
                }
            }
        }
    }

    @Test
    void framesReadOneAfterAnotherFromAStream() throws Exception {
        SyntheticTrace g = new SyntheticTrace(3);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ChunkCodec c = new ChunkCodec()) {
            EventBatch first = copy(g.next(1000));
            EventBatch second = copy(g.next(10));
            c.writeFrame(out, List.of(new MetaRecord.Str(0, "x")), first, 0, first.size());
            c.writeFrame(out, List.of(), second, 0, second.size());
            c.writeFrame(out, List.of(new MetaRecord.Loss(3)), second, 0, 0); // metadata only
            byte[] bytes = out.toByteArray();
            ByteArrayInputStream in = new ByteArrayInputStream(bytes);
            assertEquals(first.get(999), c.readFrame(in, "wire", 0).events().get(999));
            assertEquals(second.time(0), c.readFrame(in, "wire", 0).firstTimeNs());
            assertEquals(List.of(new MetaRecord.Loss(3)), c.readFrame(in, "wire", 0).meta());
            assertNull(c.readFrame(in, "wire", 0), "clean end of stream");
            // a stream cut mid-frame is an error naming the source, never a hang or a partial chunk
            ByteArrayInputStream cut = new ByteArrayInputStream(Arrays.copyOf(bytes, bytes.length - 5));
            c.readFrame(cut, "wire", 0);
            c.readFrame(cut, "wire", 0);
            TraceFormatException e = assertThrows(TraceFormatException.class, () -> c.readFrame(cut, "wire", 100));
            assertTrue(e.getMessage().startsWith("wire at byte 136: truncated chunk payload"), e.getMessage());
        }
    }

    static EventBatch copy(EventBatch b) {
        EventBatch c = new EventBatch(b.size());
        for (int i = 0; i < b.size(); i++) {
            c.addFrom(b, i);
        }
        return c;
    }

    @Test
    void badFramesAreRefusedWithTheirOffset() throws Exception {
        try (ChunkCodec c = new ChunkCodec()) {
            EventBatch b = copy(new SyntheticTrace(1).next(100));
            byte[] f = c.encodeFrame(List.of(), b, 0, b.size());
            byte[] magic = f.clone();
            magic[0] = 'X';
            assertTrue(assertThrows(TraceFormatException.class, () -> c.readFrame(new ByteArrayInputStream(magic), "s", 10))
                    .getMessage().contains("s at byte 10: not a chunk"));
            byte[] flipped = f.clone();
            flipped[f.length - 3] ^= 1;
            assertTrue(assertThrows(TraceFormatException.class, () -> c.readFrame(new ByteArrayInputStream(flipped), "s", 0))
                    .getMessage().contains("checksum mismatch"));
            byte[] huge = f.clone();
            huge[8] = (byte) 0xff;
            huge[9] = (byte) 0xff;
            huge[10] = (byte) 0xff;
            huge[11] = (byte) 0x7f;
            assertTrue(assertThrows(TraceFormatException.class, () -> c.readFrame(new ByteArrayInputStream(huge), "s", 0))
                    .getMessage().contains("raw length"));
        }
    }

    @Test
    void sitesAndCategoriesRoundTripAlsoWhenOnlyALaterBatchOfTheChunkHasThem() throws Exception {
        EventBatch plain = copy(new SyntheticTrace(2).next(3000));
        EventBatch sited = copy(new SyntheticTrace(3).next(3000));
        for (int i = 0; i < sited.size(); i += 3) {
            sited.setSite(i, i % 7 == 0 ? -1 : i % 50, i % 5 == 0 ? Integer.MAX_VALUE : -1);
        }
        List<MetaRecord> meta = List.of(
                new MetaRecord.Frame(new StackFrame(0, "forward", "model.py", 42, 0)),
                new MetaRecord.Frame(new StackFrame(1, "c10::alloc", "", 0, 1)),
                new MetaRecord.Stack(new StackNode(0, 0, -1)),
                new MetaRecord.Stack(new StackNode(1, 1, 0)));
        try (ChunkCodec c = new ChunkCodec()) {
            c.beginEvents();
            c.appendEvents(plain, 0, plain.size());   // no site columns yet
            c.appendEvents(sited, 0, sited.size());   // the columns start here, the plain events get -1
            ByteWriter w = new ByteWriter(1 << 16);
            c.finishPayload(meta, w);
            List<MetaRecord> gotMeta = new ArrayList<>();
            EventBatch got = new EventBatch();
            c.decodePayload(new ByteReader(w.array(), 0, w.size(), "p", 0), gotMeta, got);
            assertEquals(meta, gotMeta);
            assertEquals(plain.size() + sited.size(), got.size());
            for (int i = 0; i < plain.size(); i++) {
                assertEquals(plain.get(i), got.get(i), "event " + i);
                assertEquals(-1, got.site(i));
            }
            for (int i = 0; i < sited.size(); i++) {
                assertEquals(sited.get(i), got.get(plain.size() + i), "event " + (plain.size() + i));
            }
            // a store's codec leaves the sites out of its blocks (it keeps them beside them)
            c.writeSites(false);
            EventBatch stripped = new EventBatch();
            ChunkCodec.Packed p = c.pack(List.of(), sited, 0, sited.size());
            c.unpackEvents(p.bytes(), p.rawBytes(), stripped, "block");
            assertTrue(!stripped.hasSites() || IntStream.range(0, stripped.size()).allMatch(i -> stripped.site(i) == -1));
            assertEquals(sited.get(3).withSite(-1, -1), stripped.get(3));
        }
    }

    @Test
    void aVersionTwoChunkCannotCarrySiteRecords() throws Exception {
        try (ChunkCodec writer = new ChunkCodec(); ChunkCodec v2 = new ChunkCodec(ChunkCodec.DEFAULT_LEVEL, 2)) {
            EventBatch none = new EventBatch();
            byte[] f = writer.encodeFrame(List.of(new MetaRecord.Frame(new StackFrame(0, "f", "a.py", 1, 0))),
                    none, 0, 0);
            String m = assertThrows(TraceFormatException.class, () -> v2.readFrame(new ByteArrayInputStream(f), "old", 0)).getMessage();
            assertTrue(m.contains("unknown metadata record tag 5"), m);
        }
    }
}
