package dev.arenascope.app.ui.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.analysis.ScopeSample;
import dev.arenascope.core.analysis.ScopeSampler;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;

/**
 * One pass over a trace's events that gathers what the scope tree, pool histograms, slot map and
 * timeline markers show. Incremental: {@link #advance} reads only events not read before, so a live
 * session's digest costs what its new events cost. Confined to one thread at a time; views get
 * immutable {@link Snapshot}s.
 */
public final class TraceDigest {
    private static final int MAX_MARKERS = 100_000;
    private static final int MAX_REQUESTS = 4_000_000;

    private final TraceView trace;
    private long next;
    private final Map<String, ScopeStats> scopes = new LinkedHashMap<>();
    private final Map<Integer, OpenScope> openById = new HashMap<>();
    private final Map<Integer, ArrayDeque<OpenScope>> openByMemory = new HashMap<>();
    private final Map<Long, PoolBinStats> bins = new LinkedHashMap<>();
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
    private final java.util.Set<Integer> stagedMemories = new java.util.HashSet<>();
    private final ScopeSampler sampler = new ScopeSampler();
    private final java.util.Set<Integer> announced = new java.util.HashSet<>();
    private final Map<Integer, ScopeStats> statsByScopeId = new HashMap<>();

    private static final class OpenScope {
        final int id;
        final int memory;
        final ScopeStats stats;
        final long startNs;
        final long entryBytes;
        long peak;
        final Map<String, Long> params = new LinkedHashMap<>();

        OpenScope(int id, int memory, ScopeStats stats, long startNs, long entryBytes) {
            this.id = id;
            this.memory = memory;
            this.stats = stats;
            this.startNs = startNs;
            this.entryBytes = entryBytes;
            this.peak = entryBytes;
        }
    }

    private static final class TensorBuilder {
        int memory;
        String id;
        long offset;
        long bytes;
        int role;
        int first = Integer.MAX_VALUE;
        int last = Integer.MIN_VALUE;
    }

    public TraceDigest(TraceView trace) {
        this.trace = trace;
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
     * @param progress told of progress every few thousand events; may throw to cancel
     */
    public void advance(ProgressSink progress) {
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
            if (trace instanceof EventStore store) {
                store.copyEvents(i, to, chunk);
            } else {
                for (long k = i; k < to; k++) {
                    chunk.add(trace.event(k));
                }
            }
            for (int k = 0; k < chunk.size(); k++) {
                accept(chunk.get(k));
            }
            sampler.onEvents(chunk);
            drainSamples();
            if (progress != null) {
                progress.progress(to - start, total);
            }
        }
        next = end;
    }

    /** Progress callback for {@link #advance}. */
    @FunctionalInterface
    public interface ProgressSink {
        void progress(long done, long total);
    }

    private static final int CHUNK = 8192;
    private java.util.List<dev.arenascope.core.trace.MemoryInfo> memories = List.of();

    private void drainSamples() {
        for (ScopeSample s : sampler.drainSamples()) {
            ScopeStats st = statsByScopeId.remove(s.scopeId());
            if (st != null) {
                st.addSample(s);
            }
        }
    }

    private String str(int id) {
        String s = trace.string(id);
        return s == null ? "#" + id : s;
    }

