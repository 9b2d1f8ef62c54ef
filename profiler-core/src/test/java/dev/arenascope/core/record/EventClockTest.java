package dev.arenascope.core.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.arenascope.core.arena.AllocationRecorder;
import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.testsupport.Await;
import dev.arenascope.testsupport.CollectingSink;

/**
 * What {@link EventClock} promises: stamps never run ahead of the event, never decrease along a
 * thread, and are late by less than one tick gap and less than the span of the producer's previous
 * {@value EventClock#STAMP_BUDGET} events.
 */
class EventClockTest {
    private static final int B = EventClock.STAMP_BUDGET;

    /** True time on {@code clock}'s scale, read without touching the clock's state. */
    private static long trueNow(EventClock clock) {
        return System.nanoTime() - clock.origin();
    }

    /**
     * The largest tick gap once the generation visible now has been replaced (a gap is measured when
     * its generation ends), so it covers every stamp taken so far. Bounded wait.
     */
    private static long settledMaxGap() {
        long g = Ticker.generation();
        if (g >= 0) {
            Await.until("the ticker to replace generation " + g, () -> Ticker.generation() != g);
        }
        return EventClock.maxTickGapNs();
    }

    private static void spin(long ns) {
        long end = System.nanoTime() + ns;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    @Test
    void stampsAreLateByLessThanATickGapAndLessThanTheBudgetsSpan() throws Exception {
        EventClock clock = new EventClock();
        EventClock.holdTicker();
        try {
            // the ticker starts idle and ticks once stamps read the clock: wait (bounded) until it does, with
            // a stamper of another clock, so the measured stamper's first stamp has no history
            EventClock.Stamper waker = new EventClock().stamper();
            long until = System.nanoTime() + 10_000_000_000L;
            while (Ticker.generation() < 0 && System.nanoTime() < until) {
                waker.stamp();
            }
            assertTrue(Ticker.generation() > 0, "the ticker ticks while stamps flow");
            EventClock.Stamper stamper = clock.stamper();
            SplittableRandom random = new SplittableRandom(7);
            int n = 20_000;
            long[] before = new long[n];
            long[] stamp = new long[n];
            long[] after = new long[n];
            for (int i = 0; i < n; i++) {
                // bursts of back-to-back events, then pauses up to three tick periods
                if (random.nextInt(64) == 0) {
                    spin(random.nextLong(3 * EventClock.TICK_PERIOD_NS));
                }
                before[i] = trueNow(clock);
                stamp[i] = stamper.stamp();
                after[i] = trueNow(clock);
            }
            long maxGap = settledMaxGap();
            assertTrue(maxGap > 0, "the ticker ticked");
            int cached = 0;
            for (int i = 0; i < n; i++) {
                assertTrue(stamp[i] <= after[i], "event " + i + " stamped after it happened");
                assertTrue(stamp[i] >= before[Math.max(0, i - (B - 1))],
                        "event " + i + " stamped before the " + B + " events up to it began");
                // the event happened at or after before[i] (after[i] can be much later if the thread was preempted)
                assertTrue(before[i] - stamp[i] < maxGap, "event " + i + " stamped " + (before[i] - stamp[i])
                        + " ns before it began, more than the largest tick gap " + maxGap);
                if (i > 0) {
                    assertTrue(stamp[i] >= stamp[i - 1], "stamps went back at event " + i);
                    if (stamp[i] == stamp[i - 1]) {
                        cached++;
                    }
                }
            }
            assertTrue(cached > n / 2, "most back-to-back stamps skip the clock, got " + cached + " of " + n);
        } finally {
            EventClock.releaseTicker();
        }
    }

    @Test
    void stampsAndReadingsNeverGoBackAlongAThreadAcrossProducers() throws Exception {
        EventClock clock = new EventClock();
        int threads = 4;
        int steps = 50_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Throwable> failures = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        EventClock.holdTicker();
        try {
            for (int t = 0; t < threads; t++) {
                int seed = t;
                running.add(Thread.ofPlatform().start(() -> {
                    // each thread has producers of its own and switches among them and plain readings
                    EventClock.Stamper[] mine = {clock.stamper(), clock.stamper(), clock.stamper()};
                    SplittableRandom random = new SplittableRandom(seed);
                    try {
                        start.await();
                        long last = Long.MIN_VALUE;
                        for (int i = 0; i < steps; i++) {
                            int pick = random.nextInt(8);
                            long v = pick < 3 ? mine[pick].stamp() : pick == 3 ? clock.now() : clock.stamper().stamp();
                            long truth = trueNow(clock);
                            if (v < last || v > truth) {
                                throw new AssertionError("thread " + seed + " step " + i + ": " + v + " after " + last
                                        + " (true time " + truth + ")");
                            }
                            last = v;
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }));
            }
            for (Thread t : running) {
                t.join();
            }
        } finally {
            EventClock.releaseTicker();
        }
        assertEquals(List.of(), failures);
    }

    @Test
    void theTickerGoesIdleWhenNoStampReadsTheClockAndStampsThenReadItEveryTime() throws Exception {
        EventClock clock = new EventClock();
        EventClock.Stamper stamper = clock.stamper();
        EventClock.holdTicker();
        try {
            // nothing stamps: after IDLE_AFTER_PERIODS quiet periods the generation turns negative. Another
            // test's stampers (tests of other classes run beside this one) may keep it ticking: then this test
            // cannot look at an idle ticker, and says so as a skip rather than passing without its checks
            boolean idle = Await.within(Duration.ofSeconds(10), () -> Ticker.generation() < 0);
            Assumptions.assumeTrue(idle, "the ticker never went idle in 10 s: other stampers kept it ticking, so its idle path was not checked");
            long issued = Ticker.generationsIssued();
            long before = trueNow(clock);
            long s = stamper.stamp();
            assertTrue(s >= before, "an idle ticker proves nothing: the stamp is a fresh reading");
            // that read woke the ticker. It may tick only a few periods and go idle again before this thread
            // looks (a loaded machine), so look at the generations it handed out, not at the current one
            Await.until("a stamper's clock read to wake the idle ticker", () -> Ticker.generationsIssued() > issued);
        } finally {
            EventClock.releaseTicker();
        }
    }

    @Test
    void anExactClockReadsTheClockForEveryStamp() {
        EventClock clock = new EventClock(true);
        EventClock.Stamper stamper = clock.stamper();
        EventClock.holdTicker();
        try {
            for (int i = 0; i < 10_000; i++) {
                long before = trueNow(clock);
                long s = stamper.stamp();
                assertTrue(s >= before && s <= trueNow(clock), "stamp " + i + " is not a reading taken at the event");
            }
        } finally {
            EventClock.releaseTicker();
        }
    }

    @Test
    void recordedAllocationsCarryStampsWithinTheDocumentedResolution() throws Exception {
        try (HostDevice host = new HostDevice()) {
            Session session = new Session("clock-test", 1 << 16);
            CollectingSink sink = new CollectingSink();
            session.addSink(sink);
            EventClock clock = session.clock();
            SplittableRandom random = new SplittableRandom(11);
            int n = 20_000;
            long[] before = new long[n];
            long[] after = new long[n];
            long[] rowTimes = new long[n];
            long created = trueNow(clock);
            try (ManualMemory arena = ManualMemory.builder().device(host).session(session).name("clocked").numBytes(1 << 20)
                    .noPoison().build();
                 AllocationRecorder rec = arena.recording()) {
                for (int i = 0; i < n; i++) {
                    if (random.nextInt(100) == 0) {
                        spin(random.nextLong(2 * EventClock.TICK_PERIOD_NS));
                    }
                    before[i] = trueNow(clock);
                    if (i % 64 == 0) {
                        arena.reset(); // a RESET event: the same stamper, inside this step's window
                    }
                    arena.getTensor(new long[] {1 + random.nextInt(64)}, DType.FLOAT32);
                    after[i] = trueNow(clock);
                }
                for (int i = 0; i < n; i++) {
                    rowTimes[i] = rec.allocation(i).timeNs();
                }
            }
            session.flush();
            long maxGap = settledMaxGap();
            List<Event> allocs = sink.of(EventKind.ALLOC);
            session.close();
            assertEquals(0, sink.lost, "no event lost");
            assertEquals(n, allocs.size());
            long last = Long.MIN_VALUE;
            for (int i = 0; i < n; i++) {
                long t = allocs.get(i).timeNs();
                assertEquals(rowTimes[i], t, "the recorder's row and the event share one stamp");
                assertTrue(t >= last, "event times went back at allocation " + i);
                assertTrue(t <= after[i], "allocation " + i + " stamped after it returned");
                // the stamper's previous events: the arena's creation, then each step's reset and allocation
                assertTrue(t >= (i < B - 1 ? created : before[i - (B - 1)]), "allocation " + i + " stamped before its " + B
                        + " predecessors began");
                assertTrue(before[i] - t < maxGap, "allocation " + i + " stamped " + (before[i] - t)
                        + " ns before it began, more than the largest tick gap " + maxGap);
                last = t;
            }
        }
    }
}
