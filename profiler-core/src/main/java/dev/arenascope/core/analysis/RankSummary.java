package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * One rank's row of a job's rank table ({@link JobSummary}), computed from that rank's own trace alone:
 * one pass over its events' primitive columns (per memory the peak in use and when it was first reached,
 * the reserved peak, allocations, out-of-memory events, the most in use per time bucket for the
 * sparkline; the markers), then the {@link SiteAnalysis} of its main memory at that memory's peak. The
 * figures are {@link MemoryAnalysis}' by the same definitions.
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

    private static final int MARKER = EventKind.MARKER.code();
    private static final int ALLOC = EventKind.ALLOC.code();
    private static final int POOL_REQUEST = EventKind.POOL_REQUEST.code();
    private static final int OOM = EventKind.OUT_OF_MEMORY.code();
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
        int ids = maxId + 1;
        // one pass over primitive columns (a store decodes a block at a time): per memory its peak and
        // when it was first reached, its reserved peak, allocations, out-of-memory events and the most in
        // use per time bucket; the markers with their times
        long[] peak = new long[ids];
        long[] peakAt = new long[ids];
        long[] aux = new long[ids];
        long[] allocations = new long[ids];
        long[] ooms = new long[ids];
        long[][] buckets = new long[ids][];
        long[][] lastIn = new long[ids][];
        boolean[][] touched = new boolean[ids][];
        Arrays.fill(peakAt, -1);
        for (MemoryInfo m : view.memories()) {
            if (m.id() >= 0) {
                buckets[m.id()] = new long[SPARK_BUCKETS];
                lastIn[m.id()] = new long[SPARK_BUCKETS];
                touched[m.id()] = new boolean[SPARK_BUCKETS];
            }
        }
        double span = Math.max(1, to - from + 1);
        List<long[]> markerTimes = new ArrayList<>();   // {time, string id}
        EventBatch b = new EventBatch(8192);
        for (long at0 = 0; at0 < n; at0 += b.size()) {
            b.clear();
            long end = Math.min(n, at0 + 8192);
            TraceStore.copy(view, at0, end, b);
            for (int k = 0; k < b.size(); k++) {
                int kind = b.kindCode(k);
                if (kind == MARKER) {
                    markerTimes.add(new long[] {b.time(k), b.ref(k)});
                }
                int id = b.memory(k);
                if (id < 0 || id >= ids || buckets[id] == null) {
                    continue;
                }
                long t = b.time(k);
                long used = b.used(k);
                if (used > peak[id]) {
                    peak[id] = used;
                    peakAt[id] = t;
                }
                aux[id] = Math.max(aux[id], b.aux(k));
                if (kind == ALLOC || kind == POOL_REQUEST) {
                    allocations[id]++;
                } else if (kind == OOM) {
                    ooms[id]++;
                }
                int bk = (int) Math.min(SPARK_BUCKETS - 1, Math.max(0, (long) ((t - from) / span * SPARK_BUCKETS)));
                long[] bu = buckets[id];
                if (!touched[id][bk] || used > bu[bk]) {
                    bu[bk] = used;
                }
                touched[id][bk] = true;
                lastIn[id][bk] = used;
            }
        }
        // a bucket without an event holds what the last event before it left
        for (int id = 0; id < ids; id++) {
            if (buckets[id] == null) {
                continue;
            }
            for (int k = 1; k < SPARK_BUCKETS; k++) {
                if (!touched[id][k]) {
                    buckets[id][k] = lastIn[id][k - 1];
                    lastIn[id][k] = lastIn[id][k - 1];
                }
            }
        }
        long oomTotal = 0;
        long allocTotal = 0;
        MemoryInfo main = null;
        for (MemoryInfo m : view.memories()) {
            if (m.id() < 0) {
                continue;
            }
            oomTotal += ooms[m.id()];
            allocTotal += allocations[m.id()];
            if (main == null || peak[m.id()] > peak[main.id()]) {
                main = m;
            }
        }
        long duration = n == 0 ? 0 : Math.max(0, to - from);
        if (main == null) {
            return new RankSummary(rank, number, file, duplicateName, null, problem, null, 0, -1, -1, null, StepSource.TIME,
                    oomTotal, allocTotal, n, duration, new long[0], null);
        }
        String step = null;
        StepSource source = StepSource.TIME;
        long at = peakAt[main.id()];
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
        SiteBreakdown sites = SiteAnalysis.of(view, main, false).ask(new SiteQuestion.AtPeak(), SiteAnalysis.By.SITE);
        boolean reserves = main.kind() == MemoryKind.POOL || main.kind() == MemoryKind.SEGMENTED;
        return new RankSummary(rank, number, file, duplicateName, null, problem, main.name(), peak[main.id()],
                reserves ? aux[main.id()] : -1, at, step, source, oomTotal, allocTotal, n, duration, buckets[main.id()], sites);
    }
}
