package dev.arenascope.core.live;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.StackBounds;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.file.JsonlStreamReader;

/**
 * One accepted connection of a {@link LiveReceiver} and its counters: its thread reads the hello (binary
 * or the JSONL text form, told apart by the first byte), checks version and token, then streams chunks
 * or lines into the sink the factory opens for the peer, and says how it ended. Its counters are read
 * from any thread ({@link #stats()}).
 */
final class LiveConnection {
    private static final Logger LOG = Logger.getLogger(LiveReceiver.class.getName());
    final int id;
    final Socket socket;
    final String source;
    final long startedMs = System.currentTimeMillis();
    Thread thread;
    volatile PeerInfo peer;
    volatile ConnectionStats.State state = ConnectionStats.State.HANDSHAKE;
    volatile long events;
    private final StackBounds stackBounds = new StackBounds();
    volatile long lost;
    volatile long endedMs;
    volatile String detail;
    volatile ConnectionStats.State endState;
    volatile long windowStartNs = System.nanoTime();
    volatile long windowEvents;
    volatile double rate;
    CountingInput counted;
    /** A text connection's sink, once opened (closed by run() however the stream ends). */
    EventSink textSink;

    volatile boolean shed;

    private final LiveReceiver.Options options;
    private final LiveSinkFactory factory;

    LiveConnection(int id, Socket socket, LiveReceiver.Options options, LiveSinkFactory factory) {
        this.options = options;
        this.factory = factory;
        this.id = id;
        this.socket = socket;
        this.source = "live connection " + id + " from " + socket.getRemoteSocketAddress();
    }

    String remoteHost() {
        return socket.getInetAddress() == null ? "" : socket.getInetAddress().getHostAddress();
    }

    /** Ends a connection that is not served (no thread): closed at once, with why. */
    void refuse(String why) {
        abort();
        detail = why;
        endedMs = System.currentTimeMillis();
        state = ConnectionStats.State.REJECTED;
    }

    ConnectionStats stats() {
        long now = System.nanoTime();
        double r;
        if (state.ended()) {
            r = 0;
        } else if (now - windowStartNs >= 2_000_000_000L) {
            r = windowEvents / ((now - windowStartNs) / 1e9); // idle: decays toward 0
        } else {
            r = rate;
        }
        CountingInput c = counted;
        return new ConnectionStats(id, peer, state, events, r, lost, c == null ? 0 : c.count, startedMs, endedMs, detail);
    }

