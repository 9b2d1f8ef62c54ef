package dev.arenascope.core.trace;

/**
 * Where a sink that closes itself keeps its {@link SinkOwner} from {@link EventSink#onAttach} until its
 * own {@code close()}: the file writers and the live sender each hold one, so the hand-over that loses
 * nothing in either close order is written once. Thread-safe: the session attaches on its thread, the
 * user closes on another.
 */
public final class SinkAttachment {
    private volatile SinkOwner owner;

    /** Keeps {@code owner} (the sink's {@code onAttach}). */
    public void attach(SinkOwner owner) {
        this.owner = owner;
    }

    /**
     * When still attached, has the owner deliver what it buffers and detach the sink (which calls the
     * sink's {@code onClose}); the first call only, a later one does nothing. The sink's {@code close()}
     * calls this, then its own {@code onClose()} (a no-op after the first). Not to be called while holding
     * the sink's own lock (the session's delivery thread may be waiting for it).
     */
    public void detach() {
        SinkOwner o = owner;
        if (o != null) {
            owner = null;
            o.detach();
        }
    }
}
