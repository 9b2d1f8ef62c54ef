package dev.arenascope.core.trace.file;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.trace.SessionInfo;

/**
 * What a capped recording ({@link RingCap}) kept and dropped, as its file's session attributes say:
 * {@value #MAX_BYTES}, {@value #MAX_DURATION}, {@value #DROPPED_CHUNKS}, {@value #DROPPED_EVENTS},
 * {@value #DROPPED_BYTES}, {@value #WINDOW_START} (the session time, in ns, from which the file holds
 * every event; 0 until something was dropped) and {@value #REWRITES}. Plain session attributes, so any
 * reader of the format reads them and older readers simply show them as attributes.
 *
 * <p>What a kept window means: the events before {@link #windowStartNs()} are gone. The gauges (bytes in
 * use, reserved) stay exact from the window's start, because the writer opens the window with one
 * {@code MEMORY_CREATED} event per memory still open, carrying the memory's gauges at the cut; peaks
 * are those of the window, not of the whole session. Allocations made before the cut are in those
 * gauges but are not listed one by one (their {@code ALLOC} was dropped), so site questions cover the
 * allocations made in the window.
 *
 * @param maxBytes       the size cap, 0 for none
 * @param maxDurationNs  the time cap, 0 for none
 * @param droppedChunks  chunks dropped so far
 * @param droppedEvents  events in them (the carried gauge events not counted)
 * @param droppedBytes   their bytes on disk
 * @param windowStartNs  where the kept window starts, in ns of session time (0 while nothing was dropped)
 * @param rewrites       how many times the file was rewritten to drop chunks
 */
public record RingWindow(long maxBytes, long maxDurationNs, long droppedChunks, long droppedEvents, long droppedBytes,
                         long windowStartNs, long rewrites) {
    public static final String MAX_BYTES = "ring.max_size_bytes";
    public static final String MAX_DURATION = "ring.max_duration_ns";
    public static final String DROPPED_CHUNKS = "ring.dropped_chunks";
    public static final String DROPPED_EVENTS = "ring.dropped_events";
    public static final String DROPPED_BYTES = "ring.dropped_bytes";
    public static final String WINDOW_START = "ring.window_start_ns";
    public static final String REWRITES = "ring.rewrites";

    /** The window a session's attributes describe, or null when the session was not recorded with a cap. */
    public static RingWindow of(SessionInfo session) {
        return session == null ? null : of(session.attributes());
    }

    /** The window these session attributes describe, or null when they name no cap. */
    public static RingWindow of(Map<String, String> attributes) {
        if (!attributes.containsKey(MAX_BYTES) && !attributes.containsKey(MAX_DURATION)) {
            return null;
        }
        return new RingWindow(num(attributes, MAX_BYTES), num(attributes, MAX_DURATION), num(attributes, DROPPED_CHUNKS),
                num(attributes, DROPPED_EVENTS), num(attributes, DROPPED_BYTES), num(attributes, WINDOW_START),
                num(attributes, REWRITES));
    }

    private static long num(Map<String, String> a, String key) {
        String v = a.get(key);
        if (v == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(v.trim()));
        } catch (NumberFormatException e) {
            return 0; // a hand-edited attribute: shown as nothing dropped rather than refusing the file
        }
    }

    /** Whether anything was dropped. */
    public boolean dropped() {
        return droppedChunks > 0;
    }

    /** These figures as session attributes, merged over {@code base}. */
    public Map<String, String> into(Map<String, String> base) {
        Map<String, String> m = new LinkedHashMap<>(base);
        m.put(MAX_BYTES, Long.toString(maxBytes));
        m.put(MAX_DURATION, Long.toString(maxDurationNs));
        m.put(DROPPED_CHUNKS, Long.toString(droppedChunks));
        m.put(DROPPED_EVENTS, Long.toString(droppedEvents));
        m.put(DROPPED_BYTES, Long.toString(droppedBytes));
        m.put(WINDOW_START, Long.toString(windowStartNs));
        m.put(REWRITES, Long.toString(rewrites));
        return m;
    }

    /**
     * One line for a status bar or a report: e.g. {@code capped (max size 2 GiB): 1,204 older chunks
     * (78,912,000 events, 1.5 GiB) dropped; the trace starts at 2 h 13 min}.
     */
    public String summary() {
        String cap = "";
        if (maxBytes > 0 || maxDurationNs > 0) {
            cap = " (" + (maxBytes > 0 ? "max size " + Bytes.format(maxBytes) : "")
                    + (maxBytes > 0 && maxDurationNs > 0 ? ", " : "")
                    + (maxDurationNs > 0 ? "max duration " + Durations.format(maxDurationNs) : "") + ")";
        }
        if (!dropped()) {
            return "capped" + cap + ": nothing dropped";
        }
        return String.format("capped%s: %,d older chunks (%,d events, %s) dropped; the kept window starts at %s",
                cap, droppedChunks, droppedEvents, Bytes.format(droppedBytes), Durations.format(windowStartNs));
    }
}
