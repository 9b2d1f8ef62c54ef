package dev.arenascope.core.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One process-wide daemon thread that advances a generation counter every {@link #PERIOD_NS}
 * nanoseconds while someone needs it (a session with sinks, an active arena recording). It is what lets
 * an {@link EventClock.Stamper} skip the clock: a stamper that sees the generation it saw at its last
 * real clock read knows that less than one tick gap has passed since that read.
 *
 * <p>The generation is negative while nobody uses the ticker; then every stamp reads the clock. A
 * generation value is never reused, not even across a stop and a restart.
 *
 * <p>The tick gap is measured rigorously: from a clock reading taken just before one generation is
 * stored to one taken just after the next is stored, so it bounds how long any generation was visible.
 * {@link #maxGapNs()} is the largest gap since the process started; on an idle machine it is the period
 * plus the kernel's timer slack (about 0.15 ms), on a loaded one it is whatever the scheduler allowed.
 * Thread-safe.
 */
final class Ticker {
    /** Nominal nanoseconds between generations. */
    static final long PERIOD_NS = 100_000;

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
    private static final Object LOCK = new Object();
    private static int users;
    private static long lastGeneration;
    private static Thread thread;

    private Ticker() {}

    /** The current generation, or a negative number while the ticker is stopped. One volatile read. */
    static long generation() {
        return generation;
    }

    /** The largest measured gap between two generations since the process started (0 before any). */
    static long maxGapNs() {
        return (long) MAX_GAP.getVolatile();
    }

    /** Starts the ticker if it is stopped; pair each call with one {@link #release()}. */
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

    /** Undoes one {@link #acquire()}; the ticker stops (and stamps read the clock again) when none is left. */
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

    /** Whether someone holds the ticker now (for tests). */
    static boolean running() {
        synchronized (LOCK) {
            return users > 0;
        }
    }

    private static void run() {
        long before = 0; // reading just before the current generation was stored; 0: none stored yet
        while (true) {
            synchronized (LOCK) {
                while (users == 0) {
                    generation = -1;
                    before = 0;
                    try {
                        LOCK.wait();
                    } catch (InterruptedException e) {
                        // a daemon: keep serving
                    }
                }
            }
            long t0 = System.nanoTime();
            long next;
            synchronized (LOCK) {
                if (users == 0) {
                    continue;
                }
                next = ++lastGeneration;
                generation = next;
            }
            long t1 = System.nanoTime();
            if (before != 0) {
                long gap = t1 - before;
                if (gap > (long) MAX_GAP.getVolatile()) {
                    MAX_GAP.setVolatile(gap); // one writer: this thread
                }
            }
            before = t0;
            LockSupport.parkNanos(PERIOD_NS);
        }
    }
}
