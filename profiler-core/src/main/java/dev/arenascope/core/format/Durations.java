package dev.arenascope.core.format;

import java.util.Locale;

/**
 * Durations as people read them, the one formatter for nanoseconds that reports, pool statistics and
 * the window share (its sibling for byte counts is {@link Bytes}): {@code 850 ns}, {@code 12.3 µs},
 * {@code 4.56 ms}, {@code 1.234 s}, {@code 2 min 3 s}. Microseconds are written {@code µs}. Static and
 * thread-safe.
 */
public final class Durations {
    private Durations() {}

    /** Formats {@code ns} nanoseconds (negative with a leading minus). */
    public static String format(long ns) {
        if (ns < 0) {
            return "-" + format(ns == Long.MIN_VALUE ? Long.MAX_VALUE : -ns);
        }
        if (ns < 1_000) {
            return ns + " ns";
        }
        if (ns < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
        }
        if (ns < 1_000_000_000) {
            return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
        }
        if (ns < 120_000_000_000L) {
            return String.format(Locale.ROOT, "%.3f s", ns / 1e9);
        }
        long s = ns / 1_000_000_000L;
        return s / 60 + " min " + s % 60 + " s";
    }

    /**
     * Formats a mean or median of {@code ns} nanoseconds, which may have a fraction: below 1 µs to the
     * nanosecond ({@code 20 ns}), else as {@link #format(long)}.
     */
    public static String format(double ns) {
        if (Double.isNaN(ns)) {
            return "NaN ns";
        }
        return format(Math.round(ns));
    }

    /**
     * Reads a duration a person typed: a number with a unit ({@code ns}, {@code us} or {@code µs},
     * {@code ms}, {@code s}, {@code min}; case and spaces before the unit do not matter), or a bare number
     * in the unit the caller names. Checks no range: the caller says what it accepts.
     *
     * @param bareUnitNs nanoseconds in one unit of a bare number ({@code 1e9} for seconds, {@code 1e6} for milliseconds)
     * @return the duration in nanoseconds, unrounded
     * @throws NumberFormatException when what precedes the unit is not a number
     */
    public static double parse(String text, double bareUnitNs) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        double scale = bareUnitNs;
        for (String[] u : UNITS) {
            if (s.endsWith(u[0])) {
                scale = Double.parseDouble(u[1]);
                s = s.substring(0, s.length() - u[0].length()).strip();
                break;
            }
        }
        return Double.parseDouble(s) * scale;
    }

    /** Unit suffixes, longest match first where one ends another ({@code ms} and {@code min} before {@code s}). */
    private static final String[][] UNITS = {{"ns", "1"}, {"us", "1e3"}, {"µs", "1e3"}, {"ms", "1e6"}, {"min", "6e10"}, {"s", "1e9"}};
}