    void abort() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    void run() {
        EventSink sink = null;
        try (socket) {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true); // a peer whose machine vanished is noticed eventually
            socket.setSoTimeout(LiveReceiver.HANDSHAKE_TIMEOUT_MS);
            BufferedInputStream buffered = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            counted = new CountingInput(buffered);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 256);
            buffered.mark(1);
            int first = buffered.read();
            buffered.reset();
            if (first == '{') {
                serveJsonl(out);
                return;
            }
            LiveProtocol.Hello hello;
            try {
                hello = LiveProtocol.readHello(counted, source);
            } catch (IOException | RuntimeException e) {
                reject(out, LiveProtocol.BAD_HELLO, "bad hello: " + e.getMessage());
                return;
            }
            if (hello.version() < LiveProtocol.OLDEST_VERSION || hello.version() > LiveProtocol.VERSION) {
                reject(out, LiveProtocol.BAD_VERSION, "unsupported live protocol version " + hello.version()
                        + " (this receiver speaks " + LiveProtocol.OLDEST_VERSION + " to " + LiveProtocol.VERSION + ")");
                return;
            }
            if (options.token() != null && !options.token().isEmpty() && !LiveProtocol.tokenMatches(options.token(), hello.token())) {
                reject(out, LiveProtocol.BAD_TOKEN, "bad token");
                return;
            }
            PeerInfo p = new PeerInfo(id, String.valueOf(socket.getRemoteSocketAddress()), hello.senderId(), hello.connection(),
                    hello.processId(), hello.session());
            peer = p;
            sink = new LazySink(factory, p);
            out.write(LiveProtocol.encodeAck(LiveProtocol.ACCEPTED, "ok"));
            out.flush();
            socket.setSoTimeout((int) options.idleTimeoutMs());
            state = ConnectionStats.State.STREAMING;
            sink.onSession(hello.session());
            try (ChunkCodec codec = new ChunkCodec(ChunkCodec.DEFAULT_LEVEL, hello.version())) {
                stream(codec, sink, out); // the sender's version is the event layout of its chunks
            }
        } catch (SocketTimeoutException e) {
            end(ConnectionStats.State.DISCONNECTED, source + ": nothing received for " + options.idleTimeoutMs() / 1000.0
                    + " s: closed as idle");
        } catch (IOException e) {
            end(ConnectionStats.State.DISCONNECTED, source + ": " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, source + ": the sink failed: " + rootMessage(e));
            LOG.log(Level.FINE, source + ": the sink failed", e);
            end(ConnectionStats.State.CUT, "not stored: " + rootMessage(e));
        } finally {
            if (sink == null) {
                sink = textSink;
            }
            if (sink != null) {
                try {
                    sink.onClose();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, source + ": sink failed to close", e);
                }
            }
            if (!state.ended()) {
                // the state changes last, so a connection seen as ended has a closed sink
                if (endState == null) {
                    endState = ConnectionStats.State.DISCONNECTED;
                    detail = "connection ended";
                }
                endedMs = System.currentTimeMillis();
                state = endState;
            }
        }
    }

    private void stream(ChunkCodec codec, EventSink sink, OutputStream out) throws IOException {
        while (true) {
            long at = counted.count;
            int type;
            try {
                type = counted.read();
            } catch (SocketTimeoutException e) {
                end(ConnectionStats.State.DISCONNECTED, source + ": nothing received for " + options.idleTimeoutMs() / 1000.0
                        + " s between chunks: closed as idle");
                return;
            } catch (SocketException e) {
                end(ConnectionStats.State.DISCONNECTED, "the peer vanished between chunks (" + e.getMessage() + ")");
                return;
            }
            if (type < 0) {
                end(ConnectionStats.State.DISCONNECTED, "the peer disconnected without a goodbye after " + at + " bytes");
                return;
            }
            if (type == LiveProtocol.RECORD_GOODBYE) {
                end(ConnectionStats.State.CLOSED, "goodbye");
                LiveProtocol.writeAck(out, events);
                return;
            }
            if (type != LiveProtocol.RECORD_CHUNK) {
                end(ConnectionStats.State.CUT, source + " at byte " + at + ": unknown record type " + type);
                return;
            }
            ChunkCodec.Chunk chunk;
            try {
                chunk = codec.readFrame(counted, source, at + 1);
                if (chunk == null) {
                    throw new TraceFormatException(source, at + 1, "connection ended after a chunk marker");
                }
            } catch (TraceFormatException e) {
                end(ConnectionStats.State.CUT, e.getMessage());
                return;
            } catch (RuntimeException e) {
                end(ConnectionStats.State.CUT, source + " at byte " + at + ": corrupt chunk (" + e + ")");
                return;
            } catch (IOException e) {
                end(ConnectionStats.State.CUT, source + " at byte " + counted.count + ": connection lost inside a chunk (" + e.getMessage() + ")");
                return;
            }
            int n = chunk.events().size();
            for (MetaRecord m : chunk.meta()) {
                // the bounds a file's reader puts on sites: a forged name or chain ends the stream here
                String bad = switch (m) {
                    case MetaRecord.Frame(var f) -> StackBounds.frameProblem(f);
                    case MetaRecord.Stack(var node) -> stackBounds.add(node);
                    default -> null;
                };
                if (bad != null) {
                    end(ConnectionStats.State.CUT, source + " at byte " + at + ": " + bad);
                    return;
                }
            }
            try {
                for (MetaRecord m : chunk.meta()) {
                    if (m instanceof MetaRecord.Loss(long count)) {
                        lost += count;
                    }
                    m.deliverTo(sink);
                }
                if (n > 0) {
                    sink.onEvents(chunk.events());
                }
            } catch (RuntimeException e) {
                notStored(out, e);
                return;
            }
            if (n > 0) {
                events += n;
                countRate(n);
            }
            try {
                LiveProtocol.writeAck(out, events);
            } catch (IOException e) {
                // the sender is gone; what arrived is kept, the next read tells how it ended
            }
        }
    }

    /**
     * The sink cannot take the session (a file that cannot be created or written): the sender is told at
     * once, with the events kept, in a {@link LiveProtocol#RECORD_NOT_STORED} record, and the rest is read
     * away so the answer is not lost to a reset.
     */
    private void notStored(OutputStream out, RuntimeException e) {
        String why = "not stored: " + rootMessage(e);
        LOG.log(Level.WARNING, source + ": " + why);
        LOG.log(Level.FINE, source + ": the sink failed", e);
        end(ConnectionStats.State.CUT, why);
        try {
            LiveProtocol.writeNotStored(out, events, why);
            socket.shutdownOutput();
            byte[] rest = new byte[1 << 16];
            while (counted.read(rest, 0, rest.length) >= 0) {
                // discarded: nothing more can be stored
            }
        } catch (IOException ignored) {
            // the sender is gone or idle: it was told, or will see the connection drop
        }
    }

    /**
     * A text (JSON Lines) connection: hello, answer, whole lines to the sink until the goodbye or
     * the end. The sink opened is {@link #textSink} (run() closes it).
     */
    private void serveJsonl(OutputStream out) throws IOException {
        JsonlLiveProtocol.Hello hello;
        try {
            hello = JsonlLiveProtocol.readHello(counted, source);
        } catch (IOException | RuntimeException e) {
            rejectText(out, LiveProtocol.BAD_HELLO, "bad hello: " + e.getMessage());
            return;
        }
        if (hello.version() != JsonlLiveProtocol.VERSION) {
            rejectText(out, LiveProtocol.BAD_VERSION, "unsupported JSONL live protocol version " + hello.version()
                    + " (this receiver speaks " + JsonlLiveProtocol.VERSION + ")");
            return;
        }
        if (options.token() != null && !options.token().isEmpty() && !LiveProtocol.tokenMatches(options.token(), hello.token())) {
            rejectText(out, LiveProtocol.BAD_TOKEN, "bad token");
            return;
        }
        PeerInfo p = new PeerInfo(id, String.valueOf(socket.getRemoteSocketAddress()), hello.senderId(), hello.connection(),
                hello.processId(), hello.session());
        peer = p;
        EventSink sink = new LazySink(factory, p);
        textSink = sink;
        out.write(JsonlLiveProtocol.answer(LiveProtocol.ACCEPTED, "ok"));
        out.flush();
        socket.setSoTimeout((int) options.idleTimeoutMs());
        state = ConnectionStats.State.STREAMING;
        JsonlStreamReader reader =
                new JsonlStreamReader(source, hello.session().name(), sink);
        try {
            streamLines(reader, out);
        } finally {
            reader.finish();
            events = reader.events();
            lost = reader.lost();
        }
    }

    private void streamLines(JsonlStreamReader reader, OutputStream out) throws IOException {
        byte[] buf = new byte[1 << 16];
        int len = 0;
        while (true) {
            if (len == buf.length) {
                if (buf.length > JsonlLiveProtocol.MAX_LINE) {
                    end(ConnectionStats.State.CUT, source + " at byte " + (counted.count - len) + ": a line longer than "
                            + (JsonlLiveProtocol.MAX_LINE >> 20) + " MiB");
                    return;
                }
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            int n;
            try {
                n = counted.read(buf, len, buf.length - len);
            } catch (SocketTimeoutException e) {
                end(ConnectionStats.State.DISCONNECTED, source + ": nothing received for " + options.idleTimeoutMs() / 1000.0
                        + " s: closed as idle" + (len > 0 ? "; a partial line of " + len + " bytes dropped" : ""));
                return;
            } catch (SocketException e) {
                end(ConnectionStats.State.DISCONNECTED, "the peer vanished (" + e.getMessage() + ")"
                        + (len > 0 ? "; a partial line of " + len + " bytes dropped" : ""));
                return;
            }
            if (n < 0) {
                end(len > 0 ? ConnectionStats.State.CUT : ConnectionStats.State.DISCONNECTED,
                        "the peer disconnected without a goodbye after " + counted.count + " bytes"
                                + (len > 0 ? "; a partial line of " + len + " bytes dropped" : ""));
                return;
            }
            int scan = len;
            len += n;
            int last = -1;
            for (int i = len - 1; i >= scan; i--) {
                if (buf[i] == '\n') {
                    last = i;
                    break;
                }
            }
            if (last < 0) {
                continue;
            }
            int whole = last + 1;
            int lastLine = 0;
            for (int i = last - 1; i >= 0; i--) {
                if (buf[i] == '\n') {
                    lastLine = i + 1;
                    break;
                }
            }
            boolean goodbye = JsonlLiveProtocol.isGoodbye(buf, lastLine, whole);
            long before = reader.events();
            try {
                reader.accept(buf, 0, goodbye ? lastLine : whole);
            } catch (RuntimeException e) {
                // the sink cannot take the session (a file that cannot be created or written): say so to the
                // sender at once, with what was kept, and read the rest away so the answer is not lost to a reset
                events = reader.events();
                lost = reader.lost();
                String why = "not stored: " + rootMessage(e);
                LOG.log(Level.WARNING, source + ": " + why);
                end(ConnectionStats.State.CUT, why);
                try {
                    out.write(JsonlLiveProtocol.closed(events, why));
                    out.flush();
                    socket.shutdownOutput();
                    byte[] sink = new byte[1 << 16];
                    while (counted.read(sink, 0, sink.length) >= 0) {
                        // discarded: nothing more can be stored
                    }
                } catch (IOException ignored) {
                    // the sender is gone or idle: it was told, or will see the connection drop
                }
                return;
            }
            events = reader.events();
            lost = reader.lost();
            if (events > before) {
                countRate((int) Math.min(Integer.MAX_VALUE, events - before));
            }
            if (goodbye) {
                end(ConnectionStats.State.CLOSED, "goodbye");
                try {
                    out.write(JsonlLiveProtocol.closed(events));
                    out.flush();
                } catch (IOException ignored) {
                    // the sender is gone; everything it sent arrived
                }
                return;
            }
            System.arraycopy(buf, whole, buf, 0, len - whole);
            len -= whole;
        }
    }

    /** What went wrong, in one line: the exception's message (which names the cause), else its class. */
    static String rootMessage(Throwable e) {
        String m = e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replace('\n', ' ');
    }

    private void rejectText(OutputStream out, int status, String why) {
        try {
            out.write(JsonlLiveProtocol.answer(status, why));
            out.flush();
        } catch (IOException ignored) {
            // the peer is gone already
        }
        // the state changes after the answer is sent, so an owner that stops once connections ended
        // (listen --connections N) does not close the socket under it
        detail = why;
        endedMs = System.currentTimeMillis();
        state = ConnectionStats.State.REJECTED;
    }

    private void countRate(int n) {
        windowEvents += n;
        long now = System.nanoTime();
        long elapsed = now - windowStartNs;
        if (elapsed >= 1_000_000_000L) {
            rate = windowEvents / (elapsed / 1e9);
            windowEvents = 0;
            windowStartNs = now;
        }
    }

    private void reject(OutputStream out, int status, String why) {
        try {
            out.write(LiveProtocol.encodeAck(status, why));
            out.flush();
        } catch (IOException ignored) {
            // the peer is gone already
        }
        detail = why;
        endedMs = System.currentTimeMillis();
        state = ConnectionStats.State.REJECTED; // after the answer went out (see rejectText)
    }

    /** Records how the connection ended; the state shows it once the sink is closed. */
    private void end(ConnectionStats.State s, String why) {
        if (endState == null) {
            endState = s;
            detail = why;
        }
    }

    /** Counts the bytes read through it: offsets in messages and the connection's bytes received. */
    static final class CountingInput extends FilterInputStream {
        volatile long count;

        CountingInput(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c >= 0) {
                count++;
            }
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long k = super.skip(n);
            count += k;
            return k;
        }
    }
}
