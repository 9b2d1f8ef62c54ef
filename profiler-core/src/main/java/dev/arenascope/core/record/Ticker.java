package dev.arenascope.core.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One process-wide daemon thread that advances a generation counter every {@link #PERIOD_NS}
 * nanoseconds while events are being stamped. It is what lets an {@link EventClock.Stamper} skip the
 * clock: a stamper that sees the generation it saw at its last real clock read knows that less than
 * one tick gap has passed since that read.
 *
 * <p>The generation is negative while the ticker is stopped or idle; then every stamp reads the clock
 * (exact, only slower). The ticker runs while someone holds it ({@link #acquire()}: a session with
 * sinks, an arena's active recording), and within that it ticks only while stampers keep reading the
 * clock ({@link #noteDemand()}, which every stamper's real read calls): after {@value #IDLE_AFTER_PERIODS}
 * periods in a row without one it goes idle (negative) and parks until the next stamper that reads the
 * clock wakes it. So a recording whose workload pauses for more than 10 ms costs no wake-ups at all.
 * A generation value is never reused.
 *
 * <p>Each wake-up costs about 20 µs of CPU on the project's virtual machines (timer programming in a
 * guest), so the period is a trade: at {@value #PERIOD_NS} ns the ticker measured about 4% of one core
 * while ticking (a mean gap of 0.35 ms: the period plus the kernel's timer slack; at 100 µs it was 11%),
 * nothing while idle.
 *
 * <p>The tick gap is measured rigorously: from a clock reading taken just before a generation is
 * stored to one taken just after the value that replaces it (the next generation, or the negative
 * "read the clock" value) is stored, so it bounds how long any generation was visible. A generation
 * can also end earlier, when the last holder releases the ticker. {@link #maxGapNs()} is the largest
 * gap since the process started. Thread-safe.
 */
final class Ticker {
    /** Nominal nanoseconds between generations while stamps flow. */
    static final long PERIOD_NS = EventClock.TICK_PERIOD_NS;
    /** Periods in a row without a stamper reading the clock after which the ticker goes idle (10 ms). */
    static final int IDLE_AFTER_PERIODS = 40;

    private static final VarHandle MAX_GAP;

    static {
        try {
            MAX_GAP = MethodHandles.lookup().findStaticVarHandle(Ticker.class, "maxGap", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static volatile long generation = -1;
    @SuppressWarnings("unused") // through MAX_GAP
    private static volatile long maxGap;
    private static volatile boolean demand;
    private static volatile boolean idle;
    private static final Object LOCK = new Object();
    private static int users;
    private static long lastGeneration;
    private static volatile Thread thread;

    private Ticker() {}

    /** The current generation, or a negative number while the ticker is stopped or idle. One volatile read. */
    static long generation() {
        return generation;
    }

    /**
     * A stamper read the clock: keep ticking, or start again when idle. Cheap: one volatile read, and a
     * store only when the flag was clear (once per tick at most); an unpark only when the ticker is idle.
     */
    static void noteDemand() {
        if (!demand) {
            demand = true;
            if (idle) {
                LockSupport.unpark(thread);
            }
        }
    }

    /** Generations handed out so far: grows by one at every tick (tests see the ticker ran even when it went idle again at once). */
    static long generationsIssued() {
        synchronized (LOCK) {
            return lastGeneration;
        }
    }

    /** The largest measured gap between a generation's store and the store that replaced it (0 before any). */
    static long maxGapNs() {
        return (long) MAX_GAP.getVolatile();
    }

    /** Lets the ticker run; pair each call with one {@link #release()}. */
    static void acquire() {
        synchronized (LOCK) {
            if (users++ == 0) {
                if (thread == null) {
                    thread = Thread.ofPlatform().daemon().name("arenascope-ticker").start(Ticker::run);
                } else {
                    LOCK.notifyAll();
                }
            }
        }
    }

    /**
     * Undoes one {@link #acquire()}; the ticker stops (and stamps read the clock again) when none is left.
     *
     * @throws IllegalStateException when nothing holds the ticker
     */
    static void release() {
        synchronized (LOCK) {
            if (users <= 0) {
                throw new IllegalStateException("ticker released more often than acquired");
            }
            if (--users == 0) {
                generation = -1;
            }
        }
    }

    private static void run() {
        long before = 0; // reading just before the visible positive generation was stored; 0: none visible
        int quiet = 0; // periods in a row in which no stamper read the clock
        while (true) {
            boolean wanted = demand;
            if (wanted) {
                demand = false;
                quiet = 0;
            } else {
                quiet++;
            }
            long t0 = System.nanoTime();
            boolean ticking;
            synchronized (LOCK) {
                while (users == 0) {
                    generation = -1;
                    before = gapEnds(before);
                    try {
                        LOCK.wait();
                    } catch (InterruptedException e) {
                        // a daemon: keep serving
                    }
                    quiet = 0; // a new holder: tick at once
                    t0 = System.nanoTime();
                }
                ticking = quiet < IDLE_AFTER_PERIODS;
                generation = ticking ? ++lastGeneration : -1;
            }
            before = gapEnds(before);
            if (ticking) {
                before = t0;
                LockSupport.parkNanos(PERIOD_NS);
            } else {
                // idle until a stamper wants ticks again: it sets demand, then wakes this thread if it sees
                // idle; this thread sets idle, then looks at demand (both volatile, so one sees the other)
                idle = true;
                if (!demand) {
                    LockSupport.park();
                }
                idle = false;
                quiet = 0;
            }
        }
    }

    /** The value stored just now replaced the one stored after the reading {@code before} (0: none to account). */
    private static long gapEnds(long before) {
        if (before != 0) {
            long gap = System.nanoTime() - before;
            if (gap > (long) MAX_GAP.getVolatile()) {
                MAX_GAP.setVolatile(gap); // one writer: this thread
            }
        }
        return 0;
    }
}
