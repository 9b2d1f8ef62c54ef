package dev.arenascope.core.report;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import dev.arenascope.core.analysis.Figure;
import dev.arenascope.core.analysis.SessionSummary;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.format.Percent;

/** How reports print figures: bytes in binary units, times, percentages, changes. Stateless. */
final class Units {
    static final String NONE = "—";

    private Units() {}

    /** A figure's value as people read it; {@link #NONE} when undefined. */
    static String format(Figure f) {
        return format(f.unit(), f.value());
    }

    static String format(Figure.Unit unit, double v) {
        if (Double.isNaN(v)) {
            return NONE;
        }
        return switch (unit) {
            case BYTES -> Bytes.format((long) v);
            case COUNT -> String.format(Locale.ROOT, "%,d", (long) v);
            case NANOS -> duration((long) v);
            case TIME -> v < 0 ? NONE : duration((long) v);
            case RATIO -> percent(v);
            case FACTOR -> String.format(Locale.ROOT, v >= 100 ? "%.0f×" : "%.2f×", v);
        };
    }

    /** {@code 0.1234 -> "12.3%"} ({@link dev.arenascope.core.format.Percent}, the window's rule too). */
    static String percent(double ratio) {
        return Percent.format(ratio);
    }

    /** A duration in ns as {@code 850 ns}, {@code 12.3 µs}, {@code 4.56 ms}, {@code 1.234 s}, {@code 2 min 3 s} ({@link Durations}). */
    static String duration(long ns) {
        return Durations.format(ns);
    }

    /**
     * An instant of the session as the window and {@code sites} give it too: since the session's start
     * (the trace's own clock, not since its first event), in entries where the trace has no timestamps.
     */
    static String instant(SessionSummary s, long ns) {
        return ns < 0 ? NONE : s.timeAxis().at(ns);
    }

    /** Exact bytes with thousands separators: {@code 13,927,831,556 B}. */
    static String exactBytes(long bytes) {
        return String.format(Locale.ROOT, "%,d B", bytes);
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** Wall-clock time from epoch ns, UTC, to the second. */
    static String instant(long epochNs) {
        if (epochNs <= 0) {
            return NONE;
        }
        Instant t = Instant.ofEpochSecond(epochNs / 1_000_000_000L, epochNs % 1_000_000_000L);
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC).format(t);
    }

    /**
     * A change in percent: {@code +5.0%}, {@code -0.25%}, {@code new}, {@code ±0%}; for a share
     * (fragmentation, hit rate) in percentage points: {@code +0.48 pt}.
     */
    static String changePct(TraceDiff.Change c) {
        if (c.presence() != TraceDiff.Presence.BOTH) {
            return c.presence() == TraceDiff.Presence.ADDED ? "added" : "removed";
        }
        if (c.figure().unit() == Figure.Unit.RATIO) {
            double pt = c.change();
            if (Double.isNaN(pt)) {
                return NONE;
            }
            return pt == 0 ? "±0 pt" : String.format(Locale.ROOT, "%+.2f pt", pt);
        }
        double pct = c.deltaPct();
        if (Double.isNaN(pct)) {
            return NONE;
        }
        if (Double.isInfinite(pct)) {
            return pct > 0 ? "new" : "gone";
        }
        if (pct == 0) {
            return "±0%";
        }
        return String.format(Locale.ROOT, Math.abs(pct) >= 10 ? "%+.1f%%" : "%+.2f%%", pct);
    }

    /** The change as an absolute delta in the figure's unit: {@code +1.50 MiB}. */
    static String delta(TraceDiff.Change c) {
        double d = c.delta();
        if (Double.isNaN(d)) {
            return NONE;
        }
        Figure.Unit u = c.figure().unit();
        if (u == Figure.Unit.RATIO) {
            return String.format(Locale.ROOT, "%+.2f pp", d * 100);
        }
        String s = format(u == Figure.Unit.TIME ? Figure.Unit.NANOS : u, Math.abs(d));
        return (d < 0 ? "-" : "+") + s;
    }
}
