package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.TraceView;

/**
 * One scope of a memory, over all its executions: a scope is identified by its memory and its path
 * of names from the outermost enclosing scope ({@code frame/shadows/cascade}).
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
 * @param memory      the memory's id
 * @param memoryName  the memory's name
 * @param path        names from the outermost scope, joined by {@code /}
 * @param depth       nesting depth, 0 for outermost
 * @param executions  how many times it ran
 * @param peakBytes   the largest bytes of one execution
 * @param peakAtNs    when that execution opened (ns since the session start)
 * @param meanBytes   mean bytes over executions
 * @param totalNs     time spent open, summed over executions
 * @param maxNs       the longest execution
 * @param params      params of the peak execution, in the order they were noted
 * @param model       the calibrated model's formula, e.g. {@code 4096 + 1048576·frames}, or null
 * @param modelError  the model's worst relative prediction error, |measured − predicted| / measured, or NaN
 */
public record ScopeAnalysis(int memory, String memoryName, String path, int depth, long executions,
                            long peakBytes, long peakAtNs, long meanBytes, long totalNs, long maxNs,
                            Map<String, Long> params, String model, double modelError)
        implements FigureRow {

    /**
     * Scopes nested deeper than this many levels are counted under one path ending in {@code /…} (a
     * hostile or runaway trace must not build paths quadratic in its depth).
     */
    public static final int MAX_PATH_DEPTH = 32;

    public ScopeAnalysis {
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /** The scope's last name. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    /** This scope with a calibrated model attached. */
    public ScopeAnalysis withModel(String formula, double relativeError) {
        return new ScopeAnalysis(memory, memoryName, path, depth, executions, peakBytes, peakAtNs, meanBytes,
                totalNs, maxNs, params, formula, relativeError);
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
        Accumulator acc = new Accumulator(view);
        for (long i = 0, n = view.eventCount(); i < n; i++) {
            acc.accept(view.event(i));
        }
        return acc.finish(view.endNs());
    }

    /** Folds scope events, in time order, into per-scope figures. Not thread-safe. */
    static final class Accumulator {
        private final TraceView view;
        private final Map<Integer, Open> open = new HashMap<>();
        private final Map<Integer, ArrayList<Open>> stacks = new HashMap<>();
        private final Map<String, Agg> aggs = new LinkedHashMap<>();

        Accumulator(TraceView view) {
            this.view = view;
        }

        private static final class Open {
            final int id;
            final int memory;
            final String path;
            final int depth;
            final long startNs;
            final long entryUsed;
            long maxUsed;
            final Map<String, Long> params = new LinkedHashMap<>();
            final Open parent;
            int position;

            Open(int id, int memory, String path, int depth, long startNs, long entryUsed, Open parent) {
                this.id = id;
                this.memory = memory;
                this.path = path;
                this.depth = depth;
                this.startNs = startNs;
                this.entryUsed = entryUsed;
                this.maxUsed = entryUsed;
                this.parent = parent;
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

            Agg(int memory, String path, int depth) {
                this.memory = memory;
                this.path = path;
                this.depth = depth;
            }
        }

        void accept(Event e) {
            int memory = e.memory();
            switch (e.kind()) {
                case SCOPE_ENTER -> {
                    ArrayList<Open> stack = stacks.computeIfAbsent(memory, k -> new ArrayList<>());
                    Open parent = e.c() >= 0 ? open.get((int) e.c()) : null;
                    String name = nameOf(e.ref());
                    String path = parent == null ? name
                            : parent.depth + 1 < MAX_PATH_DEPTH ? parent.path + "/" + name
                            : parent.depth + 1 == MAX_PATH_DEPTH ? parent.path + "/…" : parent.path;
                    Open o = new Open(e.ref2(), memory, path, parent == null ? 0 : parent.depth + 1, e.timeNs(), e.used(), parent);
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
                default -> touch(memory, e.used());
            }
        }

        private String nameOf(int ref) {
            String s = view.string(ref);
            return s == null ? "#" + ref : s;
        }

        private void touch(int memory, long used) {
            if (stacks.isEmpty()) {
                return;
            }
            ArrayList<Open> stack = stacks.get(memory);
            if (stack != null && !stack.isEmpty()) {
                Open top = stack.getLast();
                if (used > top.maxUsed) {
                    top.maxUsed = used;
                }
            }
        }

        private void close(Open o, long endNs) {
            ArrayList<Open> stack = stacks.get(o.memory);
            if (stack != null && o.position < stack.size() && stack.get(o.position) == o) {
                // inner scopes left open close with it (O(1) per scope: each is popped once)
                while (stack.size() > o.position + 1) {
                    Open inner = stack.removeLast();
                    open.remove(inner.id);
                    finishOne(inner, endNs);
                }
                stack.removeLast();
            }
            finishOne(o, endNs);
        }

        /** Books one closed execution and hands its most bytes to its parent. */
        private void finishOne(Open o, long endNs) {
            if (o.parent != null && o.maxUsed > o.parent.maxUsed) {
                o.parent.maxUsed = o.maxUsed;
            }
            long bytes = Math.max(0, o.maxUsed - o.entryUsed);
            long duration = Math.max(0, endNs - o.startNs);
            Agg agg = aggs.computeIfAbsent(o.memory + "\u0000" + o.path, k -> new Agg(o.memory, o.path, o.depth));
            agg.executions++;
            agg.sumBytes += bytes;
            agg.totalNs += duration;
            agg.maxNs = Math.max(agg.maxNs, duration);
            if (bytes > agg.peak) {
                agg.peak = bytes;
                agg.peakAt = o.startNs;
                agg.peakParams = o.params;
            }
        }

        List<ScopeAnalysis> finish(long endNs) {
            List<Open> still = new ArrayList<>(open.values());
            still.sort(Comparator.comparingInt((Open o) -> -o.depth));
            for (Open o : still) {
                if (open.remove(o.id) != null) {
                    close(o, endNs);
                }
            }
            Map<Integer, String> names = new HashMap<>();
            view.memories().forEach(m -> names.put(m.id(), m.name()));
            List<ScopeAnalysis> out = new ArrayList<>();
            for (Agg a : aggs.values()) {
                out.add(new ScopeAnalysis(a.memory, names.getOrDefault(a.memory, "#" + a.memory), a.path, a.depth,
                        a.executions, a.peak, a.peakAt, a.sumBytes / Math.max(1, a.executions), a.totalNs, a.maxNs,
                        a.peakParams, null, Double.NaN));
            }
            out.sort(Comparator.comparingLong(ScopeAnalysis::peakBytes).reversed()
                    .thenComparing(ScopeAnalysis::subject));
            return out;
        }
    }
}
