package dev.arenascope.core.analysis;

import java.util.Arrays;

/**
 * When each execution of one scope ran: start and end pairs in nanoseconds since the session start,
 * in the order the executions closed (for one scope path of one memory that is start order, and the
 * intervals do not overlap, since a memory's scopes nest). What the window's timeline draws as scope
 * bands and what its event filter asks "was this event inside the scope".
 *
 * <p>Immutable: a view of the first {@link #count()} pairs of an array that its {@link Builder} only
 * ever appends to (or replaces by a larger copy), so taking one costs no copy and a later append never
 * changes what an earlier view shows. Safe to hand to another thread through any hand-off that orders
 * memory (a property set on the FX thread, a queue).
 */
public final class ScopeExecutions {
    /** At most this many executions are kept per scope; later ones are counted in the figures only. */
    public static final int MAX = 4_000_000;
    /** No executions kept. */
    public static final ScopeExecutions NONE = new ScopeExecutions(new long[0], 0);

    private final long[] pairs;
    private final int count;

    private ScopeExecutions(long[] pairs, int count) {
        this.pairs = pairs;
        this.count = count;
    }

    /** Executions kept. */
    public int count() {
        return count;
    }

    /** When execution {@code i} opened (ns). */
    public long start(int i) {
        return pairs[2 * i];
    }

    /** When execution {@code i} closed (ns). */
    public long end(int i) {
        return pairs[2 * i + 1];
    }

    /** The index of the first execution ending after {@code ns}; {@link #count()} when none does. */
    public int firstEndingAfter(long ns) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (pairs[2 * mid + 1] <= ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Whether an execution was open at {@code ns} (start inclusive, end exclusive). */
    public boolean covers(long ns) {
        int i = firstEndingAfter(ns);
        return i < count && start(i) <= ns;
    }

    /** Appends executions; confined to the thread that feeds the accumulator. */
    static final class Builder {
        private long[] pairs = new long[16];
        private int count;

        void add(long startNs, long endNs) {
            if (count >= MAX) {
                return;
            }
            if (2 * count + 2 > pairs.length) {
                pairs = Arrays.copyOf(pairs, pairs.length * 2);
            }
            pairs[2 * count] = startNs;
            pairs[2 * count + 1] = endNs;
            count++;
        }

        ScopeExecutions build() {
            return count == 0 ? NONE : new ScopeExecutions(pairs, count);
        }
    }
}
