package dev.arenascope.app.info;

/**
 * The exit codes of the {@code arenascope} process (scripts and CI jobs depend on them; they never
 * change meaning). A leaf: it imports nothing of the app.
 */
public final class ExitCodes {
    /** Success. */
    public static final int OK = 0;
    /** An internal error (a bug, or a resource the machine lacks); the message says "run with --debug". */
    public static final int ERROR = 1;
    /** Bad usage or bad input: one line names the option, file, line or byte offset. */
    public static final int USAGE = 2;
    /** {@code plan}: no packing within the capacity was found in time, or none can fit. */
    public static final int NO_FIT = 3;
    /** {@code report --fail-on-regression}: a peak grew past the gate. */
    public static final int REGRESSION = 4;
    /**
     * {@code record}: the workload ran but some events did not reach an output (the disk filled, the live
     * receiver refused the stream or was not there); one line says how many were written or delivered
     * and how many lost.
     */
    public static final int INCOMPLETE = 5;
    /** {@code whatif --check}: the caching allocator model does not reproduce the snapshot; one line names the first entry where they part. */
    public static final int DIVERGED = 6;

    private ExitCodes() {}
}
