package dev.arenascope.core.live;

import dev.arenascope.core.trace.EventSink;

/**
 * Gives each accepted live connection the sink its stream goes to (a store, a trace writer): one group
 * of tracks per process. Called on the connection's own thread after its hello was accepted; the sink
 * then hears {@code onSession}, metadata, events and losses, and {@code onClose} when the connection
 * ends however it ends.
 */
@FunctionalInterface
public interface LiveSinkFactory {
    /**
     * @return the sink for this peer; throwing refuses the connection
     */
    EventSink open(PeerInfo peer) throws Exception;
}
