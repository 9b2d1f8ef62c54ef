package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.file.AstraceIndex;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.GeneratedTrace;

/**
 * The out-of-core store answers as the in-memory store does for the same file: events one by one and
 * in ranges across chunk edges, times to indexes, scopes, peaks, per-memory counts, a replay, and the
 * gauges at every zoom (exactly when asked for exact edges; at a zoomed-out frame without reading a
 * chunk, with the same totals). The cache is kept small so chunks are evicted and read again.
 */
class OutOfCoreStoreTest {
    @TempDir
    static Path dir;
    static Path file;
    static EventStore mem;
    static OutOfCoreStore ooc;

    @BeforeAll
    static void write() throws IOException {
        file = GeneratedTrace.write(dir.resolve("ooc.astrace"), 700_000, 7, null);
        mem = (EventStore) AstraceReader.loadInMemory(file, null).store();
        AstraceIndex.Opened o = AstraceIndex.open(file, null, 6L << 20);
        assertEquals(AstraceIndex.Origin.BUILT, o.origin(), "no index beside a new trace");
        ooc = o.store();
        assertTrue(ooc.chunkCount() >= 10, "several chunks: " + ooc.chunkCount());
    }

    @Test
    void metadataAndCountsMatch() {
        StoreAgreement.metadata(mem, ooc);
        assertEquals(mem.session(), ooc.session());
        assertTrue(ooc.hasSites());
    }

    @Test
    void eventsAndRangesMatch() {
        StoreAgreement.events(mem, ooc, 2000, 0, 65_535, 65_536, 131_072, mem.eventCount() - 1);
    }

    @Test
    void scopesMatch() {
        StoreAgreement.scopes(mem, ooc);
    }

    @Test
    void exactGaugesMatchAtEveryZoom() {
        ooc.exactGauges(true);
        try {
            StoreAgreement.gaugesAtEveryZoom(mem, ooc);
        } finally {
            ooc.exactGauges(false);
        }
    }

    @Test
    void zoomedOutFrameReadsNoChunkAndKeepsTotals() {
        for (MemoryInfo m : mem.memories()) {
            long misses = ooc.cacheMisses();
            StoreAgreement.wholeSessionFrame(mem, ooc, m, 200);
            assertEquals(misses, ooc.cacheMisses(), "a frame of the whole session reads no chunk (" + m.name() + ")");
        }
    }

    @Test
    void replayGivesTheSameEvents() {
        EventStore back = new EventStore("replayed");
        ooc.replayTo(back);
        assertEquals(mem.eventCount(), back.eventCount());
        assertEquals(mem.memories(), back.memories());
        SplittableRandom r = new SplittableRandom(5);
        for (int k = 0; k < 500; k++) {
            long i = r.nextLong(mem.eventCount());
            assertEquals(mem.event(i), back.event(i));
        }
    }

    @Test
    void holdsLessThanTheInMemoryStore() {
        // no events are held: at 700 k events the fixed part (a pyramid of 16 Ki leaves a memory) still costs less
        assertTrue(ooc.indexBytes() < mem.memoryBytes(), "index " + ooc.indexBytes() + " B against " + mem.memoryBytes() + " B in memory");
        Event first = ooc.event(0);
        assertEquals(mem.event(0), first);
    }
}
