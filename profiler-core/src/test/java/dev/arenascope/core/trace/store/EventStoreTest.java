package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.ScopeInterval;
import dev.arenascope.core.trace.SyntheticTrace;

class EventStoreTest {

    /** Every event of a synthetic stream, in one batch. */
    static EventBatch collect(long seed, long n) {
        EventBatch all = new EventBatch((int) n);
        SyntheticTrace.write(seed, n, new EventSink() {
            @Override
            public void onEvents(EventBatch batch) {
                for (int i = 0; i < batch.size(); i++) {
                    all.addFrom(batch, i);
                }
            }
        });
        return all;
    }

    static EventStore store(long seed, long n) {
        EventStore s = new EventStore();
        SyntheticTrace.write(seed, n, s);
        return s;
    }

    /** Brute force: the step-function gauges over buckets, scanning every event of the memory. */
    static long[][] bruteGauges(EventBatch all, int memory, long from, long to, long w, int buckets) {
        long[][] r = new long[7][buckets];
        List<long[]> ev = new ArrayList<>();
        long eff = Long.MIN_VALUE;
        for (int i = 0; i < all.size(); i++) {
            eff = Math.max(eff, all.time(i));
            if (all.memory(i) == memory) {
                ev.add(new long[] {eff, all.used(i), all.aux(i)});
            }
        }
        for (int b = 0; b < buckets; b++) {
            long s = from + b * w;
            long e = s + w;
            long cu = 0;
            long cx = 0;
            for (long[] x : ev) {
                if (x[0] < s) {
                    cu = x[1];
                    cx = x[2];
                }
            }
            long uMin = cu, uMax = cu, xMin = cx, xMax = cx, cnt = 0;
            for (long[] x : ev) {
                if (x[0] >= s && x[0] < e) {
                    cu = x[1];
                    cx = x[2];
                    uMin = Math.min(uMin, cu);
                    uMax = Math.max(uMax, cu);
                    xMin = Math.min(xMin, cx);
                    xMax = Math.max(xMax, cx);
                    cnt++;
                }
            }
            r[0][b] = uMin;
            r[1][b] = uMax;
            r[2][b] = cu;
            r[3][b] = xMin;
            r[4][b] = xMax;
            r[5][b] = cx;
            r[6][b] = cnt;
        }
        return r;
    }

    static void assertGauges(long[][] want, GaugeSeries got, String what) {
        assertArrayEquals(want[6], got.count(), what + " count");
        assertArrayEquals(want[0], got.usedMin(), what + " usedMin");
        assertArrayEquals(want[1], got.usedMax(), what + " usedMax");
        assertArrayEquals(want[2], got.usedLast(), what + " usedLast");
        assertArrayEquals(want[3], got.auxMin(), what + " auxMin");
        assertArrayEquals(want[4], got.auxMax(), what + " auxMax");
        assertArrayEquals(want[5], got.auxLast(), what + " auxLast");
    }

    @Test
    void holdsEveryEventExactlyInTimeOrder() {
        EventBatch all = collect(7, 100_000);
        EventStore s = store(7, 100_000);
        assertEquals(all.size(), s.eventCount());
        for (int i = 0; i < all.size(); i++) {
            assertEquals(all.get(i), s.event(i), "event " + i);
        }
        EventBatch copy = new EventBatch();
        s.copyEvents(1000, 60_000, copy);
        for (int i = 0; i < copy.size(); i++) {
            assertEquals(all.get(1000 + i), copy.get(i));
        }
        assertEquals(all.time(0), s.startNs());
        assertEquals(all.time(all.size() - 1), s.endNs());
        assertEquals(3, s.memories().size());
        assertEquals("main", s.threadName(1));
        assertEquals("pass.shadow", s.string(1));
    }

    @Test
    void takingTheLockAllocatesNothing() {
        EventStore s = store(7, 20_000);
        var threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        long sum = 0;
        for (int round = 0; round < 3; round++) { // the last round runs compiled
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 100_000; i++) {
                sum += s.eventCount() + s.endNs() + s.peakUsed(0) + s.lostEvents();
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            if (round == 2) {
                // 400,000 guarded reads: a guard or lambda allocated per call would take megabytes
                assertTrue(allocated < 64 * 1024, allocated + " bytes allocated by 400,000 locked reads");
            }
        }
        assertTrue(sum != 0);
    }

