package dev.arenascope.core.format;

import java.util.Locale;
import java.util.Map;

/**
 * What a trace's time stands for, and how its instants and spans are written. A trace with
 * timestamps speaks in time ({@link Durations}); a PyTorch snapshot without {@code time_us} is placed
 * on its entries' order, one entry per {@value #NS_PER_ENTRY} ns, and speaks in entries
 * ({@code entry 3,697}, {@code 120 entries}) wherever it would have said a time: an axis, a caption, a
 * hover card, a table, a command's line. The importer says which in the attribute {@code time_axis}
 * ({@code time}, {@code entry_order}, or {@code mixed} for a session whose devices differ: a memory's
 * own attribute then says which it is). Static and thread-safe.
 */
public enum TimeAxis {
    /** Nanoseconds since the session's start. */
    TIME,
    /** Entry order: entry {@code n} sits at {@code n * NS_PER_ENTRY} ns. */
    ENTRIES;

    /** Nanoseconds the importer gives one entry of an untimed trace. */
    public static final long NS_PER_ENTRY = 1_000;

    /** The axis the attributes {@code time_axis} names: entries for {@code entry_order}, else time. */
    public static TimeAxis of(Map<String, String> attributes) {
        return attributes != null && "entry_order".equals(attributes.get("time_axis")) ? ENTRIES : TIME;
    }

    /** The entry at {@code ns} on an entry-order axis. */
    public static long entry(long ns) {
        return Math.floorDiv(ns, NS_PER_ENTRY);
    }

    /** An instant since the session's start: {@code 3.27 ms}, or {@code entry 3,697}. */
    public String at(long ns) {
        return this == TIME ? Durations.format(ns) : String.format(Locale.ROOT, "entry %,d", entry(ns));
    }

    /** A span: {@code 1.18 ms}, or {@code 1,180 entries} ({@code 1 entry}). */
    public String span(long ns) {
        if (this == TIME) {
            return Durations.format(ns);
        }
        long n = Math.floorDiv(ns, NS_PER_ENTRY);
        return Counts.of(n, "entry", "entries");
    }

    /** An instant as a machine-readable line's word: {@code 0.003697 s}, or {@code entry 3697}. */
    public String plain(long ns) {
        return this == TIME ? String.format(Locale.ROOT, "%.6f s", ns / 1e9) : "entry " + entry(ns);
    }

    private static final long MINUTE_NS = 60_000_000_000L;
    private static final long HOUR_NS = 3_600_000_000_000L;

    /**
     * The steps a time axis's ticks may take, each a round value of one unit: 1, 2 and 5 times a power of ten from
     * 1 ns to 500 ms, then 1, 2, 5, 10, 15 and 30 s, 1, 2, 5, 10, 15 and 30 min, 1, 2, 3, 6, 12 and 24 h; whole days
     * of 1, 2 and 5 times a power of ten beyond.
     */
    private static final long[] TIME_STEPS;

    static {
        long[] clock = {1_000_000_000L, 2_000_000_000L, 5_000_000_000L, 10_000_000_000L, 15_000_000_000L, 30_000_000_000L,
                MINUTE_NS, 2 * MINUTE_NS, 5 * MINUTE_NS, 10 * MINUTE_NS, 15 * MINUTE_NS, 30 * MINUTE_NS,
                HOUR_NS, 2 * HOUR_NS, 3 * HOUR_NS, 6 * HOUR_NS, 12 * HOUR_NS, 24 * HOUR_NS};
        long[] steps = new long[27 + clock.length];
        int i = 0;
        for (long p = 1; p < 1_000_000_000L; p *= 10) {
            steps[i++] = p;
            steps[i++] = 2 * p;
            steps[i++] = 5 * p;
        }
        System.arraycopy(clock, 0, steps, i, clock.length);
        TIME_STEPS = steps;
    }

    /**
     * The step between this axis's ticks over a span of {@code spanNs} with room for at most {@code maxTicks} of
     * them: the least round step ({@link #TIME_STEPS}; on an entry axis 1, 2 or 5 times a power of ten entries) that
     * keeps the ticks to {@code maxTicks}. At least 1 ns, or one entry.
     *
     * @throws IllegalArgumentException when {@code spanNs} is negative or {@code maxTicks} not above 0
     */
    public long tickStep(long spanNs, double maxTicks) {
        if (spanNs < 0 || !(maxTicks > 0)) {
            throw new IllegalArgumentException("a tick step needs a span of 0 ns or more and room for a tick: " + spanNs + " ns, " + maxTicks);
        }
        double least = spanNs / maxTicks;
        if (this == ENTRIES) {
            return NS_PER_ENTRY * decadeStep(least / NS_PER_ENTRY);
        }
        for (long s : TIME_STEPS) {
            if (s >= least) {
                return s;
            }
        }
        return 24 * HOUR_NS * decadeStep(least / (24.0 * HOUR_NS));
    }

