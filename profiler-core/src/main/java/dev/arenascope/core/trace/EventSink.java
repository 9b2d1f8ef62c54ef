package dev.arenascope.core.trace;

/**
 * Where a session's events go: a trace file writer, a live socket, the in-memory store, a test.
 *
 * <p>Calls come from one thread at a time (the session's drain thread, or a reader), in this order:
 * {@link #onSession} once; then, interleaved, metadata and batches, where every memory, string and
 * thread is announced before the first event that refers to it (and every stack frame before the
 * first stack node naming it, every stack node after its parent and before the first event carrying
 * it as a site); then {@link #onClose} once. {@link #onAttach} comes first when the sink is attached
 * to a session.
 *
 * <p><b>Ownership.</b> Whoever created a sink closes it. A session's {@code removeSink} or
 * {@code close} delivers what is buffered and calls {@link #onClose}; a closable sink closed by its user
 * while still attached detaches itself through its {@link SinkOwner} first, so either order delivers
 * every event. Events handed to a sink after it closed are counted as lost by that sink, never dropped
 * unseen.
 */
public interface EventSink {

    /**
     * The sink was attached to {@code owner}, before {@link #onSession}. A sink that its user may close
     * directly keeps the owner and, in its own {@code close()}, calls {@link SinkOwner#detach()} first, so
     * events still buffered in the session are delivered before the sink ends. The default ignores it.
     */
    default void onAttach(SinkOwner owner) {}

    /** The session this stream belongs to. */
    default void onSession(SessionInfo info) {}

    /** A memory was registered. */
    default void onMemory(MemoryInfo memory) {}

    /** An entry of the session's string table. */
    default void onString(int id, String value) {}

    /** A recording thread's id and name. */
    default void onThread(int id, String name) {}

    /**
     * An interned frame of the session's allocation-site table (see {@link SiteTable}). Ids arrive in
     * order from 0.
     */
    default void onFrame(StackFrame frame) {}

    /** A node of the session's stack tree (see {@link SiteTable}). Ids arrive in order from 0. */
    default void onStack(StackNode node) {}

    /**
     * The site table this sink builds from the frames and nodes announced to it, offered to a producer
     * that may intern into it directly instead of announcing them (they are then the sink's without a
     * copy), or null (the default: announce them). Offered only while the table is empty; a producer
     * that takes it must be the stream's only source of frames and nodes, intern every site before
     * the events that name it are handed over, and then announces none (the sink has them). An
     * importer of millions of distinct stacks so keeps one site trie instead of two.
     */
    default SiteTable sharedSites() {
        return null;
    }

    /** A batch of events in time order per thread. The batch is only valid during the call. */
    void onEvents(EventBatch batch);

    /** {@code count} events were lost before reaching this sink (counted, never silent). */
    default void onLoss(long count) {}

    /** The stream ended; flush and release resources. */
    default void onClose() {}
}
