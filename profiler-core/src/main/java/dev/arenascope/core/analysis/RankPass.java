package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * The one pass a rank's row ({@link RankSummary}) takes over its events: fed either as an import delivers
 * them (a tap beside the store: the events are then read once, while they are parsed, and never decoded
 * back from the store) or from a store's primitive columns ({@link #of(TraceView)}). Per memory it keeps
 * the peak in use and the time it was first reached, the reserved peak, the allocations and
 * out-of-memory events, and replays the memory's events into a bounded {@link AllocationIndex} for the
 * sites at its peak (the live allocations and those live at the peak so far: the rank's live set, not its
 * allocations); the markers with their times.
 *
 * <p>Threads: one thread feeds it (the import's sink thread, or the caller), then {@link #summary} is
 * called once the feeding thread's work is visible to the caller (the import returned).
 */
public final class RankPass implements EventSink {
    private static final int MARKER = EventKind.MARKER.code();
    private static final int ALLOC = EventKind.ALLOC.code();
    private static final int POOL_REQUEST = EventKind.POOL_REQUEST.code();
    private static final int OOM = EventKind.OUT_OF_MEMORY.code();
    private static final Pattern PROFILER_STEP = Pattern.compile("^(ProfilerStep#\\d+) START$");
    private static final List<SiteQuestion> AT_PEAK = List.of(new SiteQuestion.AtPeak());

    private MemoryInfo[] memories = new MemoryInfo[4];
    private AllocationIndex[] index = new AllocationIndex[4];
    private long[] peak = new long[4];
    private long[] peakAt = filled(4);
    private long[] aux = new long[4];
    private long[] allocations = new long[4];
    private long[] ooms = new long[4];
    private final List<long[]> markers = new ArrayList<>(); // {time, string id}
    private long events;
    private long first;
    private long eff = Long.MIN_VALUE;

    /** An empty pass, to be fed. */
    public RankPass() {}

    /** The pass over the events of {@code view} as they are now (a live store's later events are left out). */
    public static RankPass of(TraceView view) {
        RankPass p = new RankPass();
        for (MemoryInfo m : List.copyOf(view.memories())) {
            p.onMemory(m);
        }
        long n = view.eventCount();
        EventBatch b = new EventBatch(8192);
        for (long at = 0; at < n; at += b.size()) {
            b.clear();
            TraceStore.copy(view, at, Math.min(n, at + 8192), b);
            p.onEvents(b);
        }
        return p;
    }

    /** Events this pass was fed. */
    public long events() {
        return events;
    }

    @Override
    public void onMemory(MemoryInfo m) {
        int id = m.id();
        if (id < 0) {
            return;
        }
        if (id >= memories.length) {
            int cap = Math.max(id + 1, memories.length * 2);
            memories = Arrays.copyOf(memories, cap);
            index = Arrays.copyOf(index, cap);
            peak = Arrays.copyOf(peak, cap);
            int was = peakAt.length;
            peakAt = Arrays.copyOf(peakAt, cap);
            Arrays.fill(peakAt, was, cap, -1);
            aux = Arrays.copyOf(aux, cap);
            allocations = Arrays.copyOf(allocations, cap);
            ooms = Arrays.copyOf(ooms, cap);
        }
        if (memories[id] == null) {
            memories[id] = m;
            index[id] = AllocationIndex.fed(m, AT_PEAK);
        }
    }

    @Override
    public void onEvents(EventBatch b) {
        for (int k = 0, size = b.size(); k < size; k++) {
            long idx = events++;
            int kind = b.kindCode(k);
            long t = b.time(k);
            if (idx == 0) {
                first = t;
            }
            if (t > eff) {
                eff = t;
            }
            if (kind == MARKER) {
                markers.add(new long[] {t, b.ref(k)});
            }
            int id = b.memory(k);
            if (id < 0 || id >= memories.length || memories[id] == null) {
                continue;
            }
            long used = b.used(k);
            if (used > peak[id]) {
                peak[id] = used;
                peakAt[id] = t;
            }
            long a = b.aux(k);
            if (a > aux[id]) {
                aux[id] = a;
            }
            if (kind == ALLOC || kind == POOL_REQUEST) {
                allocations[id]++;
            } else if (kind == OOM) {
                ooms[id]++;
            }
            index[id].step(b, k, idx, eff);
        }
    }

    /**
     * The rank's row, its names and strings, stacks and the sparkline's gauges from {@code view}, the
     * store its events went to. When that store holds other events than this pass was fed (an
     * {@code .astrace} whose chunks the store adopted without decoding them), the row is made by a pass
     * over the store instead.
     *
     * @param problem what was wrong with the file though it was read, or null
     */
    public RankSummary summary(String rank, int number, String file, boolean duplicateName, String problem, TraceView view) {
        if (view.eventCount() != events) {
            return of(view).row(rank, number, file, duplicateName, problem, view);
        }
        return row(rank, number, file, duplicateName, problem, view);
    }

    /** The row of the events fed, names, strings and stacks from {@code view}; once. */
    RankSummary row(String rank, int number, String file, boolean duplicateName, String problem, TraceView view) {
        long n = events;
        long from = n == 0 ? 0 : first;
        long to = n == 0 ? 0 : eff;
        long oomTotal = 0;
        long allocTotal = 0;
        MemoryInfo main = null;
        for (MemoryInfo m : memories) {
            if (m == null) {
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
            return new RankSummary(rank, number, file, duplicateName, null, null, problem, null, 0, -1, -1, null,
                    RankSummary.StepSource.TIME, oomTotal, allocTotal, n, duration, new long[0], null);
        }
        long at = peakAt[main.id()];
        String lastMarker = null;
        String lastStep = null;
        boolean anyStep = false;
        for (long[] mk : markers) {
            String text = view.string((int) mk[1]);
            anyStep |= text != null && text.startsWith("ProfilerStep#");
            if (at < 0 || mk[0] > at || text == null) {
                continue;
            }
            lastMarker = text;
            Matcher sm = PROFILER_STEP.matcher(text);
            if (sm.matches()) {
                lastStep = sm.group(1);
            }
        }
        String step = null;
        RankSummary.StepSource source = RankSummary.StepSource.TIME;
        if (anyStep) {
            source = RankSummary.StepSource.ANNOTATIONS;
            step = lastStep;
        } else if (!markers.isEmpty()) {
            source = RankSummary.StepSource.MARKERS;
            step = lastMarker;
        }
        AllocationIndex x = index[main.id()];
        x.finish(n, eff);
        SiteBreakdown sites = SiteAnalysis.of(x, view, false).ask(new SiteQuestion.AtPeak(), SiteAnalysis.By.SITE);
        boolean reserves = main.kind() == MemoryKind.POOL || main.kind() == MemoryKind.SEGMENTED;
        return new RankSummary(rank, number, file, duplicateName, null, null, problem, main.name(), peak[main.id()],
                reserves ? aux[main.id()] : -1, at, step, source, oomTotal, allocTotal, n, duration,
                liveOverTime(view, main.id(), from, to), sites);
    }

    /**
     * {@code was}, a row of {@code view} made when it held fewer events, brought up to date from the
     * store's indexes alone (no pass over the events, so in time independent of their number): the events,
     * the duration, the main memory's peak in use and reserved peak, the sparkline. Its step, time of the
     * peak, sites at the peak, allocations and out-of-memory events stay as they were when {@code was} was
     * made: what a live job shows for a rank between two full summaries.
     */
    public static RankSummary refreshed(RankSummary was, TraceView view) {
        if (!was.loaded() || was.memory() == null) {
            return was;
        }
        MemoryInfo main = null;
        for (MemoryInfo m : List.copyOf(view.memories())) {
            if (m.name().equals(was.memory())) {
                main = m;
                break;
            }
        }
        if (main == null) {
            return was;
        }
        long n = view.eventCount();
        long from = view.startNs();
        long to = view.endNs();
        boolean reserves = main.kind() == MemoryKind.POOL || main.kind() == MemoryKind.SEGMENTED;
        return new RankSummary(was.rank(), was.number(), was.file(), was.duplicateName(), null, null, was.problem(), was.memory(),
                Math.max(was.peakLiveBytes(), view.peakUsed(main.id())),
                reserves ? Math.max(was.peakReservedBytes(), view.peakAux(main.id())) : -1, was.peakAtNs(), was.step(),
                was.stepSource(), was.outOfMemory(), was.allocations(), n, n == 0 ? 0 : Math.max(0, to - from),
                liveOverTime(view, main.id(), from, to), was.sitesAtPeak());
    }

    /**
     * The most bytes in use per {@link RankSummary#SPARK_BUCKETS} equal buckets of {@code [from, to]},
     * from the store's gauge index (the value in force as a bucket opens counts, as on the timeline).
     */
    private static long[] liveOverTime(TraceView view, int memory, long from, long to) {
        GaugeSeries g = view.gauges(memory, from, to + 1, RankSummary.SPARK_BUCKETS);
        long[] out = Arrays.copyOf(g.usedMax(), RankSummary.SPARK_BUCKETS);
        return out;
    }

    private static long[] filled(int n) {
        long[] a = new long[n];
        Arrays.fill(a, -1);
        return a;
    }
}
