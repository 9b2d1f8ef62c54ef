package dev.arenascope.app.aot;

import java.util.List;

/**
 * The JVM options the {@code ./arenascope} launcher adds per command, so that the bench starts its
 * children as a user's command starts ({@code CliBenchTest} holds the launcher to these lists).
 * <ul>
 *   <li>{@link #OPTIONS}: a short-lived decision ({@code plan --capacity}: the search stops at its
 *       first packing, a fraction of a second) runs on the C1 compiler only and the serial collector.
 *       In a fresh JVM on MiniMalloc's problems C2's compiles (and their de-optimisations as the search
 *       changes phase) and G1's set-up cost more CPU than they save.</li>
 *   <li>{@link #BATCH_OPTIONS}: the {@link #BATCH_COMMANDS}, which read a trace, answer and exit, run on
 *       the serial collector. What they allocate they mostly keep (the store's chunks, the site index),
 *       so young collections find little garbage, while G1's write barriers and concurrent refinement
 *       take time from the import thread: on the bench's 455 MB PyTorch snapshot {@code stats} takes
 *       about 7% less wall time and 25% less peak memory (docs/performance.md). They start with a heap
 *       of 6% of the machine's memory (capped by the maximum heap, so a {@code -Xmx} given after it still
 *       holds) rather than the JVM's 1/64: the serial collector's young generation is a third of the heap,
 *       and at 1/64 a job's rank stores, dropped once their row is made, were copied into the old
 *       generation while the next ranks imported (8 × 100 MB ranks: 19 pauses, 3.9 s, against 5 pauses,
 *       0.7 s; docs/performance.md "Jobs").</li>
 * </ul>
 * The window, {@code listen}, {@code record} and {@code bench} keep the JVM's default collector (G1):
 * they run long, stay interactive or measure themselves. The installed packages' launcher passes one
 * set of options to every command, so it keeps G1 too.
 */
public final class LeanJvm {
    /** The options for {@code plan --capacity}, in the order the launcher passes them. */
    public static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** The sub-commands that get {@link #BATCH_OPTIONS}, in the launcher's order. */
    public static final List<String> BATCH_COMMANDS = List.of("stats", "convert", "report", "sites", "query", "calibrate", "pool-bins");

    /** The options for the {@link #BATCH_COMMANDS}. */
    public static final List<String> BATCH_OPTIONS = List.of("-XX:+UseSerialGC", "-XX:InitialRAMPercentage=6");

    private LeanJvm() {}
}