    @Test
    void gaugesMatchABruteForceScanAtEveryZoom() {
        EventBatch all = collect(11, 60_000);
        EventStore s = store(11, 60_000);
        SplittableRandom r = new SplittableRandom(3);
        long start = all.time(0);
        long end = all.time(all.size() - 1);
        for (int q = 0; q < 150; q++) {
            int mem = r.nextInt(4) - (q % 10 == 0 ? 1 : 0); // includes unknown memories -1 and 3
            long a = start - 1000 + r.nextLong(end - start + 2000);
            long b = a + 1 + (q % 3 == 0 ? r.nextLong(5000) : r.nextLong(end - start + 2000));
            int buckets = 1 + r.nextInt(q % 4 == 0 ? 20 : 700);
            GaugeSeries g = s.gauges(mem, a, b, buckets);
            assertEquals(a, g.fromNs());
            assertEquals(buckets, g.buckets());
            assertGauges(bruteGauges(all, mem, a, b, g.bucketNs(), buckets), g, "query " + q + " mem " + mem + " [" + a + "," + b + ") x" + buckets);
        }
        // the whole session in one bucket: its maximum is the peak
        for (int mem = 0; mem < 3; mem++) {
            GaugeSeries g = s.gauges(mem, start, end + 1, 1);
            assertEquals(s.peakUsed(mem), g.usedMax()[0]);
            assertEquals(s.peakAux(mem), g.auxMax()[0]);
            assertEquals(s.eventCount(mem), g.count()[0]);
        }
    }

    @Test
    void batchSizesDoNotChangeTheAnswers() {
        // the indexes are brought up to date once per batch: a store fed in small, uneven batches
        // (leaves and scope pyramids flushed half-built, many times) answers like one fed in big ones
        EventBatch all = collect(13, 50_000);
        EventStore big = new EventStore();
        big.onEvents(all);
        EventStore small = new EventStore();
        SplittableRandom r = new SplittableRandom(21);
        for (int i = 0; i < all.size(); ) {
            int n = Math.min(all.size() - i, 1 + r.nextInt(i % 3 == 0 ? 5 : 700));
            EventBatch part = new EventBatch(n);
            part.addRange(all, i, i + n);
            small.onEvents(part);
            i += n;
        }
        long start = all.time(0);
        long end = all.time(all.size() - 1) + 1;
        for (int mem = 0; mem < 3; mem++) {
            assertEquals(big.peakUsed(mem), small.peakUsed(mem));
            assertEquals(big.eventCount(mem), small.eventCount(mem));
            for (int q = 0; q < 20; q++) {
                long a = start + r.nextLong(end - start);
                long b = a + 1 + r.nextLong(end - a);
                int buckets = 1 + r.nextInt(500);
                GaugeSeries g = small.gauges(mem, a, b, buckets);
                assertGauges(bruteGauges(all, mem, a, b, g.bucketNs(), buckets), g, "mem " + mem + " query " + q);
                assertEquals(big.scopes(mem, a, b, q % 2 == 0 ? 0 : 20_000), small.scopes(mem, a, b, q % 2 == 0 ? 0 : 20_000));
            }
        }
    }

    @Test
    void gaugesStayExactWhateverWidthTheLeavesArePackedAt() {
        // runs of tiny, medium and full-range gauge steps and time gaps, so leaves pack at 0..64 bits
        SplittableRandom r = new SplittableRandom(5);
        EventBatch all = new EventBatch();
        int p = EventBatch.pack(EventKind.ALLOC.code(), 0, 0);
        long t = 1_000;
        long used = 0;
        long aux = 0;
        for (int i = 0; i < 9_000; i++) {
            int mode = (i / 150) % 5;
            t += switch (mode) {
                case 0 -> 0;
                case 1 -> r.nextLong(4);
                case 2 -> r.nextLong(1L << 20);
                case 3 -> r.nextInt(100) == 0 ? r.nextLong(1L << 40) : 1;
                default -> 1 + r.nextLong(1000);
            };
            used = switch (mode) {
                case 0 -> used;
                case 1 -> used + r.nextLong(3) - 1;
                case 2 -> r.nextLong(1L << 30);
                case 3 -> r.nextLong();
                default -> r.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            };
            aux = mode == 3 ? r.nextLong() : aux + r.nextLong(1L << (1 + (i % 50)));
            all.add(t, p, 1, 0, 0, 0, used, aux, -1, -1);
        }
        EventStore s = new EventStore();
        for (int i = 0; i < all.size(); i += 777) { // several batches: queries also meet the open leaf
            EventBatch b = new EventBatch();
            for (int k = i; k < Math.min(all.size(), i + 777); k++) {
                b.addFrom(all, k);
            }
            s.onEvents(b);
        }
        long start = all.time(0);
        long end = all.time(all.size() - 1);
        for (int q = 0; q < 120; q++) {
            long a = start - 10 + r.nextLong(end - start + 20);
            long b = a + 1 + (q % 2 == 0 ? r.nextLong(1L << 22) : r.nextLong(end - start + 20));
            int buckets = 1 + r.nextInt(q % 3 == 0 ? 10 : 1600);
            GaugeSeries g = s.gauges(0, a, b, buckets);
            assertGauges(bruteGauges(all, 0, a, b, g.bucketNs(), buckets), g, "query " + q + " [" + a + "," + b + ") x" + buckets);
        }
    }

