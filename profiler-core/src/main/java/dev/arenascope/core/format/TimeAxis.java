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

    /** An axis tick's label, bare: {@code 4.00 ms}, or {@code 3,000} (the axis names the entries). */
    public String tick(long ns) {
        return this == TIME ? Durations.format(ns) : String.format(Locale.ROOT, "%,d", entry(ns));
    }

    /** The least step between an axis's ticks: 1 ns, or one entry. */
    public long minStepNs() {
        return this == TIME ? 1 : NS_PER_ENTRY;
    }

    /** What the axis counts, for its title: {@code time}, or {@code entry (no timestamps)}. */
    public String title() {
        return this == TIME ? "time" : "entry (no timestamps)";
    }
}
