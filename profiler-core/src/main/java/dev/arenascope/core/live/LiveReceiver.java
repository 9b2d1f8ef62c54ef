package dev.arenascope.core.live;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.codec.ChunkCodec;

/**
 * Listens for profiled processes ({@link LiveSender}) and delivers each connection's stream to its own
 * sink from a {@link LiveSinkFactory}: several processes at once, one group of tracks each. Clients that
 * stream JSON Lines (the Python client, {@link JsonlLiveProtocol}) use the same port: a connection
 * whose first byte is <code>{</code> speaks the text form, with the same token and loopback rules, rates
 * and loss counts; a text connection that dies mid-line keeps every whole line.
 *
 * <p><b>Security.</b> Binds to the loopback address unless told otherwise; binding any other address
 * (including the wildcard) requires a token, and a configured token is checked on every connection
 * (constant-time). A hello must arrive within {@link #HANDSHAKE_TIMEOUT_MS} ms.
 *
 * <p><b>Failures.</b> A process that dies, or a link cut mid-chunk, ends only its own connection: every
 * complete chunk has already reached the sink, a partial one is discarded, the sink's {@code onClose}
 * is called, and the connection's {@link ConnectionStats} says which ({@link ConnectionStats.State}).
 * Corrupt or forged frames are refused by {@link ChunkCodec} without allocating beyond what arrived.
 *
 * <p>Thread-safe: one accept thread, one thread per connection; {@link #stats()} from any thread.
 */
