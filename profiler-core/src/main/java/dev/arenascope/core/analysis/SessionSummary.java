package dev.arenascope.core.analysis;

import java.util.List;
import java.util.Map;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * The facts a report opens with: where and when the session was recorded and how much it holds.
 *
 * @param name          the session's name
 * @param host          the host it was recorded on
 * @param startEpochNs  wall-clock start, ns since the Unix epoch
 * @param firstEventNs  time of the first event, ns since the session started (the report, the window and
 *                      {@code sites} all give instants since the session's start, not since this event)
 * @param durationNs    time from the first to the last event
 * @param events        events in the trace
 * @param lostEvents    events lost before reaching the trace
 * @param devices       the devices used
 * @param attributes    further facts (tool version, command line, source file)
 */
public record SessionSummary(String name, String host, long startEpochNs, long firstEventNs, long durationNs, long events,
                             long lostEvents, List<DeviceInfo> devices, Map<String, String> attributes) {

    public SessionSummary {
        devices = List.copyOf(devices);
        attributes = Map.copyOf(attributes);
    }

    /** What the session's time counts: time, or entries for a snapshot without timestamps. */
    public TimeAxis timeAxis() {
        return TimeAxis.of(attributes);
    }

    /** The summary of a trace. */
    public static SessionSummary of(TraceView view) {
        SessionInfo s = view.session();
        return new SessionSummary(s.name(), s.host(), s.startEpochNs(), view.startNs(), Math.max(0, view.endNs() - view.startNs()),
                view.eventCount(), view.lostEvents(), s.devices(), s.attributes());
    }
}
