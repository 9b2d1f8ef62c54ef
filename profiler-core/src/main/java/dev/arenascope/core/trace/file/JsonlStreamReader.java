package dev.arenascope.core.trace.file;

import java.util.List;

import dev.arenascope.core.trace.EventSink;

/**
 * Reads JSON Lines that arrive in pieces (a live connection from the Python client): the caller hands
 * over blocks of whole lines in order ({@link #accept}), and each block is parsed and delivered to the
 * sink exactly as {@link JsonlReader} delivers a file: metadata before the events that need them,
 * every bad line skipped and named by its line number in the stream, the rest kept.
 *
 * <p>The caller cuts the stream at newlines (a partial last line waits for the next block, and is
 * dropped if the stream ends inside it). Not thread-safe: one connection thread feeds it; the sink is
 * called from that thread. It never calls the sink's {@code onClose}: the stream's owner does.
 */
public final class JsonlStreamReader {
    private final JsonlReader reader;
    private long bytes;

    /**
     * @param source      names the stream in problems ({@code live connection 3 from /127.0.0.1:5000})
     * @param sessionName the session's name if the stream sends no session line
     */
    public JsonlStreamReader(String source, String sessionName, EventSink sink) {
        this.reader = new JsonlReader(source, sessionName, sink);
    }

    /** Parses and delivers the whole lines {@code buf[from, to)} ({@code to} just past a newline). */
    public void accept(byte[] buf, int from, int to) {
        if (from < to) {
            reader.deliverLines(buf, from, to);
            bytes += to - from;
        }
    }

    /** Events delivered so far. */
    public long events() {
        return reader.eventsDelivered();
    }

    /** Events the stream's {@code loss} lines reported lost so far. */
    public long lost() {
        return reader.lostReported();
    }

    /** Ends the stream (the default session if none came); what was read and the problems met. */
    public ReadReport finish() {
        return reader.finishStream(bytes);
    }

    /** The first problems met so far, {@code source:LINE: what}. */
    public List<String> problems() {
        return reader.finishStreamProblems();
    }
}
