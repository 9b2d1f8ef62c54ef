package dev.arenascope.core.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * Read access to one session's events for views and reports: metadata, indexed events, and the
 * level-of-detail queries the timeline draws from without scanning raw events.
 *
 * <p>Events are indexed {@code 0 .. eventCount()-1} in time order, which is arrival order: an event
 * stamped a few nanoseconds before the one that arrived ahead of it keeps its time and its place, and
 * time-based queries treat it as happening at the latest time seen before it. A live store grows while it is
 * read: every method answers for the events present when it was called. Implementations are
 * thread-safe for one writer and any number of readers.
 */
public interface TraceView {

    SessionInfo session();

    /** Memories in id order. */
    List<MemoryInfo> memories();

    /** The string with this id, or null. */
    String string(int id);

    /** The name of a recording thread, or null. */
    String threadName(int id);

    /** The frame of the allocation-site table with this id, or null (also when the trace has no sites). */
    default StackFrame frame(int id) {
        return null;
    }

    /** The stack node with this id, or null. */
    default StackNode stackNode(int id) {
        return null;
    }

    /** Stack nodes in the allocation-site table (0 when the trace has no sites). */
    default int stackNodeCount() {
        return 0;
    }

    /** Frames in the allocation-site table. */
    default int frameCount() {
        return 0;
    }

    /** The frames of {@code site} (a stack node id), innermost first; empty for -1 or an unknown site. */
    default List<StackFrame> stack(int site) {
        List<StackFrame> out = new ArrayList<>();
        for (StackNode n = stackNode(site); n != null; n = stackNode(n.parent())) {
            StackFrame f = frame(n.frame());
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    /**
     * A site in one line: its innermost frame of the program's own code ({@link StackFrame#label()}),
     * else its innermost frame; empty for -1 or an unknown site. What lists show for an allocation whose
     * stack is a site only (a PyTorch snapshot's).
     */
    default String siteLabel(int site) {
        StackFrame first = null;
        for (StackNode n = stackNode(site); n != null; n = stackNode(n.parent())) {
            StackFrame f = frame(n.frame());
            if (f != null) {
                if (!f.internal()) {
                    return f.label();
                }
                if (first == null) {
                    first = f;
                }
            }
        }
        return first == null ? "" : first.label();
    }

    long eventCount();

    /** Time of the first event (ns since the session start), 0 when empty. */
    long startNs();

    /** Time of the last event, 0 when empty. */
    long endNs();

    /** Events lost before reaching this store (buffer overflow, a link that fell behind). */
    long lostEvents();

    /** Event {@code index} (0-based, time order). */
    Event event(long index);

    /** Index of the first event at or after {@code timeNs}; {@link #eventCount()} if none. */
    long firstIndexAtOrAfter(long timeNs);

    /**
     * The gauges of {@code memory} over {@code [fromNs, toNs)} in {@code buckets} equal buckets,
     * answered from the level-of-detail index in time independent of the number of events.
     */
    GaugeSeries gauges(int memory, long fromNs, long toNs, int buckets);

    /** Scope executions of {@code memory} that overlap {@code [fromNs, toNs)} and last at least {@code minDurationNs}. */
    List<ScopeInterval> scopes(int memory, long fromNs, long toNs, long minDurationNs);

    /** The most bytes in use at once in {@code memory} over the whole session. */
    long peakUsed(int memory);

    /** The most of the second gauge ({@code aux}) at once in {@code memory}. */
    long peakAux(int memory);
}
