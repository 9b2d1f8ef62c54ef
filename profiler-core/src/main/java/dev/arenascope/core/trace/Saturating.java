package dev.arenascope.core.trace;

/**
 * Counts that must not wrap: event and loss totals added from untrusted files (two loss records of
 * 2^63-1 are a total of 2^63-1, not -2). Stateless.
 */
public final class Saturating {
    private Saturating() {}

    /** {@code a + b} for counts of zero or more, held at {@link Long#MAX_VALUE} instead of wrapping. */
    public static long add(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (r < 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : r;
    }
}