    private void accept(Event e) {
        EventKind k = e.kind();
        int mem = e.memory();
        long level = e.used(); // all bytes in use: an arena's used gauge already counts both ends
        if (mem >= 0 && mem < memories.size()) {
            if (mem >= peakForward.length) {
                peakForward = Arrays.copyOf(peakForward, Math.max(memories.size(), mem + 1));
            }
            long fwd = memories.get(mem).kind().forward(e.used(), e.aux());
            if (fwd > peakForward[mem]) {
                peakForward[mem] = fwd;
            }
        }
        ArrayDeque<OpenScope> stack = mem >= 0 ? openByMemory.get(mem) : null;
        if (stack != null) {
            for (OpenScope s : stack) {
                if (level > s.peak) {
                    s.peak = level;
                }
            }
        }
        switch (k) {
            case SCOPE_ENTER -> {
                OpenScope parent = openById.get((int) e.c());
                String name = str(e.ref());
                String path = parent == null ? name : parent.stats.path + "/" + name;
                int depth = parent == null ? 0 : parent.stats.depth + 1;
                ScopeStats st = scopes.computeIfAbsent(mem + ":" + path, p -> new ScopeStats(path, name, mem, depth));
                OpenScope os = new OpenScope(e.ref2(), mem, st, e.timeNs(), level);
                sampler.onString(e.ref(), name);
                if (statsByScopeId.size() < 1_000_000) {
                    statsByScopeId.put(e.ref2(), st);
                }
                openById.put(e.ref2(), os);
                openByMemory.computeIfAbsent(mem, m -> new ArrayDeque<>()).push(os);
            }
            case SCOPE_PARAM -> {
                OpenScope os = openById.get(e.ref2());
                if (os != null) {
                    String pn = str(e.ref());
                    sampler.onString(e.ref(), pn);
                    os.params.put(pn, e.a());
                }
            }
            case SCOPE_EXIT -> {
                OpenScope os = openById.remove(e.ref2());
                if (os != null) {
                    ArrayDeque<OpenScope> st = openByMemory.get(os.memory);
                    if (st != null) {
                        st.remove(os);
                    }
                    os.stats.peakBytes = Math.max(os.stats.peakBytes, os.peak);
                    os.stats.addExecution(os.startNs, e.timeNs(), os.peak - os.entryBytes, os.params);
                }
            }
            case ALLOC -> {
                if (stack != null) {
                    boolean bwd = e.has(Event.FLAG_BACKWARD);
                    for (OpenScope s : stack) {
                        s.stats.allocations++;
                        if (bwd) {
                            s.stats.backwardBytes += e.b();
                        } else {
                            s.stats.forwardBytes += e.b();
                        }
                    }
                }
            }
            case POOL_REQUEST -> {
                PoolBinStats b = bin(mem, e.ref());
                b.requests++;
                b.binBytes = Math.max(b.binBytes, e.b());
                b.requestedBytes += e.c();
                b.roundingWaste += Math.max(0, e.b() - e.c());
                boolean hit = e.has(Event.FLAG_HIT);
                if (hit) {
                    b.hits++;
                    if (b.heldBlocks > 0) {
                        b.heldBlocks--;
                        b.heldBytes = Math.max(0, b.heldBytes - e.b());
                    }
                }
                addRequest(e.timeNs(), e.c(), mem, hit);
                if (stack != null) {
                    for (OpenScope s : stack) {
                        s.stats.allocations++;
                        s.stats.forwardBytes += e.b();
                    }
                }
            }
            case POOL_HOLD -> {
                PoolBinStats b = bin(mem, e.ref());
                b.heldBlocks++;
                b.heldBytes += e.b();
                b.maxHeldBytes = Math.max(b.maxHeldBytes, b.heldBytes);
            }
            case POOL_RELEASE -> {
                PoolBinStats b = bin(mem, e.ref());
                if (b.heldBlocks > 0) {
                    b.heldBlocks--;
                    b.heldBytes = Math.max(0, b.heldBytes - e.b());
                }
            }
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

    private PoolBinStats bin(int mem, int bin) {
        return bins.computeIfAbsent(((long) mem << 32) | (bin & 0xffffffffL), key -> new PoolBinStats(mem, bin));
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
        List<ScopeStats> sc = new ArrayList<>(scopes.size());
        for (ScopeStats s : scopes.values()) {
            sc.add(s.copy());
        }
        List<PoolBinStats> bs = new ArrayList<>(bins.size());
        for (PoolBinStats b : bins.values()) {
            bs.add(b.copy());
        }
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
        return new Snapshot(next, List.copyOf(sc), List.copyOf(bs), List.copyOf(markers), List.copyOf(ts),
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
     * @param scopes      per scope path, in first-seen order
     * @param bins        per pool and bin
     * @param markers     OOM, reset, loss and user markers in time order
     * @param tensors     plan tensors (slot map)
     * @param planHeights per plan arena, the highest byte any tensor reaches
     * @param peakForward per memory, the high-water of its forward end ({@link dev.arenascope.core.trace.MemoryKind#forward});
     *                    for kinds other than arenas that is the high-water of bytes in use
     * @param requests    every pool request (capped)
     */
    public record Snapshot(long events, List<ScopeStats> scopes, List<PoolBinStats> bins, List<Marker> markers,
                           List<TensorSlot> tensors, Map<Integer, Long> planHeights, Map<Integer, Long> peakForward,
                           PoolRequests requests) {
        public static final Snapshot EMPTY = new Snapshot(0, List.of(), List.of(), List.of(), List.of(), Map.of(), Map.of(),
                new PoolRequests(new long[0], new long[0], new int[0], new boolean[0]));

        /** The forward end's high-water of {@code memory}, -1 when no event of it was read yet. */
        public long peakForward(int memory) {
            return peakForward.getOrDefault(memory, -1L);
        }

        public List<ScopeStats> scopesOf(int memory) {
            return scopes.stream().filter(s -> s.memory == memory).toList();
        }

        public ScopeStats scope(int memory, String path) {
            for (ScopeStats s : scopes) {
                if (s.memory == memory && s.path.equals(path)) {
                    return s;
                }
            }
            return null;
        }

        public static <T> List<T> listOf(Collection<T> c) {
            return List.copyOf(c);
        }
    }
}
