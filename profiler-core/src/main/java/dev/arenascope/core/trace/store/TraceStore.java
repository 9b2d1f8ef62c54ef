package dev.arenascope.core.trace.store;

import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.TraceView;

/**
 * A session's events as reports, the window and the SQL tables read them, wherever the events live:
 * {@link EventStore} keeps them in memory (live sessions, and files below the out-of-core threshold),
 * {@link OutOfCoreStore} leaves them in the {@code .astrace} file's chunks and keeps in memory only the
 * indexes drawing and questions need. Both answer every {@link TraceView} query the same way; readers
 * that walk many events use {@link #copyEvents}, which decodes each block or chunk once.
 *
 * <p>Thread-safe for any number of readers (and, for {@link EventStore}, its one writer).
 */
public sealed interface TraceStore extends TraceView permits EventStore, OutOfCoreStore {

    /**
     * Copies events {@code [from, to)} into {@code out} as columns, sites included.
     *
     * @throws IndexOutOfBoundsException when the range is not within {@code [0, eventCount())}
     */
    void copyEvents(long from, long to, EventBatch out);

    /** Whether any event carries a site or a category. */
    boolean hasSites();

    /** The allocation-site table (read it, never add to it). */
    SiteTable sites();

    @Override
    default StackFrame frame(int id) {
        return sites().frame(id);
    }

    @Override
    default StackNode stackNode(int id) {
        return sites().node(id);
    }

    @Override
    default int stackNodeCount() {
        return sites().nodeCount();
    }

    @Override
    default int frameCount() {
        return sites().frameCount();
    }

    @Override
    default List<StackFrame> stack(int site) {
        return sites().frames(site);
    }

    /** The memory with this id, or null. */
    MemoryInfo memory(int id);

    /** Every string-table entry, by id. */
    Map<Integer, String> strings();

    /** Every recording thread, by id. */
    Map<Integer, String> threads();

    /** Events of {@code memory}. */
    long eventCount(int memory);

    /**
     * Bytes this store keeps in memory for its events and indexes (for an out-of-core store: the
     * indexes and the chunk cache's bound, not the file).
     */
    long memoryBytes();

    /** Replays everything held (session, metadata, events in order, losses) to {@code sink}, then closes it. */
    void replayTo(EventSink sink);

    /**
     * Copies events {@code [from, to)} of {@code view} into {@code out}: through {@link #copyEvents}
     * when it is a store, else one {@link TraceView#event} at a time.
     */
    static void copy(TraceView view, long from, long to, EventBatch out) {
        if (view instanceof TraceStore s) {
            s.copyEvents(from, to, out);
            return;
        }
        for (long i = from; i < to; i++) {
            out.add(view.event(i));
        }
    }
}
