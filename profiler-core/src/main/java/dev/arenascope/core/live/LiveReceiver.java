package dev.arenascope.core.live;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

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
    private final Map<Integer, LiveConnection> connections = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final AtomicLong acceptFailures = new AtomicLong();
    private final AtomicLong shed = new AtomicLong();
    private final AtomicLong refusedPerAddress = new AtomicLong();
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
        for (LiveConnection c : connections.values()) {
            c.abort();
        }
        try {
            acceptor.join(2000);
            for (LiveConnection c : connections.values()) {
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
            LiveConnection c = new LiveConnection(nextConnection.getAndIncrement(), s, options, factory);
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
                .min(Comparator.comparingInt(c -> c.id))
                .ifPresent(c -> {
                    shed.incrementAndGet();
                    c.shed = true;
                    c.abort();
                });
    }

}
