package dev.arenascope.app.commands.live;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.format.Printable;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.live.LiveProtocol;
import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.live.PeerInfo;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.file.AstraceFormat;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.OutputFiles;
import dev.arenascope.core.trace.file.RingCap;
import dev.arenascope.core.trace.file.RingWindow;
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
                                         [--idle-timeout S] [--max-per-address N]
                                         [--max-size BYTES] [--max-duration TIME]

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
                  --out DIR         write each connection to DIR/SESSION-pPID-cN.EXT (checked
                                    writable at start; -1, -2, ... when an earlier run has the name)
                  --format EXT      file format for --out: %s (default .astrace)
                  --seconds S       stop after S seconds
                  --connections N   stop once N connections have ended
                  --idle-timeout S  close a connection that sends nothing for S seconds (default
                                    %s; a Java sender reconnects and replays its metadata)
                  --max-per-address N
                                    connections one remote address may hold open (default %d);
                                    more are refused at once
                  --max-size BYTES  keep each connection's .astrace file under BYTES (e.g. 2GiB; at
                                    least 8MiB): the oldest chunks are dropped whole and counted
                  --max-duration T  keep only the last T of each session (e.g. 8h, 90min); with --out
                                    and the .astrace format only

                When the accept loop meets trouble (out of file descriptors), sheds connections
                that never sent a hello to free descriptors, or refuses connections over the
                per-address cap, it prints one "accept:" line saying so, once a second at most.
                A connection's trace file is created when its first chunk arrives.

                Exit codes: 0 done, 2 bad options (a --max-size of 0, below 8MiB or not a size, a
                --max-duration that is not a time, a cap without --out or with another format) or an
                address that cannot be listened on.
                """.formatted(LiveProtocol.DEFAULT_PORT, TraceFormats.outputExtensions(),
                Durations.format(LiveReceiver.Options.DEFAULT_IDLE_TIMEOUT_MS * 1_000_000L),
                LiveReceiver.Options.DEFAULT_MAX_PER_ADDRESS);
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
        double idle = a.doubleValue("idle-timeout", LiveReceiver.Options.DEFAULT_IDLE_TIMEOUT_MS / 1000.0);
        int perAddress = a.intValue("max-per-address", LiveReceiver.Options.DEFAULT_MAX_PER_ADDRESS);
        RingCap cap;
        try {
            cap = RingCap.parseOptions(a.string("max-size", null), a.string("max-duration", null));
        } catch (IllegalArgumentException e) {
            throw new UsageException(name() + ": " + e.getMessage());
        }
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
        if (!(idle >= 0.001 && idle <= Integer.MAX_VALUE / 1000.0)) {
            throw new UsageException(name() + ": --idle-timeout must be 0.001 to " + Integer.MAX_VALUE / 1000 + " seconds, got " + idle);
        }
        if (perAddress < 1) {
            throw new UsageException(name() + ": --max-per-address must be at least 1, got " + perAddress);
        }
        String ext = format.startsWith(".") ? format : "." + format;
        if (cap != null && outDir == null) {
            throw new UsageException(name() + ": --max-size and --max-duration cap the files --out DIR writes: give --out");
        }
        if (cap != null && !ext.equalsIgnoreCase(AstraceFormat.EXTENSION)) {
            throw new UsageException(name() + ": --max-size and --max-duration cap .astrace files only, not --format " + ext);
        }
        Path dir = outDir == null ? null : Path.of(outDir);
        if (dir != null) {
            if (TraceFormats.output(Path.of("x" + ext)) == null) {
                throw new UsageException(name() + ": --format: cannot write '" + ext + "' (writes " + TraceFormats.outputExtensions() + ")");
            }
            checkOutDir(dir);
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new UsageException(name() + ": --bind: unknown address '" + bind + "'");
        }
        LiveReceiver.Options options;
        try {
            options = new LiveReceiver.Options(address, port, token, perAddress, Math.round(idle * 1000));
        } catch (IllegalArgumentException e) {
            throw new UsageException(name() + ": " + e.getMessage());
        }

        Map<Integer, String> files = new ConcurrentHashMap<>();
        Map<Integer, EventStore> stores = new ConcurrentHashMap<>();
        Map<Integer, AstraceWriter> rings = new ConcurrentHashMap<>();
        LiveReceiver receiver;
        try {
            receiver = LiveReceiver.start(options, peer -> open(peer, dir, ext, cap, files, stores, rings));
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
            LiveReceiver.AcceptStats acceptSaid = new LiveReceiver.AcceptStats(0, 0, 0, null);
            long nextStatus = System.nanoTime() + 1_000_000_000L;
            while (true) {
                Thread.sleep(50);
                long ended = 0;
                boolean status = System.nanoTime() >= nextStatus;
                for (ConnectionStats c : receiver.stats()) {
                    if (c.state().ended()) {
                        ended++;
                        if (reported.put(c.connection(), c.state()) != c.state()) {
                            out.println(Printable.line(line(c) + ending(c, files.get(c.connection()), stores.get(c.connection()),
                                    rings.get(c.connection()))));
                        }
                    } else if (c.state() == ConnectionStats.State.STREAMING
                            && (status || reported.put(c.connection(), c.state()) != c.state())) {
                        reported.put(c.connection(), c.state());
                        out.println(Printable.line(line(c))); // names come from the sender: no control or bidi characters
                    }
                }
                if (status) {
                    nextStatus += 1_000_000_000L;
                    LiveReceiver.AcceptStats now = receiver.acceptStats();
                    String trouble = acceptLine(acceptSaid, now, perAddress);
                    if (trouble != null) {
                        out.println(Printable.line(trouble));
                        acceptSaid = now;
                    }
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

    /**
     * One line on what the accept loop met since {@code before} (failed accepts, shed connections,
     * refusals over the per-address cap), with the totals so far; null when nothing new happened.
     */
    static String acceptLine(LiveReceiver.AcceptStats before, LiveReceiver.AcceptStats now, int perAddress) {
        List<String> parts = new ArrayList<>();
        if (now.failures() > before.failures()) {
            parts.add(String.format("%s, backing off (%s)", Counts.of(now.failures() - before.failures(), "failed accept"),
                    now.lastProblem()));
        }
        if (now.shed() > before.shed()) {
            parts.add("closed " + Counts.of(now.shed() - before.shed(), "connection") + " that sent no hello, to free file descriptors");
        }
        if (now.refusedPerAddress() > before.refusedPerAddress()) {
            long n = now.refusedPerAddress() - before.refusedPerAddress();
            parts.add(String.format("refused %s from addresses already holding %d", Counts.of(n, "connection"), perAddress));
        }
        if (parts.isEmpty()) {
            return null;
        }
        return "accept: " + String.join("; ", parts) + String.format(" (so far: %,d failed, %,d shed, %,d refused)",
                now.failures(), now.shed(), now.refusedPerAddress());
    }

    /**
     * Creates {@code --out} when missing and proves it can hold files (one is created and removed), so
     * a directory that cannot take a trace is said at start (exit 2), not found out when the first
     * session arrives and is lost.
     */
    private void checkOutDir(Path dir) {
        try {
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new UsageException(name() + ": --out " + dir + ": not a directory");
            }
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".arenascope-listen-", ".probe");
            Files.delete(probe);
        } catch (UsageException e) {
            throw e;
        } catch (IOException | SecurityException e) {
            String why = e instanceof FileSystemException fs && fs.getReason() != null ? fs.getReason()
                    : e instanceof AccessDeniedException ? "permission denied"
                    : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new UsageException(name() + ": --out " + dir + ": cannot write files there (" + why + ")");
        }
    }

    /** The longest session name kept in a file name (file systems allow 255 bytes per name; pid, connection and extension follow). */
    static final int MAX_NAME_IN_FILE = 96;

    /**
     * The file name part for a session name: letters, digits, {@code . _ -} (anything else an underscore),
     * no leading dot or dash (a hidden file, or one that reads as an option), at most
     * {@value #MAX_NAME_IN_FILE} characters, {@code session} when nothing is left.
     */
    static String fileStem(String sessionName) {
        String base = sessionName.replaceAll("[^A-Za-z0-9._-]", "_").replaceFirst("^[.-]+", "");
        if (base.length() > MAX_NAME_IN_FILE) {
            base = base.substring(0, MAX_NAME_IN_FILE);
        }
        return base.isEmpty() ? "session" : base;
    }

    /**
     * The sink for one connection: a trace file under --out (created exclusively: a name an earlier run
     * or another connection holds gets {@code -1}, {@code -2}, ...), else an in-memory store. The file is
     * named in {@code files} only once it exists.
     */
    private static EventSink open(PeerInfo peer, Path dir, String ext, RingCap cap, Map<Integer, String> files,
                                  Map<Integer, EventStore> stores, Map<Integer, AstraceWriter> rings) throws IOException {
        if (dir == null) {
            EventStore s = EventStore.live(peer.session().name());
            stores.put(peer.connection(), s);
            return s;
        }
        Path file = OutputFiles.createNew(dir.resolve(fileStem(peer.session().name()) + "-p" + peer.processId() + "-c" + peer.connection() + ext));
        EventSink sink;
        try {
            if (cap != null) {
                AstraceWriter w = new AstraceWriter(file, ChunkCodec.DEFAULT_LEVEL, cap);
                rings.put(peer.connection(), w);
                sink = w;
            } else {
                sink = TraceFormats.output(file).open(file);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        files.put(peer.connection(), file.toString());
        return sink;
    }

    private static String line(ConnectionStats c) {
        PeerInfo p = c.peer();
        String who = p == null ? "#" + c.connection() + " (no hello)"
                : "#" + c.connection() + " pid " + p.processId() + " '" + p.session().name() + "'"
                        + (p.senderConnection() > 1 ? " (reconnect " + (p.senderConnection() - 1) + ")" : "");
        String state = c.state().name().toLowerCase(Locale.ROOT);
        return String.format("%s %s: %,d events%s, %,d lost", who, state, c.events(),
                c.state().ended() ? "" : String.format(" (%,.0f/s)", c.eventsPerSecond()), c.lostEvents());
    }

    private static String ending(ConnectionStats c, String file, EventStore store, AstraceWriter ring) {
        StringBuilder sb = new StringBuilder();
        if (c.state() != ConnectionStats.State.CLOSED && c.detail() != null) {
            sb.append(" (").append(c.detail()).append(')');
        }
        if (file != null) {
            sb.append(" -> ").append(file);
            RingWindow w = ring == null ? null : ring.ringWindow();
            if (w != null) {
                sb.append(" (").append(w.summary()).append(')');
            }
        } else if (store != null) {
            for (MemoryInfo m : store.memories()) {
                sb.append(String.format("; %s peak %,d bytes", m.name(), store.peakUsed(m.id())));
            }
        }
        return sb.toString();
    }
}
