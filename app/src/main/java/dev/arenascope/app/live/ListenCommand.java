package dev.arenascope.app.live;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.live.LiveProtocol;
import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.live.PeerInfo;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;

/**
 * {@code arenascope listen}: receives live sessions from profiled processes ({@code LiveSender}) headless,
 * printing each connection's events, rate and losses once a second, and writing each one to its own
 * trace file when asked.
 */
public final class ListenCommand implements Command {

    @Override
    public String name() {
        return "listen";
    }

    @Override
    public String summary() {
        return "receive live sessions from profiled processes and save them";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope listen [--port N] [--bind ADDR] [--token T] [--out DIR] [--format EXT]
                                         [--seconds S] [--connections N]

                Listens for profiled JVMs that stream their session (LiveSender.stream(session,
                "host:port", token)). Every connection is one process, kept apart from the others.
                Once a second it prints, per open connection, its events, events per second and the
                events the sender reported lost (it drops and counts them when the link falls behind);
                when a connection ends it prints how (closed, disconnected, cut mid-chunk) and what
                was kept. Runs until interrupted unless --seconds or --connections says otherwise.

                  --port N          port to listen on (default %d; 0 picks a free one, printed)
                  --bind ADDR       address to listen on (default 127.0.0.1); any other address
                                    needs a token
                  --token T         token senders must present (default: $ARENASCOPE_TOKEN)
                  --out DIR         write each connection to DIR/SESSION-pPID-cN.EXT
                  --format EXT      file format for --out: %s (default .astrace)
                  --seconds S       stop after S seconds
                  --connections N   stop once N connections have ended

                Exit codes: 0 done, 2 bad options or an address that cannot be listened on.
                """.formatted(LiveProtocol.DEFAULT_PORT, TraceFormats.outputExtensions());
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args(name(), args, Set.of());
        int port = a.intValue("port", LiveProtocol.DEFAULT_PORT);
        String bind = a.string("bind", "127.0.0.1");
        String token = a.string("token", System.getenv("ARENASCOPE_TOKEN"));
        String outDir = a.string("out", null);
        String format = a.string("format", ".astrace");
        double seconds = a.doubleValue("seconds", Double.POSITIVE_INFINITY);
        long stopAfter = a.longValue("connections", Long.MAX_VALUE);
        a.finish();
        if (!a.positionals().isEmpty()) {
            throw new UsageException(name() + ": unexpected argument '" + a.positionals().get(0) + "'");
        }
        if (port < 0 || port > 65535) {
            throw new UsageException(name() + ": --port must be in 0..65535, got " + port);
        }
        if (seconds <= 0) {
            throw new UsageException(name() + ": --seconds must be positive, got " + seconds);
        }
        if (stopAfter < 1) {
            throw new UsageException(name() + ": --connections must be at least 1, got " + stopAfter);
        }
        String ext = format.startsWith(".") ? format : "." + format;
        Path dir = outDir == null ? null : Path.of(outDir);
        if (dir != null) {
            if (TraceFormats.output(Path.of("x" + ext)) == null) {
                throw new UsageException(name() + ": --format: cannot write '" + ext + "' (writes " + TraceFormats.outputExtensions() + ")");
            }
            Files.createDirectories(dir);
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new UsageException(name() + ": --bind: unknown address '" + bind + "'");
        }
        LiveReceiver.Options options;
        try {
            options = new LiveReceiver.Options(address, port, token);
        } catch (IllegalArgumentException e) {
            throw new UsageException(name() + ": " + e.getMessage());
        }

        Map<Integer, String> files = new ConcurrentHashMap<>();
        Map<Integer, EventStore> stores = new ConcurrentHashMap<>();
        LiveReceiver receiver;
        try {
            receiver = LiveReceiver.start(options, peer -> open(peer, dir, ext, files, stores));
        } catch (IOException e) {
            throw new UsageException(name() + ": cannot listen on " + bind + ":" + port + ": " + e.getMessage());
        }
        Thread hook = new Thread(receiver::close, "arenascope-listen-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.println("listening on " + receiver.address().getHostAddress() + ":" + receiver.port()
                    + (token == null || token.isEmpty() ? " (no token: loopback only)" : " (token required)"));
            out.flush();
            long deadline = Double.isInfinite(seconds) ? Long.MAX_VALUE : System.nanoTime() + (long) (seconds * 1e9);
            Map<Integer, ConnectionStats.State> reported = new HashMap<>();
            long nextStatus = System.nanoTime() + 1_000_000_000L;
            while (true) {
                Thread.sleep(50);
                long ended = 0;
                boolean status = System.nanoTime() >= nextStatus;
                for (ConnectionStats c : receiver.stats()) {
                    if (c.state().ended()) {
                        ended++;
                        if (reported.put(c.connection(), c.state()) != c.state()) {
                            out.println(line(c) + ending(c, files.get(c.connection()), stores.get(c.connection())));
                        }
                    } else if (c.state() == ConnectionStats.State.STREAMING
                            && (status || reported.put(c.connection(), c.state()) != c.state())) {
                        reported.put(c.connection(), c.state());
                        out.println(line(c));
                    }
                }
                if (status) {
                    nextStatus += 1_000_000_000L;
                }
                out.flush();
                if (ended >= stopAfter || System.nanoTime() >= deadline) {
                    break;
                }
            }
        } finally {
            receiver.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down already
            }
        }
        return 0;
    }

    /** The sink for one connection: a trace file under --out, else an in-memory store. */
    private static EventSink open(PeerInfo peer, Path dir, String ext, Map<Integer, String> files, Map<Integer, EventStore> stores)
            throws IOException {
        if (dir == null) {
            EventStore s = new EventStore(peer.session().name());
            stores.put(peer.connection(), s);
            return s;
        }
        String base = peer.session().name().replaceAll("[^A-Za-z0-9._-]", "_");
        Path file = dir.resolve(base + "-p" + peer.processId() + "-c" + peer.connection() + ext);
        files.put(peer.connection(), file.toString());
        return TraceFormats.output(file).open(file);
    }

    private static String line(ConnectionStats c) {
        PeerInfo p = c.peer();
        String who = p == null ? "#" + c.connection() + " (no hello)"
                : "#" + c.connection() + " pid " + p.processId() + " '" + p.session().name() + "'"
                        + (p.senderConnection() > 1 ? " (reconnect " + (p.senderConnection() - 1) + ")" : "");
        String state = c.state().name().toLowerCase(java.util.Locale.ROOT);
        return String.format("%s %s: %,d events%s, %,d lost", who, state, c.events(),
                c.state().ended() ? "" : String.format(" (%,.0f/s)", c.eventsPerSecond()), c.lostEvents());
    }

    private static String ending(ConnectionStats c, String file, EventStore store) {
        StringBuilder sb = new StringBuilder();
        if (c.state() != ConnectionStats.State.CLOSED && c.detail() != null) {
            sb.append(" (").append(c.detail()).append(')');
        }
        if (file != null) {
            sb.append(" -> ").append(file);
        } else if (store != null) {
            for (MemoryInfo m : store.memories()) {
                sb.append(String.format("; %s peak %,d bytes", m.name(), store.peakUsed(m.id())));
            }
        }
        return sb.toString();
    }
}
