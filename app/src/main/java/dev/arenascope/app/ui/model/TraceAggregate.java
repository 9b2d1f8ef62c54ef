package dev.arenascope.app.ui.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.core.analysis.MemoryModel;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.analysis.ScopeModel;
import dev.arenascope.core.analysis.ScopeSample;
import dev.arenascope.core.analysis.ScopeSampler;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.util.Progress;

/**
 * One pass over a trace's events that gathers what the scope tree, pool histograms, slot map and
 * timeline markers show. The scope rows and pool bins are the core's own analyses
 * ({@link ScopeAnalysis.Accumulator}, {@link PoolBinAnalysis.Accumulator}: the figures a report
 * prints), their models the report's calibration ({@link MemoryModel#fitScope} over each scope name's
 * samples); this class adds only what the window alone draws: markers, plan tensors, forward-end
 * high-water marks and the pool requests over time. Incremental: {@link #advance} reads only events not
 * read before, so a live session's digest costs what its new events cost. Confined to one thread at a
 * time; views get immutable {@link Snapshot}s.
 */
public final class TraceAggregate {
    private static final int MAX_MARKERS = 100_000;
    private static final int MAX_REQUESTS = 4_000_000;

    private final TraceView trace;
    private long next;
    private final ScopeAnalysis.Accumulator scopes;
    private final PoolBinAnalysis.Accumulator bins = new PoolBinAnalysis.Accumulator();
    private final Map<String, List<ScopeSample>> samplesByName = new LinkedHashMap<>();
    private final List<Marker> markers = new ArrayList<>();
    private final Map<Long, TensorBuilder> tensors = new LinkedHashMap<>();
    private final Map<Integer, Integer> planSteps = new HashMap<>();
    private final Map<Integer, Long> planHeights = new HashMap<>();
    private long[] peakForward = new long[0];
    private long[] requestTime = new long[1024];
    private long[] requestSize = new long[1024];
    private int[] requestPool = new int[1024];
    private boolean[] requestHit = new boolean[1024];
    private int requestCount;
    private int currentStep;
    private final Set<Integer> stagedMemories = new HashSet<>();
    private final ScopeSampler sampler = new ScopeSampler();
    private final Set<Integer> announced = new HashSet<>();

    private static final class TensorBuilder {
        int memory;
        String id;
        long offset;
        long bytes;
        int role;
        int first = Integer.MAX_VALUE;
        int last = Integer.MIN_VALUE;
    }

    public TraceAggregate(TraceView trace) {
        this.trace = trace;
        this.scopes = new ScopeAnalysis.Accumulator(trace, true);
    }

    public TraceView trace() {
        return trace;
    }

    /** Events read so far. */
    public long position() {
        return next;
    }

    /**
     * Reads events up to the trace's current end.
     *
     * @param progress told of progress ({@code "events"} read of those new) every few thousand events,
     *                 and asked whether to stop; null for neither. A cancelled advance stops after a whole
     *                 chunk, with every event before it counted once: the next advance goes on from there.
     * @throws java.util.concurrent.CancellationException when {@code progress} says so
     */
    public void advance(Progress progress) {
        long end = trace.eventCount();
        long total = end - next;
        long start = next;
        memories = trace.memories();
        for (var m : memories) {
            if (announced.add(m.id())) {
                sampler.onMemory(m);
            }
        }
        EventBatch chunk = new EventBatch(CHUNK);
        for (long i = next; i < end; i += CHUNK) {
            long to = Math.min(end, i + CHUNK);
            chunk.clear();
            TraceStore.copy(trace, i, to, chunk);
            for (int k = 0; k < chunk.size(); k++) {
                Event e = chunk.get(k);
                scopes.accept(e);
                bins.accept(e);
                accept(e);
            }
            sampler.consume(chunk, this::str);
            drainSamples();
            next = to;
            if (progress != null) {
                progress.update(to - start, total, "events");
                progress.checkCancelled();
            }
        }
        next = end;
    }

    private static final int CHUNK = 8192;
    private List<MemoryInfo> memories = List.of();

