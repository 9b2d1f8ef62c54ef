package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.store.TraceStore;

/** The ring of chunks: a capped writer drops the oldest chunks whole, counts them, and keeps the rest readable and right. */
class AstraceRingTest {
    @TempDir
    Path dir;

    static final long EARLY_PEAK = 8L << 20;
    static final long CAP = 256 << 10;

    /** A stream written chunk by chunk, remembering every recorded event (and the gauges it set). */
    static final class Stream {
        final AstraceWriter w;
        final List<Event> written = new ArrayList<>();
        final SplittableRandom rnd = new SplittableRandom(34);
        long used0 = 0;
        long used1 = 0;
        int chunk;

        Stream(AstraceWriter w) {
            this.w = w;
            w.onSession(new SessionInfo("ring", "box", 1_764_000_000_000_000_000L, List.of(), Map.of("tool", "test")));
            w.onString(1, "frame");
            w.onThread(1, "main");
            w.onMemory(new MemoryInfo(0, "frame", MemoryKind.ARENA, "virtual", 1L << 30, Map.of()));
        }

        void add(EventBatch b, long t, EventKind k, int mem, long a, long bytes, long used, int ref) {
            b.add(t, EventBatch.pack(k.code(), 0, mem), 1, a, bytes, bytes, used, 0, ref, -1);
            written.add(b.get(b.size() - 1));
        }

        /** One chunk of 2,000 events at 100 ms a chunk: memory 0 bumps and restores; memory 1 (from chunk 5) allocates; memory 2 lives in chunks 2 and 3. */
        void chunk() {
            EventBatch b = new EventBatch(2100);
            long t0 = chunk * 100_000_000L;
            if (chunk == 0) {
                add(b, 0, EventKind.MEMORY_CREATED, 0, 0, 1L << 30, 0, 1);
                used0 = EARLY_PEAK;
                add(b, 1_000, EventKind.ALLOC, 0, 0, EARLY_PEAK, used0, -1);
                used0 = 1 << 20;
                add(b, 2_000, EventKind.POINTER_RESTORE, 0, 1 << 20, EARLY_PEAK - (1 << 20), used0, -1);
            }
            if (chunk == 2) {
                w.onMemory(new MemoryInfo(2, "short", MemoryKind.ARENA, "virtual", 4096, Map.of()));
                add(b, t0 + 1, EventKind.MEMORY_CREATED, 2, 0, 4096, 0, -1);
            }
            if (chunk == 3) {
                add(b, t0 + 1, EventKind.MEMORY_CLOSED, 2, 0, 4096, 0, -1);
            }
            if (chunk == 5) {
                w.onString(2, "late pool");
                w.onMemory(new MemoryInfo(1, "late pool", MemoryKind.POOL, "virtual", 0, Map.of()));
                add(b, t0 + 2, EventKind.MEMORY_CREATED, 1, 0, 0, 0, 2);
                used1 = 3 << 20;
                add(b, t0 + 3, EventKind.ALLOC, 1, 0x1000, 3 << 20, used1, -1); // freed only at the very end
            }
            for (int i = 0; b.size() < 2000; i++) {
                long t = t0 + 10 + i * 10_000L;
                long size = 64 + rnd.nextInt(4096);
                add(b, t, EventKind.ALLOC, 0, used0, size, used0 + size, -1);
                add(b, t + 5_000, EventKind.POINTER_RESTORE, 0, used0, size, used0, -1);
            }
            w.onEvents(b);
            w.flush();
            chunk++;
        }

        void freeTheLatePoolBlock() {
            EventBatch b = new EventBatch(1);
            used1 = 0;
            add(b, chunk * 100_000_000L, EventKind.FREE, 1, 0x1000, 3 << 20, used1, -1);
            w.onEvents(b);
            w.flush();
        }
    }

