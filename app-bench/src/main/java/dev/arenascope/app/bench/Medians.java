package dev.arenascope.app.bench;

import java.util.Arrays;
import java.util.function.LongSupplier;

/** Timing helpers for bench suites: warm up, run rounds, take the median. */
public final class Medians {
    private Medians() {}

    /** The median of {@code values}. */
    public static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /**
     * Runs {@code round} {@code warmups} times, then {@code rounds} times, and returns the median of
     * what it returned. A round returns its own measure (e.g. nanoseconds per operation).
     */
    public static double medianOf(int warmups, int rounds, RoundFunction round) throws Exception {
        for (int i = 0; i < warmups; i++) {
            round.run();
        }
        double[] r = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            r[i] = round.run();
        }
        return median(r);
    }

    /** Nanoseconds per operation of {@code ops} operations done by {@code body}. */
    public static double nsPerOp(long ops, LongSupplier body) {
        long t0 = System.nanoTime();
        long sink = body.getAsLong();
        long t1 = System.nanoTime();
        if (sink == 42_4242_4242L) {
            System.out.print("");
        }
        return (t1 - t0) / (double) ops;
    }

    /** One timed round. */
    @FunctionalInterface
    public interface RoundFunction {
        double run() throws Exception;
    }
}
