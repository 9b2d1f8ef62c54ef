package dev.arenascope.core.trace;

import java.util.List;
import java.util.Map;

import dev.arenascope.core.device.DeviceInfo;

/**
 * What a recording says about where it was made.
 *
 * @param name           the session's name (a workload, a file)
 * @param host           the host name
 * @param startEpochNs   wall-clock start, nanoseconds since the Unix epoch
 * @param devices        the devices used, with their memory when opened
 * @param attributes     further facts (tool version, command line, source file); never null
 */
public record SessionInfo(String name, String host, long startEpochNs, List<DeviceInfo> devices, Map<String, String> attributes) {
    public SessionInfo {
        devices = devices == null ? List.of() : List.copyOf(devices);
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    }
}