    @Test
    void bySizeTheNewestChunksStayReadableAndWhatWasDroppedIsCounted() throws IOException {
        Path file = dir.resolve("ring.astrace");
        Stream s;
        try (AstraceWriter w = new AstraceWriter(file, 1, RingCap.ofBytes(CAP))) {
            s = new Stream(w);
            for (int c = 0; c < 160; c++) {
                s.chunk();
                assertTrue(Files.size(file) <= CAP, "chunk " + c + ": the file grew to " + Files.size(file) + " bytes");
                if (c % 25 == 24) {
                    // readable at every moment, and not "damaged": it is still being written
                    LoadedTrace t = AstraceReader.load(file);
                    assertFalse(t.report().damaged(), t.report().summary());
                    assertTrue(t.report().stillWriting(), t.report().summary());
                    assertTrue(t.report().summary().contains("still being written"), t.report().summary());
                }
            }
            s.freeTheLatePoolBlock();
            assertTrue(w.ringWindow().dropped());
        }
        assertFalse(Files.exists(AstraceWriter.ringTemp(file)));
        assertFalse(Files.exists(WriterNote.noteFor(file)), "the writing note goes when the writer closes");

        LoadedTrace t = AstraceReader.load(file);
        assertFalse(t.report().damaged(), t.report().summary());
        assertFalse(t.report().stillWriting());
        TraceStore store = t.store();
        RingWindow win = RingWindow.of(store.session());
        assertNotNull(win);
        assertTrue(win.droppedChunks() > 40, "dropped " + win.droppedChunks());
        assertTrue(win.rewrites() > 1);
        assertEquals(CAP, win.maxBytes());
        assertEquals("test", store.session().attributes().get("tool"), "the session's own attributes stay");

        // the window opens with the carried gauges of the memories still open: 0 and 1, not 2 (closed)
        int carried = 0;
        while (carried < store.eventCount() && store.event(carried).kind() == EventKind.MEMORY_CREATED
                && store.event(carried).timeNs() == win.windowStartNs()) {
            carried++;
        }
        assertEquals(2, carried);
        // the kept events are exactly the newest ones written
        long kept = store.eventCount() - carried;
        assertEquals(s.written.size(), win.droppedEvents() + kept);
        int firstKept = (int) (s.written.size() - kept);
        assertEquals(win.windowStartNs(), s.written.get(firstKept).timeNs());
        for (int i = 0; i < kept; i++) {
            Event want = s.written.get(firstKept + i);
            Event got = store.event(carried + i);
            assertEquals(want, got, "kept event " + i);
        }
        // the carried gauges are those the dropped events left
        long cut0 = lastUsedBefore(s.written, 0, firstKept);
        long cut1 = lastUsedBefore(s.written, 1, firstKept);
        Event c0 = store.event(0);
        Event c1 = store.event(1);
        assertEquals(0, c0.memory());
        assertEquals(cut0, c0.used());
        assertEquals(1L << 30, c0.b(), "the carried MEMORY_CREATED keeps the memory's capacity");
        assertEquals(1, c1.memory());
        assertEquals(3L << 20, cut1, "the late pool's block is live at the cut");
        assertEquals(cut1, c1.used());
        // memories and strings declared in dropped chunks are still known
        assertEquals("late pool", store.memory(1).name());
        assertEquals("short", store.memory(2).name());
        // peaks are the kept window's: not the early 8 MiB, but the most in use after the cut
        long want0 = cut0;
        for (int i = firstKept; i < s.written.size(); i++) {
            if (s.written.get(i).memory() == 0) {
                want0 = Math.max(want0, s.written.get(i).used());
            }
        }
        assertEquals(want0, store.peakUsed(0));
        assertTrue(store.peakUsed(0) < EARLY_PEAK);
        assertEquals(3L << 20, store.peakUsed(1), "the block allocated before the cut counts in the window's peak");
    }

    private static long lastUsedBefore(List<Event> events, int memory, int end) {
        long used = 0;
        for (int i = 0; i < end; i++) {
            if (events.get(i).memory() == memory) {
                used = events.get(i).used();
            }
        }
        return used;
    }

    @Test
    void byDurationTheLastSpanIsKept() throws IOException {
        Path file = dir.resolve("span.astrace");
        long span = 2_000_000_000L;
        Stream s;
        try (AstraceWriter w = new AstraceWriter(file, 1, RingCap.ofDuration(span))) {
            s = new Stream(w);
            for (int c = 0; c < 100; c++) { // 10 s of session time
                s.chunk();
            }
        }
        LoadedTrace t = AstraceReader.load(file);
        assertFalse(t.report().damaged(), t.report().summary());
        RingWindow win = RingWindow.of(t.store().session());
        assertTrue(win.dropped());
        long last = s.written.getLast().timeNs();
        long kept = last - win.windowStartNs();
        assertTrue(kept >= span - 100_000_000L, "kept " + kept + " ns");
        assertTrue(kept <= span / 100 * RingCap.DURATION_SLACK_PERCENT + 100_000_000L, "kept " + kept + " ns");
        assertEquals(win.windowStartNs(), t.store().startNs());
    }

    @Test
    void aCopyTakenMidRecordingReadsLikeACrashedOne() throws IOException {
        Path file = dir.resolve("crash.astrace");
        Path copy = dir.resolve("copy.astrace");
        try (AstraceWriter w = new AstraceWriter(file, 1, RingCap.ofBytes(CAP))) {
            Stream s = new Stream(w);
            for (int c = 0; c < 120; c++) {
                s.chunk();
            }
            Files.copy(file, copy); // what a crash now would leave: no footer, no writer alive for it
            LoadedTrace t = AstraceReader.load(copy);
            assertFalse(t.report().stillWriting());
            assertEquals(1, t.report().problemCount(), t.report().summary());
            assertTrue(t.report().summary().contains("no footer: the recording did not finish"), t.report().summary());
            assertTrue(RingWindow.of(t.store().session()).dropped());
            assertEquals(w.ringWindow().droppedEvents() + t.store().eventCount() - 2, s.written.size());
        }
    }

