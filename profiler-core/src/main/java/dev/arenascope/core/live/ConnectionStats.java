package dev.arenascope.core.live;

/**
 * One live connection as the receiver saw it, for the window's connection list.
 *
 * @param connection      the receiver's number for it
 * @param peer            who connected (null until the hello was read)
 * @param state           where it stands
 * @param events          events received and delivered to its sink
 * @param eventsPerSecond events per second over the last second or so (0 once it ended)
 * @param lostEvents      events the sender reported lost (dropped when the link fell behind, or lost in its session)
 * @param bytes           bytes received
 * @param startedMs       when it connected, ms since the epoch
 * @param endedMs         when it ended, ms since the epoch, or 0 while open
 * @param detail          why it ended, or null
 */
public record ConnectionStats(int connection, PeerInfo peer, State state, long events, double eventsPerSecond, long lostEvents,
                              long bytes, long startedMs, long endedMs, String detail) {

    /** Where a connection stands. */
    public enum State {
        /** Waiting for the peer's hello. */
        HANDSHAKE,
        /** Events are arriving. */
        STREAMING,
        /** The peer said goodbye: everything it sent arrived. */
        CLOSED,
        /** The connection ended between chunks without a goodbye (the process died or the link dropped). */
        DISCONNECTED,
        /** The connection ended inside a chunk, or sent a corrupt one; every complete chunk before it was kept. */
        CUT,
        /** The hello was refused (bad token, version or hello) or the sink could not be opened. */
        REJECTED;

        /** Whether the connection is over. */
        public boolean ended() {
            return this != HANDSHAKE && this != STREAMING;
        }
    }
}