public final class LiveReceiver implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(LiveReceiver.class.getName());
    public static final int HANDSHAKE_TIMEOUT_MS = 5000;

    /**
     * @param bind          the address to listen on (loopback unless a token is given)
     * @param port          the port, 0 for any free one
     * @param token         the token senders must present, or null for none (loopback only)
     * @param maxPerAddress connections open at once from one remote address; more are refused at once
     * @param idleTimeoutMs how long an accepted connection may send nothing before it is closed as idle
     */
    public record Options(InetAddress bind, int port, String token, int maxPerAddress, long idleTimeoutMs) {
        /** Connections one address may hold open unless told otherwise. */
        public static final int DEFAULT_MAX_PER_ADDRESS = 64;
        /** Five minutes: a sender that sends nothing for longer is closed (it reconnects when it has events). */
        public static final long DEFAULT_IDLE_TIMEOUT_MS = 300_000;

        public Options {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            if (maxPerAddress < 1) {
                throw new IllegalArgumentException("connections per address must be at least 1, got " + maxPerAddress);
            }
            if (idleTimeoutMs < 1 || idleTimeoutMs > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("idle timeout must be 1 ms to 24 days, got " + idleTimeoutMs + " ms");
            }
            if (bind == null) {
                bind = InetAddress.getLoopbackAddress();
            }
            if (!bind.isLoopbackAddress() && (token == null || token.isEmpty())) {
                throw new IllegalArgumentException("listening on " + bind.getHostAddress()
                        + " (not loopback) requires a token; give one or bind to 127.0.0.1");
            }
        }

        /** The defaults for connections per address and idle timeout. */
        public Options(InetAddress bind, int port, String token) {
            this(bind, port, token, DEFAULT_MAX_PER_ADDRESS, DEFAULT_IDLE_TIMEOUT_MS);
        }

        /** Loopback on {@code port}, no token. */
        public static Options loopback(int port) {
            return new Options(InetAddress.getLoopbackAddress(), port, null);
        }
    }

    private final Options options;
    private final LiveSinkFactory factory;
    private final ServerSocket server;
    private final Thread acceptor;
    private final AtomicInteger nextConnection = new AtomicInteger(1);
    private final Map<Integer, Connection> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final java.util.concurrent.atomic.AtomicLong acceptFailures = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong shed = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong refusedPerAddress = new java.util.concurrent.atomic.AtomicLong();
    private volatile String lastAcceptProblem;

    /**
     * What the accept thread met: failed accepts (out of file descriptors, say) it backed off from,
     * connections without a hello it closed to free descriptors, connections refused because their
     * address had {@link Options#maxPerAddress()} open already, and the last accept failure's message.
     */
    public record AcceptStats(long failures, long shed, long refusedPerAddress, String lastProblem) {}

    private LiveReceiver(Options options, LiveSinkFactory factory) throws IOException {
        this(options, factory, new ServerSocket());
    }

    /** With the server socket given (tests give one whose accept fails). */
    LiveReceiver(Options options, LiveSinkFactory factory, ServerSocket s) throws IOException {
        this.options = options;
        this.factory = factory;
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(options.bind(), options.port()), 64);
        this.server = s;
        this.acceptor = Thread.ofPlatform().daemon().name("arenascope-live-accept:" + port()).start(this::acceptLoop);
    }

    /** Starts listening; returns once the socket is bound. */
    public static LiveReceiver start(Options options, LiveSinkFactory factory) throws IOException {
        return new LiveReceiver(options, factory);
    }

    /** The port listened on (the chosen one when 0 was asked). */
    public int port() {
        return server.getLocalPort();
    }

    /** The address listened on. */
    public InetAddress address() {
        return server.getInetAddress();
    }

    /** What the accept thread met so far. */
    public AcceptStats acceptStats() {
        return new AcceptStats(acceptFailures.get(), shed.get(), refusedPerAddress.get(), lastAcceptProblem);
    }

    /** Every connection so far, open and ended, in the order they came. */
    public List<ConnectionStats> stats() {
        List<ConnectionStats> out = new ArrayList<>();
        connections.keySet().stream().sorted().forEach(k -> out.add(connections.get(k).stats()));
        return out;
    }

    /** Stops listening and ends every open connection (their sinks are closed). */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Connection c : connections.values()) {
            c.abort();
        }
        try {
            acceptor.join(2000);
            for (Connection c : connections.values()) {
                if (c.thread != null) {
                    c.thread.join(2000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Accepts until closed. A failed accept (typically EMFILE: out of file descriptors) does not end
     * it: it closes the oldest connection that has not said hello (freeing a descriptor), backs off
     * 10 ms doubling to 1 s, and tries again; the counts are in {@link #acceptStats()}.
     */
    private void acceptLoop() {
        long backoffMs = 0;
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
                backoffMs = 0;
            } catch (IOException e) {
                if (closed || server.isClosed()) {
                    return;
                }
                acceptFailures.incrementAndGet();
                lastAcceptProblem = e.getMessage();
                shedOldestWithoutHello();
                backoffMs = backoffMs == 0 ? 10 : Math.min(1000, backoffMs * 2);
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                continue;
            }
            Connection c = new Connection(nextConnection.getAndIncrement(), s);
            connections.put(c.id, c);
            String from = c.remoteHost();
            long open = connections.values().stream().filter(o -> o != c && !o.state.ended() && from.equals(o.remoteHost())).count();
            if (open >= options.maxPerAddress()) {
                refusedPerAddress.incrementAndGet();
                c.refuse("refused: " + from + " has " + open + " connections open (at most " + options.maxPerAddress() + ")");
                continue;
            }
            c.thread = Thread.ofPlatform().daemon().name("arenascope-live-" + c.id).start(c::run);
            if (closed) {
                c.abort();
            }
        }
    }

    /** Closes the oldest connection still waiting for its hello (its thread ends it as a bad hello). */
    private void shedOldestWithoutHello() {
        connections.values().stream()
                .filter(c -> c.state == ConnectionStats.State.HANDSHAKE && c.thread != null)
                .min(java.util.Comparator.comparingInt(c -> c.id))
                .ifPresent(c -> {
                    shed.incrementAndGet();
                    c.shed = true;
                    c.abort();
                });
    }

    /** One accepted connection and its counters. */
    private final class Connection {
        final int id;
        final Socket socket;
        final String source;
        final long startedMs = System.currentTimeMillis();
        Thread thread;
        volatile PeerInfo peer;
        volatile ConnectionStats.State state = ConnectionStats.State.HANDSHAKE;
        volatile long events;
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

        Connection(int id, Socket socket) {
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
                socket.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
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
            } catch (java.net.SocketTimeoutException e) {
                end(ConnectionStats.State.DISCONNECTED, source + ": nothing received for " + options.idleTimeoutMs() / 1000.0
                        + " s: closed as idle");
            } catch (IOException e) {
                end(ConnectionStats.State.DISCONNECTED, source + ": " + e.getMessage());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, source + ": sink failed", e);
                end(ConnectionStats.State.CUT, "the sink failed: " + e);
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
                } catch (java.net.SocketTimeoutException e) {
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
                for (MetaRecord m : chunk.meta()) {
                    if (m instanceof MetaRecord.Loss(long count)) {
                        lost += count;
                    }
                    m.deliverTo(sink);
                }
                int n = chunk.events().size();
                if (n > 0) {
                    sink.onEvents(chunk.events());
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
            dev.arenascope.core.trace.file.JsonlStreamReader reader =
                    new dev.arenascope.core.trace.file.JsonlStreamReader(source, hello.session().name(), sink);
            try {
                streamLines(reader, out);
            } finally {
                reader.finish();
                events = reader.events();
                lost = reader.lost();
            }
        }

        private void streamLines(dev.arenascope.core.trace.file.JsonlStreamReader reader, OutputStream out) throws IOException {
            byte[] buf = new byte[1 << 16];
            int len = 0;
            while (true) {
                if (len == buf.length) {
                    if (buf.length > JsonlLiveProtocol.MAX_LINE) {
                        end(ConnectionStats.State.CUT, source + " at byte " + (counted.count - len) + ": a line longer than "
                                + (JsonlLiveProtocol.MAX_LINE >> 20) + " MiB");
                        return;
                    }
                    buf = java.util.Arrays.copyOf(buf, buf.length * 2);
                }
                int n;
                try {
                    n = counted.read(buf, len, buf.length - len);
                } catch (java.net.SocketTimeoutException e) {
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
                reader.accept(buf, 0, goodbye ? lastLine : whole);
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
    }

    /** Counts bytes read, for offsets in messages and the stats. */
    private static final class CountingInput extends FilterInputStream {
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