    @Test
    void aTraceReadWhileAnotherThreadWritesItYieldsItsSealedChunksAndNoDamage() throws Exception {
        Path file = dir.resolve("live.astrace");
        java.util.concurrent.Semaphore sealed = new java.util.concurrent.Semaphore(0);
        java.util.concurrent.CountDownLatch readerDone = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Throwable> writerFailed = new java.util.concurrent.atomic.AtomicReference<>();
        // the writer runs at most a few chunks ahead of the reader, so reads meet it mid-chunk, not after it ended
        java.util.concurrent.Semaphore credits = new java.util.concurrent.Semaphore(8);
        java.util.Set<Long> boundaries = java.util.concurrent.ConcurrentHashMap.newKeySet(); // events after each whole chunk
        boundaries.add(0L);
        Thread writer = Thread.ofPlatform().name("ring-test-writer").start(() -> {
            try (AstraceWriter w = new AstraceWriter(file, 1)) {
                Stream s = new Stream(w);
                // keeps writing (so reads meet chunks half written) until the reader has seen enough
                while (readerDone.getCount() > 0) {
                    credits.acquire();
                    s.chunk();
                    boundaries.add((long) s.written.size());
                    sealed.release();
                }
            } catch (Throwable e) {
                writerFailed.set(e);
                sealed.release(1_000);
            }
        });
        long seen = -1;
        try {
            for (int round = 0; round < 30; round++) {
                assertTrue(sealed.tryAcquire(60, java.util.concurrent.TimeUnit.SECONDS), "the writer sealed no chunk");
                assertEquals(null, writerFailed.get());
                LoadedTrace t = AstraceReader.load(file);
                assertFalse(t.report().damaged(), "round " + round + ": " + t.report().summary());
                assertTrue(t.report().stillWriting(), t.report().summary());
                long n = t.store().eventCount();
                assertTrue(n >= seen, "round " + round + ": " + n + " events after " + seen);
                assertTrue(boundaries.contains(n), "whole chunks only: " + n + " events");
                seen = n;
                credits.release(4);
            }
        } finally {
            readerDone.countDown();
            credits.release(1_000);
            writer.join();
        }
        assertTrue(seen > 0);
        LoadedTrace done = AstraceReader.load(file);
        assertFalse(done.report().stillWriting());
        assertFalse(done.report().damaged(), done.report().summary());
        assertTrue(done.store().eventCount() >= seen);
    }

