package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * One scope of a memory, over all its executions: a scope is identified by its memory and its path
 * of names from the outermost enclosing scope ({@code frame/shadows/cascade}). The one scope model of
 * the project: reports list these rows, and the window's scope tree, timeline bands and event filter
 * read the same rows from a live {@link Accumulator}.
 *
 * <p><b>Bytes of an execution</b>: the most bytes the memory held while the scope was open, above what
 * it held when the scope opened ({@code max(used during) - used at entry}; both ends of an arena).
 * Nested scopes count toward their parents. The scope's {@code peakBytes} is the largest over its
 * executions, and {@code params} are the parameters ({@link dev.arenascope.core.trace.EventKind#SCOPE_PARAM})
 * of that largest execution. A scope still open when the trace ends closes at its last event.
 *
 * <p>{@code model} and {@code modelError} carry the calibrated memory model of the scope's name
 * ({@link MemoryModel}: bytes requested directly inside the scope as a function of its params) and its
 * worst relative prediction error over the recorded executions, when calibration found one
 * ({@link #withModel}); otherwise null and NaN. Immutable.
 *
 * @param memory        the memory's id
 * @param memoryName    the memory's name
 * @param path          names from the outermost scope, joined by {@code /}
 * @param depth         nesting depth, 0 for outermost
 * @param executions    how many times it ran
 * @param peakBytes     the largest bytes of one execution
 * @param peakAtNs      when that execution opened (ns since the session start)
 * @param meanBytes     mean bytes over executions
 * @param totalNs       time spent open, summed over executions
 * @param maxNs         the longest execution
 * @param params        params of the peak execution, in the order they were noted
 * @param model         the calibrated model's formula, e.g. {@code 4096 + 1048576·frames}, or null
 * @param modelError    the model's worst relative prediction error, |measured − predicted| / measured, or NaN
 * @param allocations   allocations and pool requests made while it was open (nested scopes' included), over all executions
 * @param forwardBytes  bytes of those allocations from an arena's forward end and of pool requests (block sizes)
 * @param backwardBytes bytes of those allocations from an arena's backward end
 * @param peakUsedBytes the most bytes the memory held (both ends, not above the entry) while the scope was open
 * @param executionTimes when each execution ran (only where the accumulator was asked to keep them; else empty)
 */
public record ScopeAnalysis(int memory, String memoryName, String path, int depth, long executions,
                            long peakBytes, long peakAtNs, long meanBytes, long totalNs, long maxNs,
                            Map<String, Long> params, String model, double modelError,
                            long allocations, long forwardBytes, long backwardBytes, long peakUsedBytes,
                            ScopeExecutions executionTimes)
        implements FigureRow {

    /**
     * Scopes nested deeper than this many levels are counted under one path ending in {@code /…} (a
     * hostile or runaway trace must not build paths quadratic in its depth).
     */
    public static final int MAX_PATH_DEPTH = 32;

    public ScopeAnalysis {
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /** The scope's last name. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    /** This scope with a calibrated model attached. */
    public ScopeAnalysis withModel(String formula, double relativeError) {
        return new ScopeAnalysis(memory, memoryName, path, depth, executions, peakBytes, peakAtNs, meanBytes,
                totalNs, maxNs, params, formula, relativeError, allocations, forwardBytes, backwardBytes, peakUsedBytes,
                executionTimes);
    }

    @Override
    public String section() {
        return "scopes";
    }

    @Override
    public String subject() {
        return memoryName + ": " + path;
    }

    @Override
    public List<Figure> figures() {
        List<Figure> f = new ArrayList<>();
        f.add(Figure.bytes("peakBytes", "peak", peakBytes, true));
        f.add(Figure.bytes("meanBytes", "mean", meanBytes, false));
        f.add(Figure.count("executions", "runs", executions, Figure.Better.NEITHER));
        f.add(new Figure("totalNs", "time open", Figure.Unit.NANOS, totalNs, Figure.Better.NEITHER, false));
        f.add(new Figure("modelError", "model error", Figure.Unit.RATIO, modelError, Figure.Better.LOWER, false));
        return f;
    }

    /** Every scope of the trace, largest peak first (one pass over its events). */
    public static List<ScopeAnalysis> of(TraceView view) {
        Accumulator acc = new Accumulator(view, false);
        for (long i = 0, n = view.eventCount(); i < n; i++) {
            acc.accept(view.event(i));
        }
        return acc.finish(view.endNs());
    }

    /**
     * Folds scope events, in the trace's order, into per-scope figures; incremental: it may be fed more
     * events after any query, so a live session's rows cost what its new events cost. Scope names are
     * resolved through the view given at construction (a string not yet known reads {@code #id}).
     * Memory: one entry per scope path and per open execution, plus two longs per execution where
     * execution times are kept (at most {@link ScopeExecutions#MAX} a scope). Bad input (an exit
     * without its enter, a parameter of an unknown scope) is skipped. Not thread-safe: one thread
     * feeds and queries it; the rows it returns are immutable and may be handed to any thread.
     */
    public static final class Accumulator {
        private final TraceView view;
        private final boolean keepTimes;
        private final Map<Integer, Open> open = new HashMap<>();
        private final Map<Integer, ArrayList<Open>> stacks = new HashMap<>();
        private final Map<String, Agg> aggs = new LinkedHashMap<>();

        /**
         * @param view      resolves scope and parameter names (and memory names at each query)
         * @param keepTimes whether to keep each execution's start and end ({@link ScopeAnalysis#executionTimes}),
         *                  what the window's timeline draws; reports leave it off
         */
        public Accumulator(TraceView view, boolean keepTimes) {
            this.view = view;
            this.keepTimes = keepTimes;
        }

        private static final class Open {
            final int id;
            final int memory;
            final Agg agg;
            final int depth;
            final long startNs;
            final long entryUsed;
            long maxUsed;
            long allocations;
            long forwardBytes;
            long backwardBytes;
            Map<String, Long> params = new LinkedHashMap<>();
            Open parent;
            int position;

            Open(int id, int memory, Agg agg, int depth, long startNs, long entryUsed, Open parent) {
                this.id = id;
                this.memory = memory;
                this.agg = agg;
                this.depth = depth;
                this.startNs = startNs;
                this.entryUsed = entryUsed;
                this.maxUsed = entryUsed;
                this.parent = parent;
            }

            /** A copy of the figures (the parameters shared), for a query that closes it only in thought. */
            Open copy(Agg into) {
                Open c = new Open(id, memory, into, depth, startNs, entryUsed, null);
                c.maxUsed = maxUsed;
                c.allocations = allocations;
                c.forwardBytes = forwardBytes;
                c.backwardBytes = backwardBytes;
                c.params = params;
                return c;
            }
        }

        private static final class Agg {
            final int memory;
            final String path;
            final int depth;
            long executions;
            long peak = -1;
            long peakAt;
            Map<String, Long> peakParams = Map.of();
            long sumBytes;
            long totalNs;
            long maxNs;
            long allocations;
            long forwardBytes;
            long backwardBytes;
            long peakUsed;
            final ScopeExecutions.Builder times;

            Agg(int memory, String path, int depth, boolean keepTimes) {
                this.memory = memory;
                this.path = path;
                this.depth = depth;
                this.times = keepTimes ? new ScopeExecutions.Builder() : null;
            }

            Agg copy() {
                Agg c = new Agg(memory, path, depth, false);
                c.executions = executions;
                c.peak = peak;
                c.peakAt = peakAt;
                c.peakParams = peakParams;
                c.sumBytes = sumBytes;
                c.totalNs = totalNs;
                c.maxNs = maxNs;
                c.allocations = allocations;
                c.forwardBytes = forwardBytes;
                c.backwardBytes = backwardBytes;
                c.peakUsed = peakUsed;
                return c;
            }
        }

        /** Folds one event (events of other kinds only move the open scopes' high-water marks). */
        public void accept(Event e) {
            EventKind kind = e.kind();
            if (kind == null) {
                return;
            }
            int memory = e.memory();
            switch (kind) {
                case SCOPE_ENTER -> {
                    ArrayList<Open> stack = stacks.computeIfAbsent(memory, k -> new ArrayList<>());
                    Open parent = e.c() >= 0 ? open.get((int) e.c()) : null;
                    String name = nameOf(e.ref());
                    String path = parent == null ? name
                            : parent.depth + 1 < MAX_PATH_DEPTH ? parent.agg.path + "/" + name
                            : parent.depth + 1 == MAX_PATH_DEPTH ? parent.agg.path + "/…" : parent.agg.path;
                    int depth = parent == null ? 0 : Math.min(parent.depth + 1, MAX_PATH_DEPTH);
                    Agg agg = aggs.computeIfAbsent(memory + "\u0000" + path, k -> new Agg(memory, path, depth, keepTimes));
                    Open o = new Open(e.ref2(), memory, agg, parent == null ? 0 : parent.depth + 1, e.timeNs(), e.used(), parent);
                    open.put(o.id, o);
                    o.position = stack.size();
                    stack.add(o);
                }
                case SCOPE_EXIT -> {
                    touch(memory, e.used());
                    Open o = open.remove(e.ref2());
                    if (o != null) {
                        close(o, e.timeNs());
                    }
                }
                case SCOPE_PARAM -> {
                    Open o = open.get(e.ref2());
                    if (o != null) {
                        o.params.put(nameOf(e.ref()), e.a());
                    }
                }
                case ALLOC, POOL_REQUEST -> {
                    Open top = touch(memory, e.used());
                    if (top != null) {
                        top.allocations++;
                        if (kind == EventKind.ALLOC && e.has(Event.FLAG_BACKWARD)) {
                            top.backwardBytes += e.b();
                        } else {
                            top.forwardBytes += e.b();
                        }
                    }
                }
                default -> touch(memory, e.used());
            }
        }

        private String nameOf(int ref) {
            String s = view.string(ref);
            return s == null ? "#" + ref : s;
        }

        /** Moves the innermost open scope's high-water mark; returns that scope, or null. */
        private Open touch(int memory, long used) {
            if (stacks.isEmpty()) {
                return null;
            }
            ArrayList<Open> stack = stacks.get(memory);
            if (stack != null && !stack.isEmpty()) {
                Open top = stack.getLast();
                if (used > top.maxUsed) {
                    top.maxUsed = used;
                }
                return top;
            }
            return null;
        }

        private void close(Open o, long endNs) {
            ArrayList<Open> stack = stacks.get(o.memory);
            if (stack != null && o.position < stack.size() && stack.get(o.position) == o) {
                // inner scopes left open close with it (O(1) per scope: each is popped once)
                while (stack.size() > o.position + 1) {
                    Open inner = stack.removeLast();
                    open.remove(inner.id);
                    finishOne(inner, inner.agg, endNs);
                }
                stack.removeLast();
            }
            finishOne(o, o.agg, endNs);
        }

        /** Books one closed execution into {@code agg} and hands its figures to its parent. */
        private static void finishOne(Open o, Agg agg, long endNs) {
            Open p = o.parent;
            if (p != null) {
                if (o.maxUsed > p.maxUsed) {
                    p.maxUsed = o.maxUsed;
                }
                p.allocations += o.allocations;
                p.forwardBytes += o.forwardBytes;
                p.backwardBytes += o.backwardBytes;
            }
            long bytes = Math.max(0, o.maxUsed - o.entryUsed);
            long duration = Math.max(0, endNs - o.startNs);
            agg.executions++;
            agg.sumBytes += bytes;
            agg.totalNs += duration;
            agg.maxNs = Math.max(agg.maxNs, duration);
            agg.allocations += o.allocations;
            agg.forwardBytes += o.forwardBytes;
            agg.backwardBytes += o.backwardBytes;
            agg.peakUsed = Math.max(agg.peakUsed, o.maxUsed);
            if (bytes > agg.peak) {
                agg.peak = bytes;
                agg.peakAt = o.startNs;
                agg.peakParams = o.params;
            }
            if (agg.times != null) {
                agg.times.add(o.startNs, endNs);
            }
        }

        /**
         * The rows so far, in the order their paths were first entered (a parent before its children),
         * with every execution still open counted as if it closed at {@code endNs} (its nested scopes
         * first); the accumulator itself is not changed, so it may be fed more events afterwards.
         * Execution times hold the closed executions only.
         */
        public List<ScopeAnalysis> snapshot(long endNs) {
            Map<Agg, Agg> copies = new IdentityHashMap<>();
            if (!open.isEmpty()) {
                Map<Open, Open> opens = new IdentityHashMap<>();
                for (Open o : open.values()) {
                    opens.put(o, o.copy(copies.computeIfAbsent(o.agg, Agg::copy)));
                }
                List<Open> still = new ArrayList<>(opens.keySet());
                for (Open o : still) {
                    // null where the parent has closed already: then, as in a real close, nothing is handed up
                    opens.get(o).parent = o.parent == null ? null : opens.get(o.parent);
                }
                still.sort(Comparator.comparingInt((Open o) -> -o.depth));
                for (Open o : still) {
                    Open c = opens.get(o);
                    finishOne(c, c.agg, endNs);
                }
            }
            Map<Integer, String> names = memoryNames();
            List<ScopeAnalysis> out = new ArrayList<>(aggs.size());
            for (Agg a : aggs.values()) {
                Agg c = copies.getOrDefault(a, a);
                if (c.executions > 0) {
                    out.add(row(c, names, a.times == null ? ScopeExecutions.NONE : a.times.build()));
                }
            }
            return out;
        }

        /**
         * Closes every scope still open at {@code endNs} and returns the rows, largest peak first: the
         * report's answer. The accumulator is spent afterwards (use {@link #snapshot} to keep feeding it).
         */
        public List<ScopeAnalysis> finish(long endNs) {
            List<Open> still = new ArrayList<>(open.values());
            still.sort(Comparator.comparingInt((Open o) -> -o.depth));
            for (Open o : still) {
                if (open.remove(o.id) != null) {
                    close(o, endNs);
                }
            }
            Map<Integer, String> names = memoryNames();
            List<ScopeAnalysis> out = new ArrayList<>();
            for (Agg a : aggs.values()) {
                if (a.executions > 0) {
                    out.add(row(a, names, a.times == null ? ScopeExecutions.NONE : a.times.build()));
                }
            }
            out.sort(Comparator.comparingLong(ScopeAnalysis::peakBytes).reversed()
                    .thenComparing(ScopeAnalysis::subject));
            return out;
        }

        private Map<Integer, String> memoryNames() {
            Map<Integer, String> names = new HashMap<>();
            for (MemoryInfo m : view.memories()) {
                names.put(m.id(), m.name());
            }
            return names;
        }

        private static ScopeAnalysis row(Agg a, Map<Integer, String> names, ScopeExecutions times) {
            return new ScopeAnalysis(a.memory, names.getOrDefault(a.memory, "#" + a.memory), a.path, a.depth,
                    a.executions, a.peak, a.peakAt, a.sumBytes / Math.max(1, a.executions), a.totalNs, a.maxNs,
                    a.peakParams, null, Double.NaN, a.allocations, a.forwardBytes, a.backwardBytes, a.peakUsed, times);
        }
    }
}
