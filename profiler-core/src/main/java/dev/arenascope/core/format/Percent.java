package dev.arenascope.core.format;

import java.util.Locale;

/**
 * Shares as people read them, the one rule reports and the window use so the same figure prints the
 * same everywhere: one decimal from 10% up (and for 0), two below ({@code 17.3%}, {@code 4.56%},
 * {@code 0.0%}). Static and thread-safe.
 */
public final class Percent {
    /** What a share of nothing prints as. */
    public static final String NONE = "—";

    private Percent() {}

    /** {@code 0.1234 -> "12.3%"}; NaN prints {@link #NONE}. */
    public static String format(double ratio) {
        if (Double.isNaN(ratio)) {
            return NONE;
        }
        double p = ratio * 100;
        return String.format(Locale.ROOT, Math.abs(p) >= 10 || p == 0 ? "%.1f%%" : "%.2f%%", p);
    }

    /** {@code part} as a share of {@code whole}: {@link #NONE} when {@code whole} is not positive. */
    public static String of(long part, long whole) {
        return whole <= 0 ? NONE : format((double) part / whole);
    }
}
