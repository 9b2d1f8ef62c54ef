package dev.arenascope.app.ui.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.analysis.MemoryModel;
import dev.arenascope.core.analysis.ScopeModel;
import dev.arenascope.core.analysis.ScopeSample;

/**
 * What every execution of one scope path did, summed: the scope tree's row. Mutable while a digest
 * builds it; views receive copies ({@link #copy()}).
 */
public final class ScopeStats {
    private static final int MAX_SAMPLES = 4096;
    private static final int MAX_INTERVALS = 4_000_000;

    public final String path;
    public final String name;
    public final int memory;
    public final int depth;
    public long calls;
    public long allocations;
    public long forwardBytes;
    public long backwardBytes;
    /** Most bytes in use (both ends) in the memory while the scope was open. */
    public long peakBytes;
    /** Most bytes above the entry level needed by one execution. */
    public long peakNeedBytes;
    public long totalNs;
    /** Parameter name to the last value seen. */
    public final Map<String, Long> lastParams = new LinkedHashMap<>();
    /** Executions as calibration samples (up to a cap), from the core's {@code ScopeSampler}. */
    public final List<ScopeSample> samples = new ArrayList<>();
    /** Execution intervals as start/end pairs: {@code intervals[2i], intervals[2i+1]}. */
    long[] intervals = new long[16];
    int intervalCount;

    public ScopeStats(String path, String name, int memory, int depth) {
        this.path = path;
        this.name = name;
        this.memory = memory;
        this.depth = depth;
    }

    void addSample(ScopeSample s) {
        if (samples.size() < MAX_SAMPLES) {
            samples.add(s);
        }
    }

    void addExecution(long startNs, long endNs, long need, Map<String, Long> params) {
        calls++;
        totalNs += endNs - startNs;
        peakNeedBytes = Math.max(peakNeedBytes, need);
        lastParams.putAll(params);
        if (intervalCount < MAX_INTERVALS) {
            if (2 * intervalCount + 2 > intervals.length) {
                intervals = java.util.Arrays.copyOf(intervals, intervals.length * 2);
            }
            intervals[2 * intervalCount] = startNs;
            intervals[2 * intervalCount + 1] = endNs;
            intervalCount++;
        }
    }

    /** Executions recorded (up to a cap), as start/end pairs. */
    public int intervalCount() {
        return intervalCount;
    }

    public long intervalStart(int i) {
        return intervals[2 * i];
    }

    public long intervalEnd(int i) {
        return intervals[2 * i + 1];
    }

    /** Index of the first interval ending after {@code ns} (intervals are in start order and do not overlap). */
    public int firstIntervalEndingAfter(long ns) {
        int lo = 0;
        int hi = intervalCount;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (intervals[2 * mid + 1] <= ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * The calibrated memory model of this scope (bytes its own allocations request as a linear function
     * of its parameters, with the fit's error), or null when it has no samples (not an arena scope).
     */
    public ScopeModel model() {
        return samples.isEmpty() ? null : MemoryModel.fitScope(name, samples);
    }

    public ScopeStats copy() {
        ScopeStats c = new ScopeStats(path, name, memory, depth);
        c.calls = calls;
        c.allocations = allocations;
        c.forwardBytes = forwardBytes;
        c.backwardBytes = backwardBytes;
        c.peakBytes = peakBytes;
        c.peakNeedBytes = peakNeedBytes;
        c.totalNs = totalNs;
        c.lastParams.putAll(lastParams);
        c.samples.addAll(samples);
        c.intervals = java.util.Arrays.copyOf(intervals, Math.max(2, 2 * intervalCount));
        c.intervalCount = intervalCount;
        return c;
    }
}
