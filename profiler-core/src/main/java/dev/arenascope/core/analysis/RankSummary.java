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
 * the reserved peak, allocations, out-of-memory events; the markers; for the main memory the most in use
 * per time bucket for the sparkline, and its events replayed into the bounded {@link AllocationIndex}
 * that the {@link SiteAnalysis} at its peak is answered from). The main memory is known before the pass
 * from the store's gauge index ({@link TraceView#peakUsed}); should the events read name another (a live
 * store that grew meanwhile), that one is replayed on its own. The figures are {@link MemoryAnalysis}' by
 * the same definitions.
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
        // read once: a live store may register memories and add events while this runs (what came after is left out)
        List<MemoryInfo> memories = List.copyOf(view.memories());
        long n = view.eventCount();
        long from = view.startNs();
        long to = view.endNs();
        int maxId = memories.stream().mapToInt(MemoryInfo::id).max().orElse(-1);
        int ids = maxId + 1;
        boolean[] known = new boolean[ids];
        for (MemoryInfo m : memories) {
            if (m.id() >= 0) {
                known[m.id()] = true;
            }
        }
        // the main memory as the store's gauge index names it (its peaks are the events' own), so that the
        // one pass below can replay it into its allocation index while it takes the other figures
        MemoryInfo guess = null;
        for (MemoryInfo m : memories) {
            if (m.id() >= 0 && (guess == null || view.peakUsed(m.id()) > view.peakUsed(guess.id()))) {
                guess = m;
            }
        }
        int mainId = guess == null ? -1 : guess.id();
        List<SiteQuestion> atPeak = List.of(new SiteQuestion.AtPeak());
        AllocationIndex index = guess == null ? null : AllocationIndex.fed(guess, atPeak);
        // one pass over primitive columns (a store decodes a block at a time): per memory its peak and
        // when it was first reached, its reserved peak, allocations, out-of-memory events; for the main
        // memory the most in use per time bucket and its allocation index; the markers with their times
        long[] peak = new long[ids];
        long[] peakAt = new long[ids];
        long[] aux = new long[ids];
        long[] allocations = new long[ids];
        long[] ooms = new long[ids];
        Arrays.fill(peakAt, -1);
        Spark spark = new Spark(from, to);
        List<long[]> markerTimes = new ArrayList<>();   // {time, string id}
        long eff = Long.MIN_VALUE;
        EventBatch b = new EventBatch(8192);
        for (long at0 = 0; at0 < n; at0 += b.size()) {
            b.clear();
            long end = Math.min(n, at0 + 8192);
            TraceStore.copy(view, at0, end, b);
            for (int k = 0; k < b.size(); k++) {
                int kind = b.kindCode(k);
                long t = b.time(k);
                eff = Math.max(eff, t);
                if (kind == MARKER) {
                    markerTimes.add(new long[] {t, b.ref(k)});
                }
                int id = b.memory(k);
                if (id < 0 || id >= ids || !known[id]) {
                    continue;
                }
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
                if (id != mainId) {
                    continue;
                }
                index.step(b, k, at0 + k, eff);
                spark.add(t, used);
            }
        }
        if (index != null) {
            index.finish(n, eff);
        }
        long oomTotal = 0;
        long allocTotal = 0;
        MemoryInfo main = null;
        for (MemoryInfo m : memories) {
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
        SiteAnalysis analysis = main.id() == mainId ? SiteAnalysis.of(index, view, false)
                // the events read disagree with the gauge index (a live store that grew meanwhile): replay the main one
                : SiteAnalysis.of(view, main, false, atPeak);
        long[] liveOverTime = main.id() == mainId ? spark.buckets() : Spark.of(view, main.id(), n, from, to);
        SiteBreakdown sites = analysis.ask(new SiteQuestion.AtPeak(), SiteAnalysis.By.SITE);
        boolean reserves = main.kind() == MemoryKind.POOL || main.kind() == MemoryKind.SEGMENTED;
        return new RankSummary(rank, number, file, duplicateName, null, problem, main.name(), peak[main.id()],
                reserves ? aux[main.id()] : -1, at, step, source, oomTotal, allocTotal, n, duration, liveOverTime, sites);
    }

    /** The most in use per equal time bucket of {@code [from, to]}, fed one memory's events in order. */
    private static final class Spark {
        private final long from;
        private final double span;
        private final long[] most = new long[SPARK_BUCKETS];
        private final long[] lastIn = new long[SPARK_BUCKETS];
        private final boolean[] touched = new boolean[SPARK_BUCKETS];

        Spark(long from, long to) {
            this.from = from;
            this.span = Math.max(1, to - from + 1);
        }

        void add(long t, long used) {
            int bk = (int) Math.min(SPARK_BUCKETS - 1, Math.max(0, (long) ((t - from) / span * SPARK_BUCKETS)));
            if (!touched[bk] || used > most[bk]) {
                most[bk] = used;
            }
            touched[bk] = true;
            lastIn[bk] = used;
        }

        /** The buckets; one without an event holds what the last event before it left. */
        long[] buckets() {
            for (int k = 1; k < SPARK_BUCKETS; k++) {
                if (!touched[k]) {
                    most[k] = lastIn[k - 1];
                    lastIn[k] = lastIn[k - 1];
                }
            }
            return most;
        }

        /** The buckets of memory {@code id} over the first {@code n} events of {@code view}, by a pass of their own. */
        static long[] of(TraceView view, int id, long n, long from, long to) {
            Spark s = new Spark(from, to);
            EventBatch b = new EventBatch(8192);
            for (long at0 = 0; at0 < n; at0 += b.size()) {
                b.clear();
                TraceStore.copy(view, at0, Math.min(n, at0 + 8192), b);
                for (int k = 0; k < b.size(); k++) {
                    if (b.memory(k) == id) {
                        s.add(b.time(k), b.used(k));
                    }
                }
            }
            return s.buckets();
        }
    }
}
