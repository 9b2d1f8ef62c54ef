package dev.arenascope.core.live;

import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.codec.ChunkCodec;

/**
 * One connection of a {@link LiveSender} to a receiver, the sender's side of what {@link LiveConnection} is on
 * the receiver's: it says hello and reads the answer, writes chunk records, reads the receiver's
 * acknowledgements (and its "not stored"), says goodbye, and keeps this link's counts: events written, events
 * acknowledged, metadata records carried. A new link starts from nothing, which is why the sender replays the
 * session's metadata on each one.
 *
 * <p>The sender's thread alone uses a link; {@link #close()} may also come from the thread closing the sender, to
 * unblock a write stuck on a stalled receiver (the sender thread's next call then fails).
 */
final class SenderLink implements AutoCloseable {
    /** The receiver answered the hello with a refusal (a wrong token, another version); the message says why. */
    static final class RefusedException extends IOException {
        RefusedException(String message) {
            super(message);
        }
    }

    /** The receiver cannot store the session: what it stored is acknowledged, the rest lost, and the sender stops. */
    static final class NotStoredException extends IOException {
        NotStoredException(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String target;
    private final LongConsumer acknowledged;
    private long sent;
    private long acked;
    private int metaSent;

    private SenderLink(Socket socket, OutputStream out, InputStream in, String target, LongConsumer acknowledged) {
        this.socket = socket;
        this.out = out;
        this.in = in;
        this.target = target;
        this.acknowledged = acknowledged;
    }

    /**
     * Connects to {@code host:port}, says {@code hello} and reads the answer.
     *
     * @param target       the receiver as messages name it ({@code host:port})
     * @param acknowledged told each number of events the receiver newly acknowledged on this link
     * @throws RefusedException when the receiver refuses the hello
     * @throws IOException      when the receiver cannot be reached or the answer cannot be read
     */
    static SenderLink open(String host, int port, Duration connectTimeout, LiveProtocol.Hello hello, String target,
                           LongConsumer acknowledged) throws IOException {
        Socket sock = new Socket();
        try {
            sock.setTcpNoDelay(true);
            sock.setKeepAlive(true);
            sock.connect(new InetSocketAddress(host, port), (int) connectTimeout.toMillis());
            sock.setSoTimeout((int) Math.max(1000, connectTimeout.toMillis() * 5));
            OutputStream o = new BufferedOutputStream(sock.getOutputStream(), 1 << 16);
            InputStream i = sock.getInputStream();
            o.write(LiveProtocol.encodeHello(hello));
            o.flush();
            LiveProtocol.Ack ack = LiveProtocol.readAck(i, target);
            if (ack.status() != LiveProtocol.ACCEPTED) {
                throw new RefusedException("refused by " + target + ": " + ack.message());
            }
            sock.setSoTimeout(0);
            return new SenderLink(sock, o, i, target, acknowledged);
        } catch (IOException | RuntimeException e) {
            try {
                sock.close();
            } catch (IOException ignored) {
                // already failing
            }
            throw e;
        }
    }

    /** Writes events {@code [from, to)} of {@code batch} (with {@code meta} ahead of them) as one chunk record. */
    void writeChunk(ChunkCodec codec, List<MetaRecord> meta, EventBatch batch, int from, int to) throws IOException {
        out.write(LiveProtocol.RECORD_CHUNK);
        codec.writeFrame(out, meta, batch, from, to);
        sent += to - from;
    }

    /** Metadata records this link has carried (the session's, from the first, in order). */
    int metaSent() {
        return metaSent;
    }

    /** Counts {@code n} more of the session's metadata records as carried by this link. */
    void carriedMeta(int n) {
        metaSent += n;
    }

    void flush() throws IOException {
        out.flush();
    }

    /** Reads the acknowledgements that have already arrived, without waiting. */
    void readAcks() throws IOException {
        while (in.available() >= 9) {
            int type = in.read();
            notStored(type);
            if (type != LiveProtocol.RECORD_ACK) {
                throw new IOException("unexpected record " + type + " from the receiver");
            }
            acked(LiveProtocol.readLongLE(in));
        }
    }

    /**
     * Waits about 2 ms for work while watching the link: a receiver that went away is noticed here (end of
     * stream) rather than on the next write, so the sender reconnects while idle.
     */
    void idleWait() throws IOException {
        socket.setSoTimeout(2);
        int type;
        try {
            type = in.read();
        } catch (SocketTimeoutException e) {
            return;
        } finally {
            socket.setSoTimeout(0);
        }
        if (type < 0) {
            throw new EOFException("the receiver closed the connection");
        }
        notStored(type);
        if (type != LiveProtocol.RECORD_ACK) {
            throw new IOException("unexpected record " + type + " from the receiver");
        }
        socket.setSoTimeout(1000);
        long count = LiveProtocol.readLongLE(in);
        socket.setSoTimeout(0);
        acked(count);
    }

    /** Says goodbye and reads the receiver's final count, waiting at most {@code timeout} for it. */
    void goodbye(Duration timeout) throws IOException {
        out.write(LiveProtocol.RECORD_GOODBYE);
        out.flush();
        socket.setSoTimeout((int) Math.max(100, timeout.toMillis()));
        while (acked < sent) {
            int type = in.read();
            notStored(type);
            if (type != LiveProtocol.RECORD_ACK) {
                break;
            }
            acked(LiveProtocol.readLongLE(in));
        }
    }

    /** Events written on this link the receiver has not acknowledged; from now on they count as acknowledged here. */
    long takeUnacknowledged() {
        long unacked = sent - acked;
        sent = acked;
        return Math.max(0, unacked);
    }

    /** Closes the socket; safe from any thread and more than once. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private void acked(long count) {
        acknowledged.accept(count - acked);
        acked = count;
    }

    private void notStored(int type) throws IOException {
        if (type != LiveProtocol.RECORD_NOT_STORED) {
            return;
        }
        LiveProtocol.NotStored ns = LiveProtocol.readNotStored(in, target);
        long stored = Math.max(acked, Math.min(ns.stored(), sent));
        acked(stored);
        throw new NotStoredException(target + " cannot store the session (" + ns.why() + ")");
    }
}
