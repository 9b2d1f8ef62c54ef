package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SyntheticTrace;

/**
 * An out-of-core store built from chunks served from memory (any {@link ChunkSource}): a zoomed-in
 * frame's chunks are decoded up front, once each, and its answers are the in-memory store's; a frame
 * of the whole session decodes none.
 */
class OutOfCoreStorePrefetchTest {
    private static final int CHUNK = 4096;
    private static final int CHUNKS = 200;

    @Test
    void aZoomedInFrameReadsItsChunksOnceAndAnswersAsInMemory() {
        List<EventBatch> chunks = new ArrayList<>();
        EventStore mem = new EventStore("mem");
        SyntheticTrace.announce(mem);
        SyntheticTrace gen = new SyntheticTrace(11);
        for (int c = 0; c < CHUNKS; c++) {
            EventBatch b = gen.next(CHUNK);
            EventBatch copy = new EventBatch(CHUNK);
            copy.addRange(b, 0, b.size());
            chunks.add(copy);
            mem.onEvents(copy);
        }
        mem.onClose();
        AtomicIntegerArray reads = new AtomicIntegerArray(CHUNKS);
        ChunkSource source = (n, ref) -> {
            reads.incrementAndGet(n);
            EventBatch copy = new EventBatch(CHUNK);
            copy.addRange(chunks.get(n), 0, CHUNK);
            return copy;
        };
        long span = mem.endNs() - mem.startNs();
        OutOfCoreStore.Builder b = OutOfCoreStore.builder("ooc", source, span, 256L << 20);
        b.session(mem.session());
        mem.memories().forEach(m -> b.meta(new dev.arenascope.core.trace.MetaRecord.Memory(m)));
        long offset = 0;
        for (EventBatch c : chunks) {
            b.chunk(new OutOfCoreStore.ChunkRef(offset, 1000, 0, c.size(), c.time(0), c.time(c.size() - 1)), c);
            offset += 1000;
        }
        OutOfCoreStore ooc = b.build();
        assertEquals(mem.eventCount(), ooc.eventCount());

        for (MemoryInfo m : mem.memories()) {
            ooc.gauges(m.id(), mem.startNs(), mem.endNs() + 1, 400);
        }
        assertEquals(0, ooc.cacheMisses(), "a frame of the whole session reads no chunk");

        long from = mem.startNs() + span / 2;
        long to = from + span / 30; // about seven chunks
        ooc.exactGauges(true);
        for (MemoryInfo m : mem.memories()) {
            GaugeSeries a = mem.gauges(m.id(), from, to, 1600);
            GaugeSeries g = ooc.gauges(m.id(), from, to, 1600);
            assertArrayEquals(a.usedMax(), g.usedMax(), m.name());
            assertArrayEquals(a.usedMin(), g.usedMin(), m.name());
            assertArrayEquals(a.count(), g.count(), m.name());
            assertArrayEquals(a.auxLast(), g.auxLast(), m.name());
        }
        int read = 0;
        for (int c = 0; c < CHUNKS; c++) {
            assertTrue(reads.get(c) <= 1, "chunk " + c + " read " + reads.get(c) + " times");
            read += reads.get(c);
        }
        assertTrue(read >= 5 && read <= 9, "the window's chunks and no others: " + read);
        assertEquals(read, ooc.cachedChunks());
    }
}
