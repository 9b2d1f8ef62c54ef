package dev.arenascope.workloads;

/**
 * One option of a workload.
 *
 * @param name          the option name without dashes, e.g. {@code frames}
 * @param defaultValue  the value used when none is given
 * @param help          one line: what it sets, with its unit
 */
public record WorkloadOption(String name, String defaultValue, String help) {}