    /** The least of 1, 2 and 5 times a power of ten at or above {@code least} (at least 1). */
    private static long decadeStep(double least) {
        for (long p = 1; p < Long.MAX_VALUE / 10; p *= 10) {
            for (long m : new long[] {1, 2, 5}) {
                if (m * p >= least) {
                    return m * p;
                }
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * The ticks of an axis from {@code fromNs} to {@code toNs} with room for at most {@code maxTicks}: every
     * multiple of {@link #tickStep} in the range, labelled in one unit ({@code 0 ms, 200 ms, 400 ms}, {@code 1.2 s,
     * 1.4 s}, {@code 30 s, 60 s, 90 s}, {@code 5 min, 10 min}), or in entries ({@code 3,000}) on an entry axis.
     *
     * @throws IllegalArgumentException when {@code toNs < fromNs} or {@code maxTicks} is not above 0
     */
    public Ticks ticks(long fromNs, long toNs, double maxTicks) {
        if (toNs < fromNs) {
            throw new IllegalArgumentException("an axis ends at or after its start: " + fromNs + " to " + toNs + " ns");
        }
        long step = tickStep(toNs - fromNs, maxTicks);
        long first = Math.floorDiv(fromNs, step) * step;
        if (first < fromNs) {
            first += step;
        }
        if (this == ENTRIES) {
            return new Ticks(first, step, toNs, NS_PER_ENTRY, "", 0);
        }
        if (step % HOUR_NS == 0) {
            return new Ticks(first, step, toNs, HOUR_NS, "h", 0);
        }
        if (step % MINUTE_NS == 0) {
            return new Ticks(first, step, toNs, MINUTE_NS, "min", 0);
        }
        // the largest unit the axis's values reach, unless its step then needs more than three decimals
        long largest = Math.max(Math.abs(first), Math.abs(toNs));
        long unit = 1_000_000_000L;
        while (unit > 1 && (unit > largest && unit > step || decimals(step, unit) > 3)) {
            unit /= 1000;
        }
        return new Ticks(first, step, toNs, unit, unitName(unit), decimals(step, unit));
    }

    /** Decimals a value of {@code unit} needs to write every multiple of {@code step} exactly. */
    private static int decimals(long step, long unit) {
        int d = 0;
        for (long u = unit; step % u != 0; u /= 10) {
            d++;
        }
        return d;
    }

    private static String unitName(long unitNs) {
        return unitNs == 1_000_000_000L ? "s" : unitNs == 1_000_000L ? "ms" : unitNs == 1_000L ? "µs" : "ns";
    }

    /**
     * The ticks of one axis: every multiple of {@code stepNs} from {@code firstNs} up to {@code toNs}, each labelled
     * in the one unit of {@code unitNs} nanoseconds named {@code unit} with {@code decimals} decimals (an entry axis:
     * bare entry numbers, {@code unit} empty).
     */
    public record Ticks(long firstNs, long stepNs, long toNs, long unitNs, String unit, int decimals) {
        /** How many ticks the axis has. */
        public int count() {
            return firstNs > toNs ? 0 : (int) Math.min(Integer.MAX_VALUE, (toNs - firstNs) / stepNs + 1);
        }

        /** The instant of tick {@code i}, from 0. */
        public long at(int i) {
            return firstNs + i * stepNs;
        }

        /** The label of the tick at {@code ns}: {@code 1.2 s}, {@code 400 ms}, {@code 90 s}, or {@code 3,000} on an entry axis. */
        public String label(long ns) {
            if (unit.isEmpty()) {
                return String.format(Locale.ROOT, "%,d", Math.floorDiv(ns, unitNs));
            }
            if (decimals == 0) {
                return String.format(Locale.ROOT, "%,d %s", ns / unitNs, unit);
            }
            return String.format(Locale.ROOT, "%,." + decimals + "f %s", ns / (double) unitNs, unit);
        }
    }

    /** What the axis counts, for its title: {@code time}, or {@code entry (no timestamps)}. */
    public String title() {
        return this == TIME ? "time" : "entry (no timestamps)";
    }
}
