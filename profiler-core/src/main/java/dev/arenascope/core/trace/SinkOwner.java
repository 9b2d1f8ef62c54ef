package dev.arenascope.core.trace;

/**
 * A sink's attachment to what feeds it (a {@link dev.arenascope.core.record.Session}). A sink that is
 * closed by its user while still attached calls {@link #detach()} first: the session delivers every event
 * published so far, detaches the sink (the one it was given, which may be a {@link ForwardingSink} around
 * this one) and calls its {@link EventSink#onClose()}; so closing a sink before its session loses nothing.
 */
public interface SinkOwner {

    /**
     * Delivers what is buffered to the attached sink, detaches it and calls its {@link EventSink#onClose()}.
     * Does nothing when it is no longer attached (the session closed or removed it). Thread-safe; must not
     * be called while holding the sink's own lock (the session's delivery thread may be waiting for it).
     */
    void detach();
}
