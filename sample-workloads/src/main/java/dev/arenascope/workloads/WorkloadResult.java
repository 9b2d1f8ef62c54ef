package dev.arenascope.workloads;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a workload run did.
 *
 * @param workload  its name
 * @param device    the device id it ran on ({@code host}, {@code virtual}, {@code cuda:0})
 * @param summary   one line in the workload's own words (e.g. {@code 96 frames in 11 batches})
 * @param figures   named counts and byte figures (e.g. {@code frames}, {@code arena_peak_bytes}); never null
 */
public record WorkloadResult(String workload, String device, String summary, Map<String, Long> figures) {
    public WorkloadResult {
        figures = figures == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    }
}
