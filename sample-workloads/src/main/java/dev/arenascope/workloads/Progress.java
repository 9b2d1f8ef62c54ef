package dev.arenascope.workloads;

/**
 * Where a running workload reports how far it got, and learns whether to stop. Called on the
 * workload's thread; implementations must be cheap (a few calls per batch or step).
 */
public interface Progress {

    /** Ignores every report and never cancels. */
    Progress NONE = (stage, done, total) -> { };

    /**
     * A step finished.
     *
     * @param stage  what is being done, e.g. {@code "batch"}
     * @param done   steps done so far
     * @param total  steps planned, or -1 when open-ended
     */
    void update(String stage, long done, long total);

    /** Whether the workload should stop at the next step boundary (a live demo closed). */
    default boolean cancelled() {
        return false;
    }
}