    @Test
    void aTailFollowsTheRecordingUntilItsWriterClosesIt() throws Exception {
        Path file = dir.resolve("tail.astrace");
        java.util.concurrent.Semaphore sealed = new java.util.concurrent.Semaphore(0);
        java.util.concurrent.Semaphore credits = new java.util.concurrent.Semaphore(2);
        java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
        java.util.Set<Long> boundaries = java.util.concurrent.ConcurrentHashMap.newKeySet();
        boundaries.add(0L);
        java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();
        AstraceWriter w = new AstraceWriter(file, 1);
        Stream s = new Stream(w);
        Thread writer = Thread.ofPlatform().name("tail-test-writer").start(() -> {
            try {
                while (stop.getCount() > 0) {
                    credits.acquire();
                    if (stop.getCount() == 0) {
                        break;
                    }
                    s.chunk();
                    boundaries.add((long) s.written.size());
                    sealed.release();
                }
                s.freeTheLatePoolBlock();
                total.set(s.written.size());
                w.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sealed.release();
        });
        try (AstraceTail tail = AstraceTail.open(file)) {
            long seen = tail.store().eventCount();
            for (int round = 0; round < 12; round++) {
                assertTrue(sealed.tryAcquire(60, java.util.concurrent.TimeUnit.SECONDS));
                assertEquals(AstraceTail.Poll.WRITING, tail.poll());
                long n = tail.store().eventCount();
                assertTrue(n >= seen && boundaries.contains(n), "round " + round + ": " + n + " events");
                assertFalse(tail.report().damaged(), tail.report().summary());
                seen = n;
                credits.release();
            }
            assertTrue(seen > 0);
            stop.countDown();
            credits.release();
            writer.join();
            assertEquals(AstraceTail.Poll.FINISHED, tail.poll());
            assertEquals(total.get(), tail.store().eventCount());
            assertFalse(tail.report().damaged(), tail.report().summary());
            assertEquals("late pool", tail.store().memory(1).name());
            assertEquals(AstraceReader.load(file).store().peakUsed(0), tail.store().peakUsed(0));
        }
    }

    @Test
    void aTailOfACappedRecordingStopsWhenTheFileIsReplaced() throws IOException {
        Path file = dir.resolve("tailring.astrace");
        try (AstraceWriter w = new AstraceWriter(file, 1, RingCap.ofBytes(CAP))) {
            Stream s = new Stream(w);
            s.chunk();
            try (AstraceTail tail = AstraceTail.open(file)) {
                assertEquals(2001, tail.store().eventCount());
                while (!w.ringWindow().dropped()) {
                    s.chunk();
                }
                assertEquals(AstraceTail.Poll.REPLACED, tail.poll());
                assertEquals(2001, tail.store().eventCount(), "what it read stays");
            }
        }
    }

    @Test
    void aNoteWhoseProcessIsGoneMeansTheRecordingWasCutShort() throws Exception {
        Path file = dir.resolve("gone.astrace");
        AstraceWriter w = new AstraceWriter(file, 1);
        new Stream(w).chunk();
        Path cut = dir.resolve("cut.astrace");
        Files.copy(file, cut);
        w.close();
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-version")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        p.waitFor();
        Files.writeString(WriterNote.noteFor(cut), "pid " + p.pid() + "\nstarted unknown\n");
        assertEquals(WriterNote.State.ABANDONED, WriterNote.check(cut));
        LoadedTrace t = AstraceReader.load(cut);
        assertFalse(t.report().stillWriting());
        assertTrue(t.report().summary().contains("no footer: the recording did not finish"), t.report().summary());
        assertEquals(2001, t.store().eventCount());
    }

    @Test
    void aFileWhoseWriterHasNotSealedItsFirstChunkReadsEmptyNotDamaged() throws IOException {
        Path file = dir.resolve("empty.astrace");
        try (AstraceWriter w = new AstraceWriter(file, 1)) {
            new Stream(w); // metadata only: nothing on disk yet
            assertEquals(0, Files.size(file));
            LoadedTrace t = AstraceReader.load(file);
            assertFalse(t.report().damaged(), t.report().summary());
            assertTrue(t.report().stillWriting());
            assertEquals(0, t.store().eventCount());
        }
    }

    @Test
    void arenaScopeRecordTakesACapAndItsResultSaysWhatWasDropped() throws IOException {
        Path file = dir.resolve("api.astrace");
        SplittableRandom rnd = new SplittableRandom(7);
        dev.arenascope.core.Recording.Result result;
        try (dev.arenascope.core.Recording rec = dev.arenascope.core.ArenaScope.record(file, RingCap.ofBytes(1 << 20)).quiet()) {
            var session = rec.session();
            int mem = session.registerMemory("scratch", MemoryKind.POOL, "virtual", 0, Map.of());
            long used = 0;
            for (int i = 0; i < 600_000; i++) {
                long size = 32 + rnd.nextInt(4096);
                used += size;
                session.publish(EventKind.ALLOC, 0, mem, rnd.nextLong() >>> 8, size, size, used, 0, -1, -1);
            }
            rec.close();
            result = rec.result();
        }
        assertNotNull(result.ring());
        assertTrue(result.ring().dropped(), result.toString());
        assertTrue(result.toString().contains("capped (max size 1.00 MiB): "), result.toString());
        assertTrue(Files.size(file) <= 1 << 20, Files.size(file) + " bytes");
        LoadedTrace t = AstraceReader.load(file);
        assertFalse(t.report().damaged(), t.report().summary());
        assertEquals(result.fileEvents(), result.ring().droppedEvents() + t.store().eventCount() - 1);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> dev.arenascope.core.ArenaScope.record(dir.resolve("x.jsonl"), RingCap.ofBytes(1 << 20)));
    }

    @Test
    void badCapsAreRefusedWithTheirOption() {
        for (String[] bad : new String[][] {{"0", null}, {"-1", null}, {"10XB", null}, {"512KiB", null}, {null, "0"},
                {null, "-5s"}, {null, "8 hours"}, {null, "500ms"}}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> RingCap.parseOptions(bad[0], bad[1]));
            assertTrue(e.getMessage().startsWith(bad[0] != null ? "--max-size" : "--max-duration"), e.getMessage());
        }
        assertEquals(new RingCap(2L << 30, 8 * 3600_000_000_000L), RingCap.parseOptions("2GiB", "8h"));
        assertEquals(5_400_000_000_000L, RingCap.parseDuration("1h30m"));
        assertEquals(90_000_000_000L, RingCap.parseDuration("90"));
    }
}