    /** Keeps each scope name's calibration samples (up to a cap a name) for its model. */
    private void drainSamples() {
        for (ScopeSample s : sampler.drainSamples()) {
            List<ScopeSample> list = samplesByName.computeIfAbsent(s.name(), n -> new ArrayList<>());
            if (list.size() < MAX_SAMPLES) {
                list.add(s);
            }
        }
    }

    private static final int MAX_SAMPLES = 4096;

    private String str(int id) {
        String s = trace.string(id);
        return s == null ? "#" + id : s;
    }

    private void accept(Event e) {
        EventKind k = e.kind();
        if (k == null) {
            return;
        }
        int mem = e.memory();
        if (mem >= 0 && mem < memories.size()) {
            if (mem >= peakForward.length) {
                peakForward = Arrays.copyOf(peakForward, Math.max(memories.size(), mem + 1));
            }
            long fwd = memories.get(mem).kind().forward(e.used(), e.aux());
            if (fwd > peakForward[mem]) {
                peakForward[mem] = fwd;
            }
        }
        switch (k) {
            case POOL_REQUEST -> addRequest(e.timeNs(), e.c(), mem, e.has(Event.FLAG_HIT));
            case OUT_OF_MEMORY -> marker(e, e.b(), e.ref() >= 0 ? str(e.ref()) : "");
            case RESET -> marker(e, e.b(), "");
            case MARKER -> marker(e, 0, e.ref() >= 0 ? str(e.ref()) : "");
            case LOSS -> marker(e, e.a(), "");
            case PLAN_LOADED -> planSteps.put(mem, (int) Math.min(Integer.MAX_VALUE, e.b()));
            case PLAN_STEP -> currentStep = (int) e.a();
            case PLAN_HYDRATE -> stagedMemories.add(mem);
            case PLAN_BIND -> {
                TensorBuilder t = tensor(mem, e.ref());
                t.offset = e.a();
                t.bytes = e.b();
                t.role = (int) e.c();
                planHeights.merge(mem, e.a() + e.b(), Math::max);
            }
            case TENSOR_LIVE, TENSOR_DEAD -> {
                TensorBuilder t = tensor(mem, e.ref());
                t.offset = e.a();
                t.bytes = e.b();
                int step = (int) e.c();
                t.first = Math.min(t.first, step);
                t.last = Math.max(t.last, step);
                planHeights.merge(mem, e.a() + e.b(), Math::max);
            }
            default -> {
            }
        }
    }

    private TensorBuilder tensor(int mem, int ref) {
        return tensors.computeIfAbsent(((long) mem << 32) | (ref & 0xffffffffL), key -> {
            TensorBuilder t = new TensorBuilder();
            t.memory = mem;
            t.id = str(ref);
            return t;
        });
    }

    private void marker(Event e, long bytes, String text) {
        if (markers.size() < MAX_MARKERS) {
            markers.add(new Marker(e.timeNs(), e.kind(), e.memory(), bytes, text));
        }
    }

    private void addRequest(long t, long size, int pool, boolean hit) {
        if (requestCount >= MAX_REQUESTS) {
            return;
        }
        if (requestCount == requestTime.length) {
            int cap = requestTime.length * 2;
            requestTime = Arrays.copyOf(requestTime, cap);
            requestSize = Arrays.copyOf(requestSize, cap);
            requestPool = Arrays.copyOf(requestPool, cap);
            requestHit = Arrays.copyOf(requestHit, cap);
        }
        requestTime[requestCount] = t;
        requestSize[requestCount] = size;
        requestPool[requestCount] = pool;
        requestHit[requestCount] = hit;
        requestCount++;
    }

