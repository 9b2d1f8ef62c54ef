package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.AstraceTail;
import dev.arenascope.core.trace.file.GeneratedTrace;

/**
 * A live store past a small spill threshold goes out of core and keeps answering every question as an
 * in-memory store of the same stream does (events one by one and in ranges across block edges, times to
 * indexes, scopes, peaks, per-memory counts, sites, a replay, the gauges at every zoom), while what it
 * holds in memory stops growing with the events: the stream's second half adds a small fraction of what
 * it adds to the in-memory store. The spill file leaves no name behind in its directory.
 */
class EventStoreSpillTest {
    static final long THRESHOLD = 2L << 20;

    @TempDir
    static Path dir;
    static Path spillDir;
    static EventStore mem;
    static EventStore spill;
    static Path file;

    /** Forwards a stream to a store, noting what the store holds once half the events are in. */
    static final class Feed implements EventSink {
        final EventStore to;
        final long half;
        long seen;
        long atHalf = -1;

        Feed(EventStore to, long total) {
            this.to = to;
            this.half = total / 2;
        }

        @Override public void onSession(SessionInfo info) { to.onSession(info); }
        @Override public void onMemory(MemoryInfo m) { to.onMemory(m); }
        @Override public void onString(int id, String v) { to.onString(id, v); }
        @Override public void onThread(int id, String n) { to.onThread(id, n); }
        @Override public void onFrame(StackFrame f) { to.onFrame(f); }
        @Override public void onStack(StackNode n) { to.onStack(n); }
        @Override public void onLoss(long n) { to.onLoss(n); }
        @Override public void onClose() { to.onClose(); }

        @Override
        public void onEvents(EventBatch batch) {
            to.onEvents(batch);
            seen += batch.size();
            if (atHalf < 0 && seen >= half) {
                atHalf = to.memoryBytes();
            }
        }
    }

    @BeforeAll
    static void record() throws IOException {
        file = GeneratedTrace.write(dir.resolve("spill.astrace"), 700_000, 11, null);
        spillDir = Files.createDirectory(dir.resolve("spill"));
        EventStore loaded = new EventStore("loaded");
        AstraceReader.read(file, loaded);
        long n = loaded.eventCount();
        // both stores take the same stream the way a live session's drain delivers it: batches through onEvents
        mem = new EventStore("in memory");
        Feed m = new Feed(mem, n);
        loaded.replayTo(m);
        spill = new EventStore("spilling", THRESHOLD, spillDir);
        Feed s = new Feed(spill, n);
        loaded.replayTo(s);
    }

    @Test
    void goesOutOfCoreAndLeavesNoFileBehind() throws IOException {
        assertTrue(spill.spilled(), "past " + THRESHOLD + " bytes the store spills");
        assertNull(spill.spillProblem());
        assertFalse(mem.spilled());
        assertTrue(spill.spilledBytes() > THRESHOLD, "the sealed blocks are in the file: " + spill.spilledBytes() + " bytes");
        try (Stream<Path> left = Files.list(spillDir)) {
            assertEquals(0, left.count(), "the spill file has no name in its directory");
        }
    }

    @Test
    void memoryStopsGrowingWithTheEvents() {
        // the arena/pool/plan stream at a scale where the spilled store's fixed part (a gauge pyramid of at most
        // 8,192 leaves a memory for each doubling of the session) no longer hides the slope
        long n = 3_000_000;
        EventStore inMemory = new EventStore("in memory");
        EventStore spilling = new EventStore("spilling", THRESHOLD, spillDir);
        Feed m = new Feed(inMemory, n);
        Feed s = new Feed(spilling, n);
        SyntheticTrace.write(5, n, m);
        SyntheticTrace.write(5, n, s);
        assertTrue(spilling.spilled());
        long memGrowth = inMemory.memoryBytes() - m.atHalf;
        long spillGrowth = spilling.memoryBytes() - s.atHalf;
        assertTrue(memGrowth > 10 * (n / 2), "the in-memory store grows by its blocks: " + memGrowth + " B over " + n / 2 + " events");
        assertTrue(spillGrowth * 3 < memGrowth, "the spilled store's second half adds " + spillGrowth + " B against " + memGrowth + " B");
        assertTrue(spilling.memoryBytes() * 2 < inMemory.memoryBytes(), spilling.memoryBytes() + " B held against " + inMemory.memoryBytes());
    }

    @Test
    void metadataCountsAndPeaksMatch() {
        StoreAgreement.metadata(mem, spill);
        assertTrue(spill.hasSites());
    }

    @Test
    void eventsRangesAndTimesMatch() {
        long n = mem.eventCount();
        long openBlock = n - n % EventStore.BLOCK_EVENTS;
        StoreAgreement.events(mem, spill, 800, 0, EventStore.BLOCK_EVENTS, 5L * EventStore.BLOCK_EVENTS, n / 2, openBlock, n - 1);
        assertThrows(IndexOutOfBoundsException.class, () -> spill.event(n));
    }

