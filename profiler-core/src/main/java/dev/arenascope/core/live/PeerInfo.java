package dev.arenascope.core.live;

import dev.arenascope.core.trace.SessionInfo;

/**
 * Who is on the other end of a live connection, as its hello said.
 *
 * @param connection       this receiver's number for the connection (1, 2, ...)
 * @param remoteAddress    the peer's address and port
 * @param senderId         a random id the sending process keeps across its reconnects
 * @param senderConnection the sender's count of its own connections (above 1 after a reconnect)
 * @param processId        the sending process's id
 * @param session          the session being streamed
 */
public record PeerInfo(int connection, String remoteAddress, long senderId, int senderConnection, long processId, SessionInfo session) {}
