package dev.arenascope.workloads;

import java.util.List;
import java.util.Map;

import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.util.Progress;

/**
 * A sample program that does real work on one of the core's allocators and publishes every
 * allocation to a {@link Session}: what {@code arenascope record} runs and what the window's live demo
 * starts.
 *
 * <p>The caller owns the session and the device: it attaches its sinks (a trace file, a live link,
 * the window's store) before {@link #run}, and closes both afterwards. A workload frees every memory it
 * created before it returns, also when it fails or is cancelled.
 *
 * <pre>{@code
 * Workload render = Workloads.find("render");
 * try (Session session = new Session("render"); MemoryDevice device = new HostDevice()) {
 *     session.addSink(mySink);
 *     WorkloadResult r = render.run(session, device, render.parse(Map.of("frames", "96")), Progress.NONE);
 * }
 * }</pre>
 */
public interface Workload {

    /** The name typed after {@code arenascope record}: {@code render}, {@code inference}, {@code particles}. */
    String name();

    /** One line for help texts. */
    String summary();

    /** The options {@link #run} understands, with their defaults. */
    List<WorkloadOption> options();

    /**
     * Checks option values (by name, without the leading dashes), fills in defaults and checks every
     * value's form and range, so a bad option fails before anything is recorded.
     *
     * @throws IllegalArgumentException naming the first unknown option or bad value, in one line
     */
    default WorkloadOptions parse(Map<String, String> values) {
        WorkloadOptions options = WorkloadOptions.parse(name(), options(), values);
        validate(options);
        return options;
    }

    /**
     * Reads every option the way {@link #run} will, throwing on the first bad one.
     *
     * @throws IllegalArgumentException {@code "NAME: --option ..."}
     */
    void validate(WorkloadOptions options);

    /**
     * Runs to completion (or until {@link Progress#isCancelled()}), publishing to {@code session}.
     *
     * @param session  where events go; the caller has attached its sinks
     * @param device   the device whose memory the workload's allocators claim
     * @param options  from {@link #parse}
     * @param progress told of each step; polled for cancellation
     * @return what was done, for the summary line
     * @throws RuntimeException when the device runs out of memory or fails; memories are freed first
     */
    WorkloadResult run(Session session, MemoryDevice device, WorkloadOptions options, Progress progress);
}
