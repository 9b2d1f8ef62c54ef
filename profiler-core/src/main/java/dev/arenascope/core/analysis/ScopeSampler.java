package dev.arenascope.core.analysis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * Turns an arena's event stream into {@link ScopeSample}s: one per closed scope, with its params, the
 * bytes of the allocations made directly inside it and its footprint.
 *
 * <p>It is an {@link EventSink}, so it can listen to a live {@code Session} (the render workload
 * calibrates itself this way while it records) or be fed a stored trace with {@link #of(TraceView)}.
 * Only memories of kind {@link MemoryKind#ARENA} are followed. An allocation belongs to the innermost
 * open scope of its memory; scopes on one arena are assumed to nest (one thread per arena, as the
 * arena itself requires). Events that do not fit (an exit without its enter, a param of an unknown
 * scope) are counted in {@link #ignoredEvents()} and otherwise skipped.
 *
 * <p>Events arrive from one thread at a time (a session's drain, or a {@code flush()} caller);
 * {@link #samples()} and {@link #drainSamples()} may be called from any thread and see every scope
 * closed by the events delivered so far (call the session's {@code flush()} first to include
 * everything published).
 */
public final class ScopeSampler implements EventSink {
    private final Map<Integer, String> strings = new HashMap<>();
    private final Map<Integer, ArenaState> arenas = new HashMap<>();
    private final List<ScopeSample> samples = new ArrayList<>();
    private long ignored;
    /** The most samples kept per scope name, 0 for every one (see {@link #bounded}). */
    private final int perName;
    private final Map<String, Thinned> thinned = new LinkedHashMap<>();

    /** A sampler that keeps every closed scope. */
    public ScopeSampler() {
        this(0);
    }

    private ScopeSampler(int perName) {
        this.perName = perName;
    }

    /**
     * A sampler that keeps, per scope name, at most {@code 2 * perName} executions spread evenly over
     * the stream (every one until {@code 2 * perName}, then every other, every fourth, ...: a
     * systematic sample, the same for the same trace): memory bounded by the scope names, not by a
     * trace's millions of executions. {@link #samples()} gives each name's executions together, names
     * in the order they first closed, each name's in the order they closed (what a fit per name reads).
     */
    public static ScopeSampler bounded(int perName) {
        if (perName < 1) {
            throw new IllegalArgumentException("samples per scope name must be at least 1, got " + perName);
        }
        return new ScopeSampler(perName);
    }

    /** One scope name's kept executions: every {@code stride}-th of those closed. */
    private static final class Thinned {
        final ArrayList<ScopeSample> kept = new ArrayList<>();
        long seen;
        long stride = 1;
    }

    private void keep(ScopeSample done) {
        if (perName == 0) {
            samples.add(done);
            return;
        }
        Thinned t = thinned.computeIfAbsent(done.name(), k -> new Thinned());
        if (t.seen++ % t.stride != 0) {
            return;
        }
        t.kept.add(done);
        if (t.kept.size() >= 2 * perName) {
            // keep every other one: those whose number is a multiple of the doubled stride
            int w = 0;
            for (int i = 0; i < t.kept.size(); i += 2) {
                t.kept.set(w++, t.kept.get(i));
            }
            t.kept.subList(w, t.kept.size()).clear();
            t.stride *= 2;
        }
    }

    private List<ScopeSample> all() {
        if (perName == 0) {
            return List.copyOf(samples);
        }
        List<ScopeSample> out = new ArrayList<>();
        thinned.values().forEach(t -> out.addAll(t.kept));
        return List.copyOf(out);
    }

    /** Samples every closed scope of a stored trace. */
    public static List<ScopeSample> of(TraceView trace) {
        ScopeSampler s = new ScopeSampler();
        for (MemoryInfo m : trace.memories()) {
            s.onMemory(m);
        }
        long n = trace.eventCount();
        EventBatch batch = new EventBatch(4096);
        for (long i = 0; i < n; i++) {
            batch.add(trace.event(i));
            if (batch.size() == 4096 || i == n - 1) {
                s.consume(batch, trace::string);
                batch.clear();
            }
        }
        return s.samples();
    }

    /** Samples a list of events whose strings {@code strings} resolves. */
    public static List<ScopeSample> of(List<MemoryInfo> memories, List<Event> events, IntFunction<String> strings) {
        ScopeSampler s = new ScopeSampler();
        memories.forEach(s::onMemory);
        EventBatch batch = new EventBatch(events.size());
        events.forEach(batch::add);
        s.consume(batch, strings);
        return s.samples();
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        if (memory.kind() == MemoryKind.ARENA) {
            arenas.put(memory.id(), new ArenaState(memory.capacity()));
        }
    }

    @Override
    public void onString(int id, String value) {
        strings.put(id, value);
    }

    @Override
    public void onEvents(EventBatch batch) {
        consume(batch, strings::get);
    }

    /** The scopes closed so far, in the order they closed. */
    public List<ScopeSample> samples() {
        synchronized (samples) {
            return all();
        }
    }

    /** Removes and returns the samples collected so far. */
    public List<ScopeSample> drainSamples() {
        synchronized (samples) {
            List<ScopeSample> out = all();
            samples.clear();
            thinned.clear();
            return out;
        }
    }

    /** Scope events that did not fit the nesting (counted, skipped). */
    public long ignoredEvents() {
        return ignored;
    }

    /**
     * Samples the events of {@code batch}, in order, naming scopes and parameters through {@code names}
     * (a null answer reads {@code #id}): for a reader that holds the trace's strings itself.
     */
    public void consume(EventBatch batch, IntFunction<String> names) {
        for (int i = 0; i < batch.size(); i++) {
            ArenaState st = arenas.get(batch.memory(i));
            if (st == null) {
                continue;
            }
            EventKind kind = batch.kind(i);
            if (kind == null) {
                continue;
            }
            boolean backward = (batch.flags(i) & Event.FLAG_BACKWARD) != 0;
            switch (kind) {
                case SCOPE_ENTER -> {
                    st.fwd = batch.a(i);
                    st.bwd = batch.b(i);
                    OpenScope s = new OpenScope(batch.ref2(i), (int) batch.c(i), name(names, batch.ref(i)), batch.time(i), st.fwd, st.bwd);
                    st.open.push(s);
                    st.byId.put(s.id, s);
                }
                case SCOPE_PARAM -> {
                    OpenScope s = st.byId.get(batch.ref2(i));
                    if (s == null) {
                        ignored++;
                    } else {
                        s.params.put(name(names, batch.ref(i)), batch.a(i));
                    }
                }
                case SCOPE_EXIT -> {
                    OpenScope s = st.byId.remove(batch.ref2(i));
                    if (s == null) {
                        ignored++;
                        continue;
                    }
                    // close any inner scope left open (a missed exit) together with this one
                    while (!st.open.isEmpty()) {
                        OpenScope top = st.open.pop();
                        if (top == s) {
                            break;
                        }
                        st.byId.remove(top.id);
                        ignored++;
                    }
                    ScopeSample done = new ScopeSample(batch.memory(i), s.id, s.parent, s.name, s.params, s.ownBytes, s.ownPadding,
                            s.ownAllocations, s.largestPadding, s.peak, s.startNs, batch.time(i));
                    synchronized (samples) {
                        keep(done);
                    }
                }
                case ALLOC -> {
                    // the gauges after the event give both pointers whatever a producer puts in b:
                    // forward = used - aux, backward = capacity - aux
                    long fwdBefore = st.fwd;
                    long bwdBefore = st.bwd;
                    st.fwd = batch.used(i) - batch.aux(i);
                    st.bwd = st.capacity - batch.aux(i);
                    long consumed = backward ? bwdBefore - st.bwd : st.fwd - fwdBefore;
                    long requested = batch.c(i) > 0 ? batch.c(i) : batch.b(i);
                    long padding = Math.max(0, consumed - requested);
                    OpenScope top = st.open.peek();
                    if (top != null) {
                        // saturating: a sum past 2^63 - 1 stays there, and the fit says it has no model
                        top.ownBytes = saturatingAdd(top.ownBytes, requested);
                        top.ownPadding = saturatingAdd(top.ownPadding, padding);
                        top.ownAllocations++;
                        top.largestPadding = Math.max(top.largestPadding, padding);
                    }
                    st.updatePeaks();
                }
                case POINTER_RESTORE -> {
                    if (backward) {
                        st.bwd = batch.a(i);
                    } else {
                        st.fwd = batch.a(i);
                    }
                }
                case RESET -> {
                    st.fwd = 0;
                    st.bwd = st.capacity;
                }
                default -> { }
            }
        }
    }

    private static String name(IntFunction<String> names, int id) {
        String s = names.apply(id);
        return s == null ? "#" + id : s;
    }

    private static final class ArenaState {
        final long capacity;
        long fwd;
        long bwd;
        final ArrayDeque<OpenScope> open = new ArrayDeque<>();
        final Map<Integer, OpenScope> byId = new HashMap<>();

        ArenaState(long capacity) {
            this.capacity = capacity;
            this.bwd = capacity;
        }

        void updatePeaks() {
            for (OpenScope s : open) {
                long held = Math.max(0, fwd - s.fwdAtEntry) + Math.max(0, s.bwdAtEntry - bwd);
                if (held > s.peak) {
                    s.peak = held;
                }
            }
        }
    }

    private static final class OpenScope {
        final int id;
        final int parent;
        final String name;
        final long startNs;
        final long fwdAtEntry;
        final long bwdAtEntry;
        final Map<String, Long> params = new LinkedHashMap<>();
        long ownBytes;
        long ownPadding;
        int ownAllocations;
        long largestPadding;
        long peak;

        OpenScope(int id, int parent, String name, long startNs, long fwd, long bwd) {
            this.id = id;
            this.parent = parent;
            this.name = name;
            this.startNs = startNs;
            this.fwdAtEntry = fwd;
            this.bwdAtEntry = bwd;
        }
    }

    private static long saturatingAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }
}
