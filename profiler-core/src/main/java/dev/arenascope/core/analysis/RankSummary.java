package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * One rank's row of a job's rank table ({@link JobSummary}), computed from that rank's own trace alone:
 * one pass of {@link MemoryAnalysis}' accumulators over its events (peaks, allocations, out-of-memory
 * events, the occupancy the sparkline draws) with its markers, then the {@link SiteAnalysis} of its main
 * memory at that memory's peak.
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
 * @param failure        why the rank could not be read (one line), null when it was
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
 * @param liveOverTime   the main memory's most bytes in use per equal time bucket over {@code durationNs}
 *                       (empty for a failed rank); not to be modified
 * @param sitesAtPeak    live at the main memory's peak, by site (every site), null when failed or no memory
 */
public record RankSummary(String rank, int number, String file, boolean duplicateName, String failure, String problem,
                          String memory, long peakLiveBytes, long peakReservedBytes, long peakAtNs, String step,
                          StepSource stepSource, long outOfMemory, long allocations, long events, long durationNs,
                          long[] liveOverTime, SiteBreakdown sitesAtPeak) {

    /** Buckets of {@link #liveOverTime()}. */
    public static final int SPARK_BUCKETS = 200;

    private static final Pattern PROFILER_STEP = Pattern.compile("^(ProfilerStep#\\d+) START$");

    /** Where a rank's step comes from. */
    public enum StepSource {
        ANNOTATIONS, MARKERS, TIME
    }

    /** Whether the rank was read. */
    public boolean loaded() {
        return failure == null;
    }

    /** The site holding the most at the peak, or null. */
    public SiteBreakdown.Row topSite() {
        return sitesAtPeak == null || sitesAtPeak.rows().isEmpty() ? null : sitesAtPeak.rows().getFirst();
    }

    /** The row of a rank that could not be read. */
    public static RankSummary failed(String rank, int number, String file, boolean duplicateName, String failure) {
        return new RankSummary(rank, number, file, duplicateName, failure, null, null, 0, -1, -1, null, StepSource.TIME,
                0, 0, 0, 0, new long[0], null);
    }

    /**
     * Summarises one rank's trace.
     *
     * @param problem what was wrong with the file though it was read, or null
     */
    public static RankSummary of(String rank, int number, String file, boolean duplicateName, String problem, TraceView view) {
        long n = view.eventCount();
        long from = view.startNs();
        long to = view.endNs();
        int maxId = view.memories().stream().mapToInt(MemoryInfo::id).max().orElse(-1);
        MemoryAnalysis.Accumulator[] byId = new MemoryAnalysis.Accumulator[maxId + 1];
        List<MemoryAnalysis.Accumulator> ordered = new ArrayList<>();
        for (MemoryInfo m : view.memories()) {
            MemoryAnalysis.Accumulator acc = new MemoryAnalysis.Accumulator(m, from, to, SPARK_BUCKETS);
            if (m.id() >= 0) {
                byId[m.id()] = acc;
            }
            ordered.add(acc);
        }
        List<long[]> markerTimes = new ArrayList<>();   // {time, string id}
        for (long i = 0; i < n; i++) {
            Event e = view.event(i);
            if (e.kind() == EventKind.MARKER) {
                markerTimes.add(new long[] {e.timeNs(), e.ref()});
            }
            int id = e.memory();
            if (id >= 0 && id < byId.length && byId[id] != null) {
                byId[id].accept(e);
            }
        }
        List<MemoryAnalysis> memories = new ArrayList<>();
        for (MemoryAnalysis.Accumulator acc : ordered) {
            memories.add(acc.finish());
        }
        long ooms = 0;
        long allocs = 0;
        MemoryAnalysis main = null;
        for (MemoryAnalysis m : memories) {
            ooms += m.outOfMemory();
            allocs += m.allocations();
            if (main == null || m.peakUsedBytes() > main.peakUsedBytes()) {
                main = m;
            }
        }
        long duration = n == 0 ? 0 : Math.max(0, to - from);
        if (main == null) {
            return new RankSummary(rank, number, file, duplicateName, null, problem, null, 0, -1, -1, null, StepSource.TIME,
                    ooms, allocs, n, duration, new long[0], null);
        }
        String step = null;
        StepSource source = StepSource.TIME;
        long at = main.peakUsedAtNs();
        String lastMarker = null;
        String lastStep = null;
        boolean anyStep = false;
        for (long[] mk : markerTimes) {
            String text = view.string((int) mk[1]);
            boolean isStep = text != null && text.startsWith("ProfilerStep#");
            anyStep |= isStep;
            if (at < 0 || mk[0] > at) {
                continue;
            }
            if (text != null) {
                lastMarker = text;
                Matcher sm = PROFILER_STEP.matcher(text);
                if (sm.matches()) {
                    lastStep = sm.group(1);
                }
            }
        }
        if (anyStep) {
            source = StepSource.ANNOTATIONS;
            step = lastStep;
        } else if (!markerTimes.isEmpty()) {
            source = StepSource.MARKERS;
            step = lastMarker;
        }
        int mainId = main.id();
        MemoryInfo info = view.memories().stream().filter(m -> m.id() == mainId).findFirst().orElse(null);
        SiteBreakdown sites = info == null ? null : SiteAnalysis.of(view, info, false).liveAtPeak(SiteAnalysis.By.SITE);
        MemoryAnalysis.HighWater reserved = main.kind() == MemoryKind.POOL || main.kind() == MemoryKind.SEGMENTED
                ? main.highWater("reserved") : null;
        return new RankSummary(rank, number, file, duplicateName, null, problem, main.name(), main.peakUsedBytes(),
                reserved == null ? -1 : reserved.bytes(), at, step, source, ooms, allocs, n, duration,
                main.occupancy().usedMax(), sites);
    }
}