    /** An immutable copy of what has been gathered so far. */
    public Snapshot snapshot() {
        List<ScopeAnalysis> sc = scopes.snapshot(trace.endNs());
        List<PoolBinAnalysis> bs = bins.snapshot(trace.memories());
        Map<String, List<ScopeSample>> samples = new LinkedHashMap<>();
        samplesByName.forEach((name, list) -> samples.put(name, List.copyOf(list)));
        List<TensorSlot> ts = new ArrayList<>(tensors.size());
        for (TensorBuilder t : tensors.values()) {
            int steps = planSteps.getOrDefault(t.memory, Math.max(1, currentStep + 1));
            int first = t.first == Integer.MAX_VALUE ? 0 : t.first;
            int last = t.last == Integer.MIN_VALUE ? steps - 1 : t.last;
            // PLAN_BIND carries the plan role (scratch, persistent, constant); a hydrated constant arena is staged
            int role = t.role == 2 && stagedMemories.contains(t.memory) ? 3 : t.role;
            ts.add(new TensorSlot(t.memory, t.id, t.offset, t.bytes, role, first, last));
        }
        Map<Integer, Long> fwd = new HashMap<>();
        for (int m = 0; m < peakForward.length; m++) {
            fwd.put(m, peakForward[m]);
        }
        return new Snapshot(next, List.copyOf(sc), List.copyOf(bs), Map.copyOf(samples), List.copyOf(markers), List.copyOf(ts),
                Map.copyOf(planHeights), Map.copyOf(fwd), new PoolRequests(Arrays.copyOf(requestTime, requestCount),
                Arrays.copyOf(requestSize, requestCount), Arrays.copyOf(requestPool, requestCount),
                Arrays.copyOf(requestHit, requestCount)));
    }

    /** Pool requests in time order, for reuse-over-time and the mantissa-bits what-if. */
    public record PoolRequests(long[] timeNs, long[] requestedBytes, int[] pool, boolean[] hit) {
        public int size() {
            return timeNs.length;
        }
    }

    /**
     * What a digest gathered.
     *
     * @param events      events read
     * @param scopes      per memory and scope path, in first-seen order (a parent before its children),
     *                    with the executions still open counted up to the trace's end
     * @param bins        per pool and bin, by pool then bin
     * @param samples     per scope name, its calibration samples (up to a cap)
     * @param markers     OOM, reset, loss and user markers in time order
     * @param tensors     plan tensors (slot map)
     * @param planHeights per plan arena, the highest byte any tensor reaches
     * @param peakForward per memory, the high-water of its forward end ({@link dev.arenascope.core.trace.MemoryKind#forward});
     *                    for kinds other than arenas that is the high-water of bytes in use
     * @param requests    every pool request (capped)
     */
    public record Snapshot(long events, List<ScopeAnalysis> scopes, List<PoolBinAnalysis> bins,
                           Map<String, List<ScopeSample>> samples, List<Marker> markers,
                           List<TensorSlot> tensors, Map<Integer, Long> planHeights, Map<Integer, Long> peakForward,
                           PoolRequests requests) {
        public static final Snapshot EMPTY = new Snapshot(0, List.of(), List.of(), Map.of(), List.of(), List.of(), Map.of(), Map.of(),
                new PoolRequests(new long[0], new long[0], new int[0], new boolean[0]));

        /** The forward end's high-water of {@code memory}, -1 when no event of it was read yet. */
        public long peakForward(int memory) {
            return peakForward.getOrDefault(memory, -1L);
        }

        /** The row of {@code path} on {@code memory}, or null. */
        public ScopeAnalysis scope(int memory, String path) {
            for (ScopeAnalysis s : scopes) {
                if (s.memory() == memory && s.path().equals(path)) {
                    return s;
                }
            }
            return null;
        }

        /**
         * The calibrated memory model of {@code scope}'s name, as the report fits it ({@link MemoryModel}
         * over the name's samples), or null when the name has no samples (not an arena scope) or no fit.
         * Costs a fit: callers keep the answer.
         */
        public ScopeModel model(ScopeAnalysis scope) {
            List<ScopeSample> list = samples.get(scope.name());
            if (list == null || list.isEmpty()) {
                return null;
            }
            try {
                return MemoryModel.fitScope(scope.name(), list);
            } catch (RuntimeException e) {
                return null; // samples no model fits: the report shows none either
            }
        }

    }
}