    @Test
    void scopesMatch() {
        StoreAgreement.scopes(mem, spill);
    }

    @Test
    void gaugesMatchAtEveryZoom() {
        spill.exactGauges(true);
        try {
            StoreAgreement.gaugesAtEveryZoom(mem, spill);
        } finally {
            spill.exactGauges(false);
        }
        for (MemoryInfo m : mem.memories()) {
            StoreAgreement.wholeSessionFrame(mem, spill, m, 1600);
        }
    }

    @Test
    void replayGivesTheSameEventsWithTheirSites() {
        EventStore back = new EventStore("replayed");
        spill.replayTo(back);
        assertEquals(mem.eventCount(), back.eventCount());
        assertEquals(mem.memories(), back.memories());
        EventBatch a = new EventBatch(16);
        EventBatch b = new EventBatch(16);
        mem.copyEvents(0, mem.eventCount(), a);
        back.copyEvents(0, back.eventCount(), b);
        for (int i = 0; i < a.size(); i++) {
            if (a.site(i) != b.site(i) || a.category(i) != b.category(i) || a.time(i) != b.time(i) || a.used(i) != b.used(i)) {
                assertEquals(a.get(i), b.get(i), "event " + i);
            }
        }
    }

    @Test
    void answersWhileItSpillsUnderReaders() throws Exception {
        EventStore live = new EventStore("live", 1L << 20, spillDir);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    long n = live.eventCount();
                    if (n > 0) {
                        live.event(n - 1);
                        live.event(n / 2);
                        for (MemoryInfo m : live.memories()) {
                            live.gauges(m.id(), live.startNs(), live.endNs() + 1, 500);
                        }
                    }
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        reader.start();
        mem.replayTo(live);
        reader.interrupt();
        reader.join();
        assertNull(failed.get(), () -> "a reader failed while the store spilled: " + failed.get());
        assertTrue(live.spilled());
        SplittableRandom r = new SplittableRandom(9);
        for (int k = 0; k < 500; k++) {
            long i = r.nextLong(mem.eventCount());
            assertEquals(mem.event(i), live.event(i), "event " + i);
        }
    }

    @Test
    void aTraceFollowedAsItIsWrittenSpillsByTheProperty() throws IOException {
        // AstraceTail (the window's open of a recording in progress) makes its store with EventStore.live: whole
        // file chunks adopted first, then, once spilled, each chunk through the open block to the spill file
        String old = System.getProperty("arenascope.store.spill");
        String oldDir = System.getProperty("arenascope.store.spill.dir");
        System.setProperty("arenascope.store.spill", "1MiB");
        System.setProperty("arenascope.store.spill.dir", spillDir.toString());
        try (AstraceTail tail = AstraceTail.open(file)) {
            while (!tail.finished()) {
                tail.poll();
            }
            EventStore s = tail.store();
            assertTrue(s.spilled(), "a 1 MiB threshold is passed by the second chunk");
            assertEquals(mem.eventCount(), s.eventCount());
            assertEquals(mem.memories(), s.memories());
            SplittableRandom r = new SplittableRandom(13);
            for (int k = 0; k < 300; k++) {
                long i = r.nextLong(mem.eventCount());
                assertEquals(mem.event(i), s.event(i), "event " + i);
            }
            s.exactGauges(true);
            for (MemoryInfo m : mem.memories()) {
                long from = mem.startNs() + (mem.endNs() - mem.startNs()) / 3;
                StoreAgreement.same(mem.gauges(m.id(), from, from + 200_000, 500), s.gauges(m.id(), from, from + 200_000, 500), m.name());
                assertEquals(mem.peakUsed(m.id()), s.peakUsed(m.id()), m.name());
            }
        } finally {
            restore("arenascope.store.spill", old);
            restore("arenascope.store.spill.dir", oldDir);
        }
    }

    static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    @Test
    void aThresholdMustNotBeNegativeAndAPropertyMustBeASize() {
        assertThrows(IllegalArgumentException.class, () -> new EventStore("x", -1, null));
        String old = System.getProperty("arenascope.store.spill");
        try {
            System.setProperty("arenascope.store.spill", "512MiB");
            assertEquals(512L << 20, EventStore.spillThreshold());
            System.setProperty("arenascope.store.spill", "3G");
            assertEquals(3L << 30, EventStore.spillThreshold());
            System.setProperty("arenascope.store.spill", "off");
            assertEquals(0, EventStore.spillThreshold());
            System.setProperty("arenascope.store.spill", "lots");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, EventStore::spillThreshold);
            assertTrue(e.getMessage().contains("arenascope.store.spill") && e.getMessage().contains("lots"), e.getMessage());
        } finally {
            if (old == null) {
                System.clearProperty("arenascope.store.spill");
            } else {
                System.setProperty("arenascope.store.spill", old);
            }
        }
    }
}