    @Test
    void scopesMatchABruteForceScan() {
        EventBatch all = collect(5, 80_000);
        EventStore s = store(5, 80_000);
        // brute force intervals of memory 0
        Map<Integer, long[]> open = new HashMap<>();
        List<long[]> done = new ArrayList<>(); // start, end, id, name, depth, parent
        for (int i = 0; i < all.size(); i++) {
            if (all.kind(i) == EventKind.SCOPE_ENTER) {
                long[] p = open.get((int) all.c(i));
                long[] iv = {all.time(i), Long.MAX_VALUE, all.ref2(i), all.ref(i), p == null ? 0 : p[4] + 1, all.c(i)};
                open.put(all.ref2(i), iv);
                done.add(iv);
            } else if (all.kind(i) == EventKind.SCOPE_EXIT) {
                open.remove(all.ref2(i))[1] = all.time(i);
            }
        }
        assertTrue(done.size() > 1000, "synthetic stream has scopes: " + done.size());
        SplittableRandom r = new SplittableRandom(9);
        long start = all.time(0);
        long end = all.time(all.size() - 1);
        for (int q = 0; q < 100; q++) {
            long a = start + r.nextLong(end - start);
            long b = a + 1 + r.nextLong(q % 2 == 0 ? 100_000 : end - start);
            long minDur = q % 3 == 0 ? 0 : r.nextLong(200_000);
            List<ScopeInterval> got = s.scopes(0, a, b, minDur);
            List<ScopeInterval> want = new ArrayList<>();
            for (long[] iv : done) {
                long dur = iv[1] == Long.MAX_VALUE ? Long.MAX_VALUE : iv[1] - iv[0];
                if (iv[0] < b && iv[1] > a && dur >= minDur) {
                    want.add(new ScopeInterval((int) iv[2], (int) iv[3], 0, (int) iv[4], iv[0], iv[1], (int) iv[5]));
                }
            }
            assertEquals(want, got, "scopes in [" + a + "," + b + ") >= " + minDur);
        }
        assertTrue(s.scopes(1, start, end, 0).isEmpty());
    }

    @Test
    void firstIndexAtOrAfterMatchesAScan() {
        EventBatch all = collect(13, 50_000);
        EventStore s = store(13, 50_000);
        SplittableRandom r = new SplittableRandom(1);
        for (int q = 0; q < 300; q++) {
            long t = all.time(0) - 10 + r.nextLong(all.time(all.size() - 1) - all.time(0) + 20);
            long want = all.size();
            for (int i = 0; i < all.size(); i++) {
                if (all.time(i) >= t) {
                    want = i;
                    break;
                }
            }
            assertEquals(want, s.firstIndexAtOrAfter(t), "at " + t);
        }
    }

    @Test
    void lateEventsKeepTheirTimeAndTheIndexesStayMonotone() {
        EventStore s = new EventStore();
        EventBatch b = new EventBatch();
        int p = EventBatch.pack(EventKind.ALLOC.code(), 0, 0);
        b.add(100, p, 1, 0, 10, 10, 10, 0, -1, -1);
        b.add(90, p, 2, 10, 10, 10, 20, 0, -1, -1); // a little late: kept in arrival order
        s.onEvents(b);
        b.clear();
        b.add(95, p, 1, 20, 10, 10, 30, 0, -1, -1); // older than the last batch: kept, placed at 100
        b.add(200, p, 1, 30, 10, 10, 40, 0, -1, -1);
        s.onEvents(b);
        assertEquals(100, s.event(0).timeNs());
        assertEquals(90, s.event(1).timeNs());
        assertEquals(95, s.event(2).timeNs());
        assertEquals(3, s.firstIndexAtOrAfter(101));
        GaugeSeries g = s.gauges(0, 0, 400, 4);
        assertArrayEquals(new long[] {0, 3, 1, 0}, g.count());
        assertArrayEquals(new long[] {0, 30, 40, 40}, g.usedLast());
        assertArrayEquals(new long[] {0, 0, 30, 40}, g.usedMin());
        assertArrayEquals(new long[] {0, 30, 40, 40}, g.usedMax());
    }

