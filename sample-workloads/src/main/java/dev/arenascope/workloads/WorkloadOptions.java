package dev.arenascope.workloads;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.format.Bytes;

/**
 * A workload's option values after checking: every known option has a value (given or default), and
 * each getter checks its range and names the option in its one-line error. Immutable.
 */
public final class WorkloadOptions {
    private final String workload;
    private final Map<String, String> values;

    private WorkloadOptions(String workload, Map<String, String> values) {
        this.workload = workload;
        this.values = values;
    }

    /**
     * Fills defaults and rejects names the workload does not know.
     *
     * @throws IllegalArgumentException {@code "render: unknown option --foo (options: ...)"}
     */
    public static WorkloadOptions parse(String workload, List<WorkloadOption> known, Map<String, String> given) {
        Map<String, String> out = new LinkedHashMap<>();
        for (WorkloadOption o : known) {
            out.put(o.name(), o.defaultValue());
        }
        for (var e : given.entrySet()) {
            if (!out.containsKey(e.getKey())) {
                throw new IllegalArgumentException(workload + ": unknown option --" + e.getKey() + " (options: "
                        + String.join(", ", known.stream().map(o -> "--" + o.name()).toList()) + ")");
            }
            out.put(e.getKey(), e.getValue());
        }
        return new WorkloadOptions(workload, Collections.unmodifiableMap(out));
    }

    /** Every option with its value. */
    public Map<String, String> values() {
        return values;
    }

    /** The raw value. */
    public String string(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException(workload + ": no option --" + name);
        }
        return v;
    }

    /** An integer in {@code [min, max]}. */
    public int intValue(String name, int min, int max) {
        long v = longValue(name, min, max);
        return (int) v;
    }

    /** A long in {@code [min, max]}. */
    public long longValue(String name, long min, long max) {
        String raw = string(name);
        long v;
        try {
            v = Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(workload + ": --" + name + " expects an integer, got '" + raw + "'");
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(workload + ": --" + name + " must be in [" + min + ", " + max + "], got " + v);
        }
        return v;
    }

    /** A byte count ({@code 64MiB}, {@code 1G}, {@code 1048576}) in {@code [min, max]}. */
    public long bytes(String name, long min, long max) {
        String raw = string(name);
        long v;
        try {
            v = Bytes.parse(raw);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(workload + ": --" + name + ": " + e.getMessage());
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(workload + ": --" + name + " must be in [" + Bytes.format(min) + ", "
                    + Bytes.format(max) + "], got " + Bytes.format(v));
        }
        return v;
    }

    /** A number in {@code [min, max]}. */
    public double doubleValue(String name, double min, double max) {
        String raw = string(name);
        double v;
        try {
            v = Double.parseDouble(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(workload + ": --" + name + " expects a number, got '" + raw + "'");
        }
        if (!(v >= min && v <= max)) {
            throw new IllegalArgumentException(workload + ": --" + name + " must be in [" + min + ", " + max + "], got " + raw);
        }
        return v;
    }

    /** One of {@code choices}. */
    public String choice(String name, List<String> choices) {
        String v = string(name);
        if (!choices.contains(v)) {
            throw new IllegalArgumentException(workload + ": --" + name + " must be one of " + String.join(", ", choices) + ", got '" + v + "'");
        }
        return v;
    }
}
