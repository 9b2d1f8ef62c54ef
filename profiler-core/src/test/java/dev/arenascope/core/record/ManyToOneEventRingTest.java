package dev.arenascope.core.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.testsupport.CollectingSink;

/**
 * The ring's contract under concurrency. Acceptable outcomes, for N producers each publishing M events
 * tagged (producer, sequence):
 * <ol>
 *   <li>capacity >= N*M, no consumer running: every event is read exactly once, lost == 0;</li>
 *   <li>capacity < N*M, no consumer running: exactly capacity events are read and lost == N*M - capacity
 *       exactly; what each producer got in is a prefix of its sequence (once full, the ring stays full);</li>
 *   <li>a consumer running concurrently, any capacity: read + lost == N*M, no event is read twice, and each
 *       producer's events are read in the order it published them.</li>
 * </ol>
 */
class ManyToOneEventRingTest {
    private static final int KIND = EventBatch.pack(EventKind.MARKER.code(), 0, 3);

    @Test
    void refusesCapacitiesThatAreNotPowersOfTwo() {
        for (int bad : new int[] {0, 15, 100, -16, 1 << 25}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ManyToOneEventRing(bad));
            assertTrue(e.getMessage().contains(String.valueOf(bad)), e.getMessage());
        }
    }

    @Test
    void oneProducerRoundTripsEveryFieldAndCountsLossExactly() {
        ManyToOneEventRing ring = new ManyToOneEventRing(16);
        for (int i = 0; i < 20; i++) {
            boolean ok = ring.offer(1000 + i, KIND, 7, i, -i, Long.MAX_VALUE - i, 5L << 40, -1, i * 3, -i);
            assertEquals(i < 16, ok);
        }
        assertEquals(4, ring.lost());
        EventBatch batch = new EventBatch();
        assertEquals(10, ring.drainTo(batch, 10));
        assertEquals(6, ring.drainTo(batch, 100));
        assertEquals(0, ring.drainTo(batch, 100));
        for (int i = 0; i < 16; i++) {
            Event e = batch.get(i);
            assertEquals(new Event(1000 + i, EventKind.MARKER, 0, 3, 7, i, -i, Long.MAX_VALUE - i, 5L << 40, -1, i * 3, -i), e);
        }
        // wraps around after being drained
        for (int i = 0; i < 40; i++) {
            assertTrue(ring.offer(i, KIND, 1, i, 0, 0, 0, 0, 0, 0));
            EventBatch one = new EventBatch();
            assertEquals(1, ring.drainTo(one, 5));
            assertEquals(i, one.a(0));
        }
        assertEquals(4, ring.lost());
    }

    private static Thread[] producers(ManyToOneEventRing ring, int n, int m, CyclicBarrier start) {
        Thread[] threads = new Thread[n];
        for (int p = 0; p < n; p++) {
            int producer = p;
            threads[p] = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int s = 0; s < m; s++) {
                    ring.offer(s, KIND, producer, producer, s, 0, 0, 0, 0, 0);
                }
            });
        }
        return threads;
    }

    @Test
    @Timeout(30)
    void manyProducersWithRoomLoseNothingAndDuplicateNothing() throws Exception {
        int n = 4;
        int m = 20_000;
        ManyToOneEventRing ring = new ManyToOneEventRing(1 << 17);
        for (Thread t : producers(ring, n, m, new CyclicBarrier(n))) {
            t.join();
        }
        EventBatch batch = new EventBatch();
        assertEquals(n * m, ring.drainTo(batch, Integer.MAX_VALUE));
        assertEquals(0, ring.lost());
        boolean[][] seen = new boolean[n][m];
        long[] last = {-1, -1, -1, -1};
        for (int i = 0; i < batch.size(); i++) {
            int p = (int) batch.a(i);
            int s = (int) batch.b(i);
            assertFalse(seen[p][s], "duplicate " + p + "/" + s);
            seen[p][s] = true;
            assertTrue(s > last[p], "producer " + p + " out of order");
            last[p] = s;
        }
    }

    @Test
    @Timeout(30)
    void manyProducersOverflowingCountExactlyWhatDidNotFit() throws Exception {
        int n = 4;
        int m = 5_000;
        int capacity = 1 << 12;
        ManyToOneEventRing ring = new ManyToOneEventRing(capacity);
        for (Thread t : producers(ring, n, m, new CyclicBarrier(n))) {
            t.join();
        }
        EventBatch batch = new EventBatch();
        assertEquals(capacity, ring.drainTo(batch, Integer.MAX_VALUE));
        assertEquals((long) n * m - capacity, ring.lost());
        int[] next = new int[n];
        for (int i = 0; i < batch.size(); i++) {
            int p = (int) batch.a(i);
            assertEquals(next[p], batch.b(i), "what producer " + p + " got in is a prefix of what it sent");
            next[p]++;
        }
    }

    @Test
    @Timeout(60)
    void aConcurrentConsumerSeesEachEventOnceInPerProducerOrder() throws Exception {
        int n = 3;
        int m = 100_000;
        ManyToOneEventRing ring = new ManyToOneEventRing(1 << 10);
        AtomicBoolean done = new AtomicBoolean();
        List<long[]> read = new ArrayList<>();
        Thread consumer = Thread.ofPlatform().start(() -> {
            EventBatch batch = new EventBatch();
            while (true) {
                boolean finished = done.get();
                batch.clear();
                int k = ring.drainTo(batch, 256);
                for (int i = 0; i < k; i++) {
                    read.add(new long[] {batch.a(i), batch.b(i)});
                }
                if (k == 0 && finished) {
                    return;
                }
                if (k == 0) {
                    Thread.onSpinWait();
                }
            }
        });
        for (Thread t : producers(ring, n, m, new CyclicBarrier(n))) {
            t.join();
        }
        done.set(true);
        consumer.join();
        assertEquals((long) n * m, read.size() + ring.lost(), "every event read or counted lost");
        long[] last = new long[n];
        Arrays.fill(last, -1);
        for (long[] e : read) {
            int p = (int) e[0];
            assertTrue(e[1] > last[p], "producer " + p + ": " + e[1] + " after " + last[p] + " (duplicate or reordered)");
            last[p] = e[1];
        }
    }

    @Test
    @Timeout(30)
    void sessionReportsLossesToSinksAndLostEvents() throws Exception {
        try (Session s = new Session("loss", 64)) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocked = new CountDownLatch(1);
            CollectingSink sink = new CollectingSink(false) {   // raw MARKER events: their ref is no string id
                @Override
                public synchronized void onEvents(EventBatch batch) {
                    blocked.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    super.onEvents(batch);
                }
            };
            s.addSink(sink);
            s.publish(EventKind.MARKER, 0, -1, -1, 0, 0, 0, 0, 0, 0);
            assertTrue(blocked.await(10, TimeUnit.SECONDS), "drain picked up the first event");
            int published = 1000;
            for (int i = 0; i < published; i++) {
                s.publish(EventKind.MARKER, 0, -1, i, 0, 0, 0, 0, 0, 0);
            }
            assertEquals(published - 64, s.lostEvents(), "the ring holds 64 while the sink is stuck");
            release.countDown();
            s.flush();
            synchronized (sink) {
                assertEquals(1 + 64, sink.events.size());
                assertEquals(published - 64, sink.lost, "sinks hear of every loss");
                for (int i = 1; i <= 64; i++) {
                    assertEquals(i - 1, sink.events.get(i).a());
                }
            }
        }
    }

    @Test
    @Timeout(30)
    void sessionDeliversEveryEventOfManyThreads() throws Exception {
        try (Session s = new Session("many")) {
            CollectingSink sink = new CollectingSink(false);
            s.addSink(sink);
            int n = 4;
            int m = 10_000;
            Thread[] threads = new Thread[n];
            for (int p = 0; p < n; p++) {
                int producer = p;
                threads[p] = Thread.ofPlatform().name("producer-" + p).start(() -> {
                    for (int i = 0; i < m; i++) {
                        s.publish(EventKind.MARKER, 0, -1, producer, i, 0, 0, 0, 0, 0);
                    }
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            s.flush();
            synchronized (sink) {
                assertEquals(0, s.lostEvents());
                assertEquals(n * m, sink.events.size());
                long[] next = new long[n];
                for (Event e : sink.events) {
                    assertEquals(next[(int) e.a()]++, e.b());
                }
            }
        }
    }
}