    @Test
    void tenMillionEventsFitTheBudgetAndAnswerAnyZoomQuickly() {
        long n = 10_000_000;
        EventStore s = store(42, n);
        assertEquals(n, s.eventCount());
        double perEvent = s.memoryBytes() / (double) n;
        assertTrue(perEvent <= 24, "store holds " + perEvent + " bytes an event");
        long start = s.startNs();
        long end = s.endNs() + 1;
        for (int mem = 0; mem < 3; mem++) {
            GaugeSeries g = s.gauges(mem, start, end, 2000);
            long max = 0;
            long total = 0;
            for (int i = 0; i < g.buckets(); i++) {
                max = Math.max(max, g.usedMax()[i]);
                total += g.count()[i];
            }
            assertEquals(s.peakUsed(mem), max);
            assertEquals(s.eventCount(mem), total);
        }
        // sub-ranges against a scan of just their events
        SplittableRandom r = new SplittableRandom(4);
        for (int q = 0; q < 10; q++) {
            long i0 = r.nextLong(n - 20_000);
            long i1 = i0 + 1 + r.nextInt(20_000);
            long a = s.event(i0).timeNs();
            long b = s.event(i1).timeNs();
            if (b <= a) {
                continue;
            }
            int mem = r.nextInt(3);
            int buckets = 1 + r.nextInt(500);
            GaugeSeries g = s.gauges(mem, a, b, buckets);
            long last = s.firstIndexAtOrAfter(a + buckets * g.bucketNs()); // the series may reach past b
            EventBatch ev = new EventBatch();
            long before = Math.max(0, i0 - 200_000); // the values in force: scan back far enough
            s.copyEvents(before, last, ev);
            boolean seen = before == 0;
            for (int k = 0; k < (int) (i0 - before); k++) {
                seen |= ev.memory(k) == mem;
            }
            if (!seen) {
                continue;
            }
            assertGauges(bruteGauges(ev, mem, a, b, g.bucketNs(), buckets), g, "10M query " + q);
        }
        // speed: a full-width query and a deep zoom, both far below a frame
        long best = Long.MAX_VALUE;
        for (int rep = 0; rep < 5; rep++) {
            long t0 = System.nanoTime();
            s.gauges(0, start, end, 2000);
            s.gauges(1, start + (end - start) / 3, start + (end - start) / 3 + 1_000_000, 2000);
            best = Math.min(best, System.nanoTime() - t0);
        }
        assertTrue(best < 100_000_000, "two 2000-bucket queries over 10M events took " + best / 1e6 + " ms");
    }

    @Test
    void readersQueryWhileOneWriterAppends() throws Exception {
        EventStore s = new EventStore();
        SyntheticTrace.announce(s);
        SyntheticTrace gen = new SyntheticTrace(77);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int k = 0; k < 150; k++) {
                s.onEvents(gen.next(4096 + k));
            }
        });
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            int seed = r;
            readers.add(Thread.ofPlatform().start(() -> {
                SplittableRandom rnd = new SplittableRandom(seed);
                long lastCount = 0;
                try {
                    while (writer.isAlive()) {
                        long c = s.eventCount();
                        assertTrue(c >= lastCount);
                        lastCount = c;
                        if (c == 0) {
                            continue;
                        }
                        Event e = s.event(rnd.nextLong(c));
                        assertTrue(e.timeNs() <= s.endNs());
                        int mem = rnd.nextInt(3);
                        GaugeSeries g = s.gauges(mem, s.startNs(), s.endNs() + 1, 300);
                        long total = 0;
                        for (long x : g.count()) {
                            total += x;
                        }
                        assertTrue(total <= s.eventCount(mem));
                        s.scopes(0, s.startNs(), s.endNs(), 1000);
                        s.firstIndexAtOrAfter(e.timeNs());
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        writer.join();
        for (Thread t : readers) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("reader failed", failure.get());
        }
        assertEquals(gen.produced(), s.eventCount());
    }
}
