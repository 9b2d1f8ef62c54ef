package dev.arenascope.app.ui.events;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.function.ToLongFunction;

import dev.arenascope.core.trace.TraceView;

/**
 * The events table's rows without holding them: either a contiguous run of trace indexes or an array
 * of matching indexes. Rows are made on demand as the table's virtual flow asks for them, so a
 * ten-million-event range costs nothing until scrolled. Immutable.
 */
public final class EventIndexList extends AbstractList<EventRow> {
    private final TraceView trace;
    private final long from;
    private final int size;
    private final long[] indexes;
    private final boolean sorted;

    private EventIndexList(TraceView trace, long from, int size, long[] indexes, boolean sorted) {
        this.trace = trace;
        this.from = from;
        this.size = size;
        this.indexes = indexes;
        this.sorted = sorted;
    }

    /** Whether the rows were reordered by a column ({@link #sortedBy}) rather than in trace order. */
    public boolean sorted() {
        return sorted;
    }

    /**
     * These rows ordered by {@code key} (ties in trace order), descending when asked.
     *
     * @param checkCancelled called every few thousand rows; may throw to stop
     */
    public EventIndexList sortedBy(ToLongFunction<EventRow> key, boolean descending, Runnable checkCancelled) {
        Long[] keyed = new Long[size];
        long[] keys = new long[size];
        for (int i = 0; i < size; i++) {
            if ((i & 0x3fff) == 0) {
                checkCancelled.run();
            }
            keys[i] = key.applyAsLong(get(i));
            keyed[i] = (long) i;
        }
        Comparator<Long> byKey = Comparator.comparingLong(i -> keys[(int) (long) i]);
        Arrays.sort(keyed, descending ? byKey.reversed().thenComparingLong(i -> i) : byKey.thenComparingLong(i -> i));
        long[] out = new long[size];
        for (int i = 0; i < size; i++) {
            out[i] = indexOf((int) (long) keyed[i]);
        }
        return new EventIndexList(trace, 0, size, out, true);
    }

    /** Rows {@code from .. to-1} of {@code trace} (capped at {@link Integer#MAX_VALUE} - 8 rows). */
    public static EventIndexList range(TraceView trace, long from, long to) {
        return new EventIndexList(trace, from, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(0, to - from)), null, false);
    }

    /** The rows at these ascending indexes. */
    public static EventIndexList of(TraceView trace, long[] indexes, int count) {
        return new EventIndexList(trace, 0, count, indexes, false);
    }

    @Override
    public EventRow get(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        long idx = indexOf(i);
        return new EventRow(idx, trace.event(idx));
    }

    /** Trace index of row {@code i}. */
    public long indexOf(int i) {
        return indexes == null ? from + i : indexes[i];
    }

    /**
     * The row holding the first event at or after trace index {@code traceIndex} (may be {@link #size()});
     * for column-sorted rows the row of exactly that event, or -1.
     */
    public int rowOf(long traceIndex) {
        if (indexes == null) {
            return (int) Math.max(0, Math.min(size, traceIndex - from));
        }
        if (sorted) {
            for (int i = 0; i < size; i++) {
                if (indexes[i] == traceIndex) {
                    return i;
                }
            }
            return -1;
        }
        int r = Arrays.binarySearch(indexes, 0, size, traceIndex);
        return r >= 0 ? r : -r - 1;
    }

    @Override
    public int size() {
        return size;
    }
}
