package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.GaugeSeries;
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
        assertEquals(mem.eventCount(), ooc.eventCount());
        assertEquals(mem.startNs(), ooc.startNs());
        assertEquals(mem.endNs(), ooc.endNs());
        assertEquals(mem.memories(), ooc.memories());
        assertEquals(mem.strings(), ooc.strings());
        assertEquals(mem.threads(), ooc.threads());
        assertEquals(mem.session(), ooc.session());
        assertEquals(mem.hasSites(), ooc.hasSites());
        assertTrue(ooc.hasSites());
        assertEquals(mem.stackNodeCount(), ooc.stackNodeCount());
        for (MemoryInfo m : mem.memories()) {
            assertEquals(mem.eventCount(m.id()), ooc.eventCount(m.id()), m.name());
            assertEquals(mem.peakUsed(m.id()), ooc.peakUsed(m.id()), m.name());
            assertEquals(mem.peakAux(m.id()), ooc.peakAux(m.id()), m.name());
        }
    }

    @Test
    void eventsAndRangesMatch() {
        SplittableRandom r = new SplittableRandom(3);
        long n = mem.eventCount();
        for (int k = 0; k < 2000; k++) {
            long i = r.nextLong(n);
            assertEquals(mem.event(i), ooc.event(i), "event " + i);
        }
        for (long edge : new long[] {0, 65_535, 65_536, 131_072, n - 1}) {
            long from = Math.max(0, edge - 300);
            long to = Math.min(n, edge + 300);
            EventBatch a = new EventBatch(16);
            EventBatch b = new EventBatch(16);
            mem.copyEvents(from, to, a);
            ooc.copyEvents(from, to, b);
            assertEquals(a.size(), b.size());
            for (int i = 0; i < a.size(); i++) {
                assertEquals(a.get(i), b.get(i), "event " + (from + i));
            }
        }
        for (int k = 0; k < 300; k++) {
            long t = mem.startNs() + r.nextLong(mem.endNs() - mem.startNs() + 2);
            assertEquals(mem.firstIndexAtOrAfter(t), ooc.firstIndexAtOrAfter(t), "time " + t);
        }
        assertEquals(mem.firstIndexAtOrAfter(mem.endNs() + 1), ooc.firstIndexAtOrAfter(mem.endNs() + 1));
    }

    @Test
    void scopesMatch() {
        long s = mem.startNs();
        long e = mem.endNs() + 1;
        for (MemoryInfo m : mem.memories()) {
            assertEquals(mem.scopes(m.id(), s, e, 0), ooc.scopes(m.id(), s, e, 0), m.name());
            long mid = s + (e - s) / 3;
            assertEquals(mem.scopes(m.id(), mid, mid + 50_000, 1000), ooc.scopes(m.id(), mid, mid + 50_000, 1000), m.name());
        }
    }

    @Test
    void exactGaugesMatchAtEveryZoom() {
        long s = mem.startNs();
        long span = mem.endNs() - s + 1;
        ooc.exactGauges(true);
        try {
            for (MemoryInfo m : mem.memories()) {
                for (long[] q : new long[][] {{s, span, 1000}, {s - 500, span + 1000, 37}, {s + span / 3, span / 50, 800},
                        {s + span / 2, 20_000, 400}, {s + span / 7, 999, 1000}}) {
                    GaugeSeries a = mem.gauges(m.id(), q[0], q[0] + q[1], (int) q[2]);
                    GaugeSeries b = ooc.gauges(m.id(), q[0], q[0] + q[1], (int) q[2]);
                    assertSame(a, b, m.name() + " over " + q[1] + " ns in " + q[2]);
                }
            }
        } finally {
            ooc.exactGauges(false);
        }
    }

    @Test
    void zoomedOutFrameReadsNoChunkAndKeepsTotals() {
        long s = mem.startNs();
        long e = mem.endNs() + 1;
        for (MemoryInfo m : mem.memories()) {
            long misses = ooc.cacheMisses();
            GaugeSeries a = mem.gauges(m.id(), s, e, 200);
            GaugeSeries b = ooc.gauges(m.id(), s, e, 200);
            assertEquals(misses, ooc.cacheMisses(), "a frame of the whole session reads no chunk (" + m.name() + ")");
            long ca = 0;
            long cb = 0;
            long maxA = Long.MIN_VALUE;
            long maxB = Long.MIN_VALUE;
            for (int i = 0; i < a.buckets(); i++) {
                ca += a.count()[i];
                cb += b.count()[i];
                maxA = Math.max(maxA, a.usedMax()[i]);
                maxB = Math.max(maxB, b.usedMax()[i]);
            }
            assertEquals(ca, cb, m.name() + ": every event counted once");
            assertEquals(maxA, maxB, m.name() + ": the peak is in the frame");
            assertEquals(a.usedLast()[a.buckets() - 1], b.usedLast()[b.buckets() - 1], m.name());
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

    static void assertSame(GaugeSeries a, GaugeSeries b, String what) {
        assertEquals(a.fromNs(), b.fromNs(), what);
        assertEquals(a.bucketNs(), b.bucketNs(), what);
        assertArrayEquals(a.count(), b.count(), what + ": counts");
        assertArrayEquals(a.usedMin(), b.usedMin(), what + ": used min");
        assertArrayEquals(a.usedMax(), b.usedMax(), what + ": used max");
        assertArrayEquals(a.usedLast(), b.usedLast(), what + ": used last");
        assertArrayEquals(a.auxMin(), b.auxMin(), what + ": aux min");
        assertArrayEquals(a.auxMax(), b.auxMax(), what + ": aux max");
        assertArrayEquals(a.auxLast(), b.auxLast(), what + ": aux last");
    }
}
