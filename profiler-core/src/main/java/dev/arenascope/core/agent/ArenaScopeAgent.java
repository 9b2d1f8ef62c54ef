package dev.arenascope.core.agent;

import java.io.UncheckedIOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.arenascope.core.Recording;
import dev.arenascope.core.record.Session;

/**
 * Records a program without changing its code:
 * {@code java -javaagent:profiler-core-VERSION-agent.jar=out=run.astrace,live=127.0.0.1:7766 -jar app.jar}.
 * Before {@code main} it attaches a file and/or a live stream to {@link Session#global()} (what allocators
 * built without a session report to); a shutdown hook delivers what is buffered, closes them and prints
 * one summary line on stderr at exit.
 *
 * <p>Options (comma-separated {@code key=value}): {@code out=FILE} (format by extension),
 * {@code live=HOST:PORT}, {@code quiet=true}. Without options the agent reads the system properties
 * {@code arenascope.trace} / {@code arenascope.live}, then the environment variables
 * {@code ARENASCOPE_TRACE} / {@code ARENASCOPE_LIVE}. The agent jar holds only this class: the program's
 * class path must have profiler-core and its dependencies (a program that builds ArenaScope arenas has).
 * A bad option prints one line and records nothing; the program still runs.
 */
public final class ArenaScopeAgent {
    private ArenaScopeAgent() {}

    /** The JVM calls it before {@code main} for {@code -javaagent}. */
    public static void premain(String args, Instrumentation inst) {
        premain(args);
    }

    /** {@link #premain(String, Instrumentation)} without instrumentation (also for {@code Launcher-Agent}). */
    public static void premain(String args) {
        try {
            Map<String, String> o = parse(args);
            String out = o.getOrDefault("out", setting("arenascope.trace", "ARENASCOPE_TRACE"));
            String live = o.getOrDefault("live", setting("arenascope.live", "ARENASCOPE_LIVE"));
            if (out == null && live == null) {
                System.err.println("arenascope agent: nothing to record (give out=FILE and/or live=HOST:PORT, or set ARENASCOPE_TRACE / ARENASCOPE_LIVE)");
                return;
            }
            Recording rec = start(Session.global(), out, live);
            if (Boolean.parseBoolean(o.getOrDefault("quiet", "false"))) {
                rec.quiet();
            }
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("arenascope-agent-flush").unstarted(rec::close));
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            System.err.println("arenascope agent: " + e.getMessage() + "; recording nothing");
        } catch (LinkageError e) {
            System.err.println("arenascope agent: profiler-core is not on the program's class path (" + e.getMessage() + "); recording nothing");
        }
    }

    /** Attaches the outputs to {@code session}; the caller closes the recording. */
    static Recording start(Session session, String out, String live) {
        Recording rec = Recording.of(session);
        try {
            if (out != null) {
                rec.to(Path.of(out));
            }
            if (live != null) {
                rec.live(live);
            }
        } catch (RuntimeException e) {
            rec.quiet().close();
            throw e;
        }
        return rec;
    }

    /** {@code key=value,key=value}; unknown keys are refused so a typo does not record nothing silently. */
    static Map<String, String> parse(String args) {
        Map<String, String> m = new LinkedHashMap<>();
        if (args == null || args.isBlank()) {
            return m;
        }
        for (String part : args.split(",")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("option '" + part + "' is not key=value (keys: out, live, quiet)");
            }
            String key = part.substring(0, eq).trim();
            if (!key.equals("out") && !key.equals("live") && !key.equals("quiet")) {
                throw new IllegalArgumentException("unknown option '" + key + "' (keys: out, live, quiet)");
            }
            m.put(key, part.substring(eq + 1).trim());
        }
        return m;
    }

    private static String setting(String property, String env) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? null : v;
    }
}
