package dev.arenascope.core.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A session's time: nanoseconds since the session started, from {@link System#nanoTime()}, folded so
 * that no caller ever sees time go back, plus a cheap way to stamp hot-path events ({@link Stamper}).
 *
 * <p><b>Why stamps.</b> One {@code System.nanoTime()} costs 20–40 ns on the project's virtual machines
 * (the guest's {@code rdtsc} alone is about 14 ns; {@code CLOCK_MONOTONIC_COARSE} is cheap but ticks
 * every 4 ms), more than the rest of a recorded arena allocation. A stamper reads the clock only for
 * the first event after the process-wide {@link Ticker} advanced (every {@value #TICK_PERIOD_NS} ns
 * nominally) and at least every {@value #STAMP_BUDGET}th event of its producer; other events get the
 * latest reading any producer of this session took ({@link #latest()}), one volatile load.
 *
 * <p><b>What a stamp promises.</b> For an event stamped {@code s} whose true time (this clock, read at
 * the event) is {@code t}:
 * <ul>
 *   <li>{@code s <= t}: a stamp is a clock reading taken no later than the event;</li>
 *   <li>{@code t - s} is less than the smaller of (a) the ticker's gap at that moment: nominally
 *       {@value #TICK_PERIOD_NS} ns plus the kernel's timer slack, longer when the scheduler delays
 *       the ticker ({@link #maxTickGapNs()} reports the largest gap measured), and (b) the time the same
 *       producer took for its previous {@value #STAMP_BUDGET} events;</li>
 *   <li>stamps and {@link #now()} never decrease along any thread, across all producers of the session;</li>
 *   <li>consecutive events may carry the same stamp; their order is the order of the event stream.</li>
 * </ul>
 * So a burst of allocations is placed to within the time the burst itself took for every
 * {@value #STAMP_BUDGET} events, and a lone event after a pause to within one tick gap. The ticker only
 * ticks while stamps flow: after 10 ms in which no stamper read the clock it goes idle, every stamp is
 * an exact clock read, and the first such read wakes it again. Measured on the project's 2-core virtual
 * machines: a mean tick gap of about 0.35 ms, gaps of several milliseconds under heavy load, and the
 * ticker's wake-ups cost about 4% of one core while ticking, nothing while idle.
 *
 * <p>Thread-safe; a {@link Stamper} is not (one producer, one thread at a time, like an arena).
 */
public final class EventClock {
    /** A stamper reads the clock at least once per this many stamps. */
    public static final int STAMP_BUDGET = 16;
    /** Nominal nanoseconds between two ticks of the process-wide ticker while stamps flow. */
    public static final long TICK_PERIOD_NS = 250_000;

    private static final VarHandle LATEST;

    static {
        try {
            LATEST = MethodHandles.lookup().findVarHandle(EventClock.class, "latest", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long origin;
    private final boolean exact;
    private volatile long latest;

    /** A clock whose zero is now, whose stampers skip the clock as described above. */
    public EventClock() {
        this(false);
    }

    /**
     * A clock whose zero is now.
     *
     * @param exact when true every stamp reads the clock (exact times, one {@code System.nanoTime()} per
     *              event); when false stamps skip the clock as described above
     */
    public EventClock(boolean exact) {
        this.origin = System.nanoTime();
        this.exact = exact;
    }

    /** The {@code System.nanoTime()} value this clock calls zero (for tests that need the clock's true time). */
    long origin() {
        return origin;
    }

    /** Whether every stamp reads the clock. */
    public boolean isExact() {
        return exact;
    }

    /**
     * Reads the clock: nanoseconds since the session started, never less than any earlier {@link #now()}
     * or stamp of this clock on any thread. Costs one {@code System.nanoTime()} and, when it moves the
     * clock's latest reading forward, one compare-and-set.
     */
    public long now() {
        return advance(System.nanoTime() - origin);
    }

    /** The latest reading any thread took through this clock (ns since the start; 0 before any). */
    public long latest() {
        return latest;
    }

    /** The largest gap measured between two ticks of the process-wide ticker so far (ns; 0 before any). */
    public static long maxTickGapNs() {
        return Ticker.maxGapNs();
    }

    /** A new stamper for one producer of events on this clock. */
    public Stamper stamper() {
        return new Stamper(this);
    }

    /**
     * Keeps the ticker running until {@link #releaseTicker()}: while nobody holds it, every stamp reads
     * the clock (correct, only slower). Sessions hold it while they have sinks, arenas while a recording
     * is active. Each call must be paired with one {@link #releaseTicker()}.
     */
    public static void holdTicker() {
        Ticker.acquire();
    }

    /**
     * Undoes one {@link #holdTicker()}.
     *
     * @throws IllegalStateException when nothing holds the ticker
     */
    public static void releaseTicker() {
        Ticker.release();
    }

    private long advance(long t) {
        long l = latest;
        while (t > l) {
            if (LATEST.weakCompareAndSet(this, l, t)) {
                return t;
            }
            l = latest;
        }
        return l;
    }

    /**
     * Stamps one producer's events (an arena's, say) with at most one clock read per tick of the
     * ticker and per {@value #STAMP_BUDGET} events; see {@link EventClock} for what a stamp promises.
     * Not thread-safe: one thread at a time, handed over with a happens-before edge (as an arena is).
     */
    public static final class Stamper {
        private final EventClock clock;
        private long generation = -1;
        private int budget;

        private Stamper(EventClock clock) {
            this.clock = clock;
        }

        /** The time of an event happening now, ns since the session started. */
        public long stamp() {
            long g = Ticker.generation();
            if (g == generation && --budget > 0) {
                return clock.latest;
            }
            generation = g;
            if (clock.exact) {
                budget = 0;
            } else {
                // an idle or stopped ticker (negative generation) proves nothing: read the clock every time
                budget = g < 0 ? 0 : STAMP_BUDGET;
                Ticker.noteDemand();
            }
            return clock.now();
        }

        /** The clock this stamper stamps from. */
        public EventClock clock() {
            return clock;
        }
    }
}
