package dev.arenascope.core;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.file.AstraceFormat;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.RingCap;
import dev.arenascope.core.trace.file.RingWindow;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * A recording started by {@link ArenaScope}: a session, the sinks it writes to (a file, a live stream)
 * and, while it is open, the session allocators report to when they are built without one
 * ({@link Session#current()}).
 *
 * <p><b>Ownership.</b> The recording owns its session and sinks: {@link #close()} delivers every event
 * published before it, closes the sinks, then the session, and prints one summary line (events recorded,
 * written, delivered, lost) to stderr unless {@link #quiet()}; {@link #result()} returns the same figures.
 * Allocators created inside should be closed before it (their last events are then included). Not
 * thread-safe to configure (call {@link #to} / {@link #live} on the thread that started it); allocators on
 * any thread may record into it.
 */
public final class Recording implements AutoCloseable {

    /**
     * What a recording wrote and lost, once closed.
     *
     * @param events        events published to the session and delivered from its buffer
     * @param sessionLost   events the session's buffer could not hold (counted, not delivered anywhere)
     * @param file          the file, or null
     * @param fileEvents    events in the file (whole chunks on disk)
     * @param fileLost      events that did not get into the file (a write failure, the session's losses)
     * @param live          the live target {@code host:port}, or null
     * @param liveDelivered events the receiver acknowledged
     * @param liveLost      events that did not reach the receiver
     * @param problems      one line per output that failed (the disk filled, the receiver refused), empty when none
     * @param ring          what a capped file ({@link #to(Path, RingCap)}) kept and dropped, or null when not capped;
     *                      {@code fileEvents} counts every event written, the dropped ones too
     */
    public record Result(long events, long sessionLost, Path file, long fileEvents, long fileLost,
                         String live, long liveDelivered, long liveLost, List<String> problems, RingWindow ring) {

        /** Whether every event published reached every output. */
        public boolean complete() {
            return sessionLost == 0 && fileLost == 0 && liveLost == 0 && problems.isEmpty();
        }

        /** One line: {@code arenascope: 815 events recorded -> run.astrace (815 written, 0 lost); ...}. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("arenascope: ").append(events).append(" events recorded");
            if (sessionLost > 0) {
                sb.append(", ").append(sessionLost).append(" lost in the session's buffer");
            }
            if (file != null) {
                sb.append(" -> ").append(file).append(" (").append(fileEvents).append(" written, ").append(fileLost).append(" lost)");
                if (ring != null) {
                    sb.append(", ").append(ring.summary());
                }
            }
            if (live != null) {
                sb.append("; live ").append(live).append(": ").append(liveDelivered).append(" delivered, ")
                        .append(liveLost).append(" lost");
            }
            for (String p : problems) {
                sb.append("; ").append(p);
            }
            return sb.toString();
        }
    }

    private final Session session;
    private final boolean ownsSession;
    private final Session.Current current;
    private final Counter counter = new Counter();
    private final List<String> problems = new ArrayList<>();
    private EventSink fileSink;
    private Path file;
    private LiveSender liveSender;
    private boolean quiet;
    private Result result;

    private Recording(Session session, boolean ownsSession) {
        this.session = session;
        this.ownsSession = ownsSession;
        session.addSink(counter);
        this.current = ownsSession ? session.makeCurrent() : null;
    }

    static Recording start(String name) {
        return new Recording(new Session(name), true);
    }

    /**
     * Records {@code session} (which stays open after {@link #close()}: its owner closes it), as the Java
     * agent does with {@link Session#global()}. It is not made {@link Session#current()}.
     */
    public static Recording of(Session session) {
        return new Recording(session, false);
    }

    /** The recording's session: pass it to allocators' {@code .session(...)} when they are built elsewhere. */
    public Session session() {
        return session;
    }

    /**
     * Adds a file (format by extension). One file per recording.
     *
     * @throws IllegalStateException    when the recording has a file already or is closed
     * @throws IllegalArgumentException when the extension is not a writable trace format
     * @throws UncheckedIOException     when the file cannot be created
     */
    public Recording to(Path file) {
        return to(file, null);
    }

    /**
     * Adds an {@code .astrace} file kept within {@code cap} (the newest chunks; the oldest dropped whole and
     * counted, see {@link AstraceWriter}), or any file as {@link #to(Path)} when {@code cap} is null.
     *
     * @throws IllegalStateException    when the recording has a file already or is closed
     * @throws IllegalArgumentException when the extension is not a writable trace format, or not
     *                                  {@code .astrace} with a cap
     * @throws UncheckedIOException     when the file cannot be created
     */
    public Recording to(Path file, RingCap cap) {
        if (result != null || fileSink != null) {
            throw new IllegalStateException(result != null ? "the recording is closed" : "the recording already writes " + this.file);
        }
        TraceFormats.Output output = TraceFormats.output(file);
        if (output == null) {
            throw new IllegalArgumentException(file + ": unknown trace format (writable: " + TraceFormats.outputExtensions() + ")");
        }
        if (cap != null && !TraceFormats.extension(file).equals(AstraceFormat.EXTENSION)) {
            throw new IllegalArgumentException(file + ": a cap (max size, max duration) keeps .astrace files only");
        }
        try {
            fileSink = cap == null ? output.open(file) : new AstraceWriter(file, ChunkCodec.DEFAULT_LEVEL, cap);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + file + ": " + e.getMessage(), e);
        }
        this.file = file;
        session.addSink(fileSink);
        return this;
    }

    /**
     * Adds a live stream to the ArenaScope listening at {@code hostPort}; the token comes from
     * {@code ARENASCOPE_TOKEN} when set. One stream per recording.
     *
     * @throws IllegalStateException    when the recording streams already or is closed
     * @throws IllegalArgumentException when {@code hostPort} is not {@code host[:port]}
     */
    public Recording live(String hostPort) {
        if (result != null || liveSender != null) {
            throw new IllegalStateException(result != null ? "the recording is closed" : "the recording streams to " + liveSender.target() + " already");
        }
        liveSender = LiveSender.stream(session, hostPort, System.getenv("ARENASCOPE_TOKEN"));
        return this;
    }

    /** No summary line on close. */
    public Recording quiet() {
        quiet = true;
        return this;
    }

    /** What was written and lost: null until {@link #close()}. */
    public Result result() {
        return result;
    }

    /**
     * Delivers everything published so far, closes the file and the live stream, then the session (when
     * the recording created it), prints the summary line and returns. Later calls do nothing.
     */
    @Override
    public void close() {
        if (result != null) {
            return;
        }
        if (current != null) {
            current.close();
        }
        session.flush();
        long fileEvents = 0;
        long fileLost = 0;
        if (fileSink != null) {
            try {
                session.removeSink(fileSink);
            } catch (AstraceWriter.WriteFailedException e) {
                problems.add(e.getMessage());
            } catch (UncheckedIOException e) {
                problems.add(e.getMessage());
            }
            RuntimeException failed = session.sinkFailure(fileSink);
            if (failed != null) {
                problems.add(failed.getMessage());
            }
            if (fileSink instanceof AstraceWriter w) {
                fileEvents = w.eventsOnDisk();
                fileLost = w.lostEvents();
            } else {
                fileEvents = failed == null ? counter.events : 0;
                fileLost = failed == null ? counter.lost : counter.events + counter.lost;
            }
        }
        long liveDelivered = 0;
        long liveLost = 0;
        if (liveSender != null) {
            session.removeSink(liveSender);
            LiveSender.Stats st = liveSender.stats();
            liveDelivered = st.deliveredEvents();
            liveLost = st.droppedEvents() + st.upstreamLost();
            if (st.lastError() != null && (liveLost > 0 || liveSender.refused())) {
                problems.add("live: " + st.lastError());
            }
        }
        session.removeSink(counter);
        if (ownsSession) {
            session.close();
        }
        result = new Result(counter.events, counter.lost, file, fileEvents, fileLost,
                liveSender == null ? null : liveSender.target(), liveDelivered, liveLost, List.copyOf(problems),
                fileSink instanceof AstraceWriter w ? w.ringWindow() : null);
        if (!quiet) {
            PrintStream err = System.err;
            err.println(result);
        }
    }

    /** Counts what the session delivers (the drain thread calls it; read after it is detached). */
    private static final class Counter implements EventSink {
        volatile long events;
        volatile long lost;

        @Override
        public void onEvents(EventBatch batch) {
            events += batch.size();
        }

        @Override
        public void onLoss(long count) {
            lost = Saturating.add(lost, count);
        }
    }
}
