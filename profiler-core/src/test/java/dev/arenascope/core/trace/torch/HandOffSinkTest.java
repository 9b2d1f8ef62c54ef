package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.testsupport.CollectingSink;

/** The import's second thread for the sink: order, failures, cancel, and the store seeing everything before convert returns. */
class HandOffSinkTest {

    /** Records each call as text, with the thread it came on. */
    private static final class Log implements EventSink {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final List<Thread> threads = Collections.synchronizedList(new ArrayList<>());

        private void note(String s) {
            calls.add(s);
            threads.add(Thread.currentThread());
        }

        @Override
        public void onSession(SessionInfo info) {
            note("session " + info.name());
        }

        @Override
        public void onString(int id, String value) {
            note("string " + id + " " + value);
        }

        @Override
        public void onThread(int id, String name) {
            note("thread " + id + " " + name);
        }

        @Override
        public void onEvents(EventBatch batch) {
            StringBuilder sb = new StringBuilder("events");
            for (int i = 0; i < batch.size(); i++) {
                sb.append(' ').append(batch.a(i));
            }
            note(sb.toString());
        }

        @Override
        public void onClose() {
            note("close");
        }
    }

    private static EventBatch batchOf(long... as) {
        EventBatch b = new EventBatch(4);
        for (long a : as) {
            b.add(a, EventBatch.pack(EventKind.ALLOC.code(), 0, 0), 1, a, 8, 8, 8, 0, -1, -1);
        }
        return b;
    }

    @Test
    void everyCallArrivesInOrderOnOneOtherThreadAndCloseWaitsForThem() {
        Log log = new Log();
        HandOffSink h = new HandOffSink(log, "t", 4);
        h.onSession(new SessionInfo("s", "", 0, List.of(), Map.of()));
        List<String> expected = new ArrayList<>(List.of("session s"));
        EventBatch b = new EventBatch(4);
        for (int i = 0; i < 50; i++) { // many more batches than may wait at once
            h.onString(i, "s" + i);
            h.onThread(i, "t" + i);
            b.add(i, EventBatch.pack(EventKind.ALLOC.code(), 0, 0), 1, i, 8, 8, 8, 0, -1, -1);
            b.add(i, EventBatch.pack(EventKind.FREE.code(), 0, 0), 1, i + 1000, 8, 0, 0, 0, -1, -1);
            expected.add("string " + i + " s" + i);
            expected.add("thread " + i + " t" + i);
            expected.add("events " + i + " " + (i + 1000));
            b = i % 2 == 0 ? h.handOver(b) : copyThenClear(h, b);
            assertEquals(0, b.size(), "an empty batch to fill next");
        }
        h.onString(99, "last");
        h.onClose();
        expected.add("string 99 last");
        expected.add("close");
        assertEquals(expected, log.calls, "all calls, in order, and all of them before onClose returned");
        Thread worker = log.threads.getFirst();
        assertNotEquals(Thread.currentThread(), worker);
        assertTrue(log.threads.stream().allMatch(t -> t == worker), "one thread makes every call");
    }

    private static EventBatch copyThenClear(HandOffSink h, EventBatch b) {
        h.onEvents(b); // copies
        b.clear();
        return b;
    }

    @Test
    void aFailingSinkStopsAndTheCallerGetsTheSameExceptionNothingMoreArrives() {
        RuntimeException boom = new IllegalStateException("store full");
        List<Long> seen = Collections.synchronizedList(new ArrayList<>());
        EventSink failing = new EventSink() {
            @Override
            public void onEvents(EventBatch batch) {
                seen.add(batch.a(0));
                if (batch.a(0) == 2) {
                    throw boom;
                }
            }

            @Override
            public void onClose() {
                seen.add(-1L);
            }
        };
        HandOffSink h = new HandOffSink(failing, "t", 4);
        RuntimeException got = assertThrows(RuntimeException.class, () -> {
            for (long i = 0; i < 1000; i++) {
                h.handOver(batchOf(i));
            }
            h.onClose();
        });
        assertSame(boom, got);
        assertEquals(List.of(0L, 1L, 2L), seen, "nothing after the failure, no close");
    }

    @Test
    void anInterruptedCallerCancelsWithItsInterruptStatusKept() throws Exception {
        CountDownLatch stuck = new CountDownLatch(1);
        EventSink slow = batch -> {
            try {
                stuck.await(); // the worker holds the first batch until the test ends
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            HandOffSink h = new HandOffSink(slow, "file.pickle", 4);
            try {
                for (long i = 0; i < 100; i++) {
                    h.handOver(batchOf(i)); // blocks once IN_FLIGHT batches wait
                }
            } catch (Throwable t) {
                thrown.set(t);
                interrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        caller.start();
        while (caller.getState() != Thread.State.TIMED_WAITING && caller.isAlive()) {
            Thread.onSpinWait(); // waiting for room in the hand-off
        }
        caller.interrupt();
        caller.join();
        stuck.countDown();
        assertTrue(thrown.get() instanceof CancellationException, String.valueOf(thrown.get()));
        assertTrue(thrown.get().getMessage().startsWith("file.pickle: import cancelled"), thrown.get().getMessage());
        assertTrue(interrupted.get(), "the interrupt status is kept for the caller");
    }

    @Test
    void aCancelFromTheStoresProgressCallbackEndsTheImportOnTheCallersThread(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gen.pickle");
        SyntheticSnapshot.Summary sum = SyntheticSnapshot.write(file, SyntheticSnapshot.Spec.plain(3, 40_000));
        CollectingSink whole = new CollectingSink();
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(file, whole);
        assertTrue(whole.closed, "closed before convert returned");
        assertEquals(r.events(), whole.events.size(), "every event before convert returned");
        assertEquals(sum.peakDefault(), whole.peakUsed(0));
        whole.assertSound();

        int[] batches = {0};
        CancellationException e = assertThrows(CancellationException.class, () -> TorchSnapshotToTrace.convert(file, new CollectingSink() {
            @Override
            public synchronized void onEvents(EventBatch batch) {
                if (++batches[0] == 2) {
                    throw new CancellationException("cancelled");
                }
                super.onEvents(batch);
            }
        }));
        assertEquals("cancelled", e.getMessage());
        assertEquals(2, batches[0], "no batch after the cancel");
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
