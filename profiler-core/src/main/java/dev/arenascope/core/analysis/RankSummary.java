package dev.arenascope.core.analysis;

import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.MemberRefusal;

/**
 * One rank's row of a job's rank table ({@link JobSummary}), computed from that rank's own trace alone:
 * one pass over its events ({@link RankPass}: per memory the peak in use and when it was first reached,
 * the reserved peak, allocations, out-of-memory events, and its events replayed into a bounded
 * {@link AllocationIndex} that the {@link SiteAnalysis} at its peak is answered from; the markers), fed as
 * the import delivers the events (a tap beside the store: they are read once, as they are parsed) or from
 * the store. The sparkline is the store's gauge index. The figures are {@link MemoryAnalysis}' by the same
 * definitions.
 *
 * <h2>Definitions</h2>
 * <ul>
 *   <li><b>main memory</b>: the rank's memory with the largest peak in use (lowest id on ties), the one
 *       {@code sites} answers for by default; for a PyTorch snapshot {@code cuda:N}'s default pools.</li>
 *   <li><b>peak live</b>: the main memory's peak in use; <b>peak reserved</b>: its reserved high-water mark
 *       (pools and imported caching allocators; -1 for memories that reserve nothing).</li>
 *   <li><b>peak at</b>: when the main memory first reached its peak, ns since the rank's session start.</li>
 *   <li><b>step</b>: the last {@code ProfilerStep#N START} marker (PyTorch's {@code external_annotations})
 *       at or before that time, as {@code ProfilerStep#N} ({@link StepSource#ANNOTATIONS}); without those,
 *       the last marker's text at or before it ({@link StepSource#MARKERS}); else null ({@link StepSource#TIME}).</li>
 *   <li><b>out of memory</b>, <b>allocations</b>: summed over all the rank's memories.</li>
 * </ul>
 *
 * @param rank           the rank's name
 * @param number         its number ({@code rank3}: 3), -1 when named otherwise
 * @param file           the file it was read from (a path as given)
 * @param duplicateName  whether another file of the job resolved to the same name first
 * @param failure        why the rank could not be read, in words (one line), null when it was
 * @param failureDetail  the reader's exact words where a reader refused the rank's file ({@code at byte 0: unknown
 *                       opcode 0x6e}), kept apart from the reason; null otherwise
 * @param problem        what was wrong with a file that was still read (damage), null when sound
 * @param memory         the main memory's name, null when the rank has none
 * @param peakLiveBytes  see above, 0 for a failed rank
 * @param peakReservedBytes see above
 * @param peakAtNs       see above, -1 when never used
 * @param step           see above
 * @param stepSource     where {@code step} comes from
 * @param outOfMemory    out-of-memory events
 * @param allocations    allocation and pool-request events
 * @param events         events in the rank's trace
 * @param durationNs     time from its first to its last event
 * @param liveOverTime   the main memory's most bytes in use per equal time bucket over {@code durationNs}, as
 *                       the store's gauge index (the timeline's) has it: the value in force as a bucket
 *                       opens counts
 *                       (empty for a failed rank); not to be modified
 * @param sitesAtPeak    live at the main memory's peak, by site (every site), null when failed or no memory
 */
public record RankSummary(String rank, int number, String file, boolean duplicateName, String failure, String failureDetail,
                          String problem,
                          String memory, long peakLiveBytes, long peakReservedBytes, long peakAtNs, String step,
                          StepSource stepSource, long outOfMemory, long allocations, long events, long durationNs,
                          long[] liveOverTime, SiteBreakdown sitesAtPeak) {

    /** Buckets of {@link #liveOverTime()}. */
    public static final int SPARK_BUCKETS = 200;


    /** Where a rank's step comes from. */
    public enum StepSource {
        ANNOTATIONS, MARKERS, TIME
    }

    /** Whether the rank was read. */
    public boolean loaded() {
        return failure == null;
    }

    /** Why the rank could not be read in one line, the reader's words after the reason; null when it was read. */
    public String failureLine() {
        return failure == null ? null : new MemberRefusal(failure, failureDetail).line();
    }

    /** The site holding the most at the peak, or null. */
    public SiteBreakdown.Row topSite() {
        return sitesAtPeak == null || sitesAtPeak.rows().isEmpty() ? null : sitesAtPeak.rows().getFirst();
    }

    /** The row of a rank that could not be read. */
    public static RankSummary failed(String rank, int number, String file, boolean duplicateName, String failure) {
        return failed(rank, number, file, duplicateName, failure, null);
    }

    /** The row of a rank whose file a reader refused: the reason in words and the reader's own words apart. */
    public static RankSummary failed(String rank, int number, String file, boolean duplicateName, String failure, String failureDetail) {
        return new RankSummary(rank, number, file, duplicateName, failure, failureDetail, null, null, 0, -1, -1, null, StepSource.TIME,
                0, 0, 0, 0, new long[0], null);
    }

    /**
     * Summarises one rank's trace.
     *
     * @param problem what was wrong with the file though it was read, or null
     */
    public static RankSummary of(String rank, int number, String file, boolean duplicateName, String problem, TraceView view) {
        return RankPass.of(view).row(rank, number, file, duplicateName, problem, view);
    }
}
