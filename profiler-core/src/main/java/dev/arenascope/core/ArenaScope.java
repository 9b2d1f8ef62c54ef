package dev.arenascope.core;

import java.io.UncheckedIOException;
import java.nio.file.Path;

import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.file.RingCap;

/**
 * The front door of the library: one line to record a program's arenas and pools.
 *
 * <pre>{@code
 * try (Recording rec = ArenaScope.record(Path.of("run.astrace"))) {
 *     // arenas and pools created in here report to the recording
 * }   // flushed, closed, one summary line on stderr; rec.result() says what was written and lost
 * }</pre>
 *
 * <p>Everything is delivered in either close order: a recording owns its session and sinks and closes
 * them itself. To record a program without changing its code, use the Java agent
 * ({@link dev.arenascope.core.agent.ArenaScopeAgent}).
 */
public final class ArenaScope {
    private ArenaScope() {}

    /**
     * Starts recording to {@code file} (format by extension: {@code .astrace}, {@code .jsonl}, ...):
     * allocators created without an explicit session until the recording closes report to it
     * ({@link Session#current()}). Add a live stream with {@link Recording#live(String)}.
     *
     * @throws IllegalArgumentException when the extension is not a writable trace format
     * @throws UncheckedIOException     when the file cannot be created
     */
    public static Recording record(Path file) {
        Recording rec = Recording.start(sessionName(file));
        try {
            return rec.to(file);
        } catch (RuntimeException e) {
            rec.quiet().close();
            throw e;
        }
    }

    /**
     * Starts recording to an {@code .astrace} file kept within {@code cap}: a long recording keeps its
     * newest chunks and drops the oldest whole, counting them in the file (see {@link RingCap}), e.g.
     * {@code ArenaScope.record(Path.of("run.astrace"), RingCap.parseOptions("2GiB", "8h"))}.
     *
     * @throws IllegalArgumentException when the file is not an {@code .astrace} file
     * @throws UncheckedIOException     when the file cannot be created
     */
    public static Recording record(Path file, RingCap cap) {
        Recording rec = Recording.start(sessionName(file));
        try {
            return rec.to(file, cap);
        } catch (RuntimeException e) {
            rec.quiet().close();
            throw e;
        }
    }

    /**
     * Starts recording to a running ArenaScope ({@code arenascope listen}) at {@code hostPort}
     * ({@code host:port}); the token, when the receiver wants one, comes from {@code ARENASCOPE_TOKEN}.
     *
     * @throws IllegalArgumentException when {@code hostPort} is not {@code host[:port]}
     */
    public static Recording live(String hostPort) {
        Recording rec = Recording.start("live");
        try {
            return rec.live(hostPort);
        } catch (RuntimeException e) {
            rec.quiet().close();
            throw e;
        }
    }

    /** A recording with no sink yet, under {@code name}; add {@link Recording#to(Path)} and/or {@link Recording#live(String)}. */
    public static Recording session(String name) {
        return Recording.start(name);
    }

    private static String sessionName(Path file) {
        Path f = file.getFileName();
        String n = f == null ? "recording" : f.toString();
        int dot = n.indexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }
}
