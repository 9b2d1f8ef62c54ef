package dev.arenascope.app.ui.events;

import java.util.AbstractList;
import java.util.Arrays;

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

    private EventIndexList(TraceView trace, long from, int size, long[] indexes) {
        this.trace = trace;
        this.from = from;
        this.size = size;
        this.indexes = indexes;
    }

    /** Rows {@code from .. to-1} of {@code trace} (capped at {@link Integer#MAX_VALUE} - 8 rows). */
    public static EventIndexList range(TraceView trace, long from, long to) {
        return new EventIndexList(trace, from, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(0, to - from)), null);
    }

    /** The rows at these ascending indexes. */
    public static EventIndexList of(TraceView trace, long[] indexes, int count) {
        return new EventIndexList(trace, 0, count, indexes);
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

    /** The row holding the first event at or after trace index {@code traceIndex} (may be {@link #size()}). */
    public int rowOf(long traceIndex) {
        if (indexes == null) {
            return (int) Math.max(0, Math.min(size, traceIndex - from));
        }
        int r = Arrays.binarySearch(indexes, 0, size, traceIndex);
        return r >= 0 ? r : -r - 1;
    }

    @Override
    public int size() {
        return size;
    }
}
