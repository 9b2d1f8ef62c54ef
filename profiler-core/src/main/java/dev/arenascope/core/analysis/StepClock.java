package dev.arenascope.core.analysis;

import java.util.Arrays;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * When each training step began in one trace: the first {@code ProfilerStep#N} marker of each N (a PyTorch
 * profiler's annotation {@code ProfilerStep#N START}, or a marker {@code ProfilerStep#N} a sender writes), in
 * ns of that trace's clock. Two ranks' clocks differ: each trace counts from its own session's start, and
 * the same step takes a different time on each (a pipeline's stages wait differently). {@link #align} makes a
 * time of one trace the time of the other at the same point of the same step, so that the window can draw
 * two ranks' memory aligned by step.
 *
 * <p>Immutable; {@link #of} is one pass over the trace's events (markers only are kept), a {@link Scanner}
 * follows a growing one.
 */
public final class StepClock {
    private static final Pattern STEP = Pattern.compile("^ProfilerStep#(\\d{1,18})( START)?$");
    private static final int MARKER = EventKind.MARKER.code();

    /** Step numbers, ascending, and when each began. */
    private final long[] steps;
    private final long[] starts;

    private StepClock(long[] steps, long[] starts) {
        this.steps = steps;
        this.starts = starts;
    }

    /** The steps of {@code view}'s markers (none when it has no {@code ProfilerStep#N} marker). */
    public static StepClock of(TraceView view) {
        return new Scanner().advance(view);
    }

    /**
     * Reads a trace's step markers as it grows: each {@link #advance} reads only the events added since the
     * last, so a live trace's clock costs its new events, not a pass over all. One thread at a time.
     */
    public static final class Scanner {
        private final TreeMap<Long, Long> first = new TreeMap<>();
        private final EventBatch b = new EventBatch(8192);
        private long scanned;
        private StepClock clock = new StepClock(new long[0], new long[0]);

        /** The clock of {@code view} as it is now (the same view each call: its events only grow). */
        public StepClock advance(TraceView view) {
            long n = view.eventCount();
            if (n == scanned) {
                return clock;
            }
            for (long at = scanned; at < n; at += b.size()) {
                b.clear();
                TraceStore.copy(view, at, Math.min(n, at + 8192), b);
                if (b.size() == 0) {
                    break;
                }
                for (int k = 0; k < b.size(); k++) {
                    if (b.kindCode(k) != MARKER) {
                        continue;
                    }
                    String text = view.string(b.ref(k));
                    Matcher m = text == null ? null : STEP.matcher(text);
                    if (m != null && m.matches()) {
                        first.merge(Long.parseLong(m.group(1)), b.time(k), Math::min);
                    }
                }
            }
            scanned = n;
            long[] steps = new long[first.size()];
            long[] starts = new long[first.size()];
            int i = 0;
            for (var e : first.entrySet()) {
                steps[i] = e.getKey();
                starts[i++] = e.getValue();
            }
            clock = new StepClock(steps, starts);
            return clock;
        }
    }

    /** A clock of the given steps and their starts (ascending step numbers); for tests and importers. */
    public static StepClock of(long[] steps, long[] starts) {
        if (steps.length != starts.length) {
            throw new IllegalArgumentException("steps and starts differ in length: " + steps.length + " and " + starts.length);
        }
        for (int i = 1; i < steps.length; i++) {
            if (steps[i] <= steps[i - 1]) {
                throw new IllegalArgumentException("step numbers must ascend: " + steps[i - 1] + " then " + steps[i]);
            }
        }
        return new StepClock(steps.clone(), starts.clone());
    }

    /** How many steps are known. */
    public int size() {
        return steps.length;
    }

    /** When step {@code step} began, or -1 when it is not in the trace. */
    public long startOf(long step) {
        int i = Arrays.binarySearch(steps, step);
        return i < 0 ? -1 : starts[i];
    }

    /**
     * A time of this trace carried to {@code other}'s clock by the steps both have, or null when they share
     * fewer than one step. Steps whose starts do not ascend in both traces are left out (a marker out of order).
     */
    public Alignment align(StepClock other) {
        long[] a = new long[Math.min(size(), other.size())];
        long[] b = new long[a.length];
        long[] s = new long[a.length];
        int n = 0;
        for (int i = 0, j = 0; i < steps.length && j < other.steps.length; ) {
            if (steps[i] < other.steps[j]) {
                i++;
            } else if (steps[i] > other.steps[j]) {
                j++;
            } else {
                if (n == 0 || starts[i] > a[n - 1] && other.starts[j] > b[n - 1]) {
                    a[n] = starts[i];
                    b[n] = other.starts[j];
                    s[n++] = steps[i];
                }
                i++;
                j++;
            }
        }
        return n == 0 ? null : new Alignment(Arrays.copyOf(s, n), Arrays.copyOf(a, n), Arrays.copyOf(b, n));
    }

    /**
     * Times of one trace ({@code from}) carried to another's ({@code to}) by their common steps: within a step
     * linearly from its start to the next step's start on each side (so every common step begins at the same
     * place on both), before the first common step and after the last shifted by that step's offset.
     *
     * @param steps the common step numbers, ascending
     * @param from  when each began in the first trace, ascending
     * @param to    when each began in the other, ascending
     */
    public record Alignment(long[] steps, long[] from, long[] to) {
        /** The other trace's time at the point of the same step that {@code ns} is at in the first. */
        public long map(long ns) {
            int i = Arrays.binarySearch(from, ns);
            int k = i >= 0 ? i : -i - 2; // the last step begun at or before ns
            if (k < 0) {
                return ns - from[0] + to[0];
            }
            if (k >= from.length - 1) {
                return ns - from[from.length - 1] + to[to.length - 1];
            }
            double f = (ns - from[k]) / (double) (from[k + 1] - from[k]);
            return to[k] + Math.round(f * (to[k + 1] - to[k]));
        }

        /** The first step start of the first trace after {@code ns}, or {@link Long#MAX_VALUE}: where the mapping bends next. */
        public long nextBoundaryAfter(long ns) {
            int i = Arrays.binarySearch(from, ns);
            int k = i >= 0 ? i + 1 : -i - 1;
            return k < from.length ? from[k] : Long.MAX_VALUE;
        }
    }
}
