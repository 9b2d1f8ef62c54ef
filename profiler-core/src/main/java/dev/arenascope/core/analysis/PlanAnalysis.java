package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.Planner;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * One arena of a static memory plan: how tall the plan made it against how tall it must be.
 *
 * <h2>Definitions</h2>
 * <ul>
 *   <li><b>tensors</b>: distinct tensors bound or live in the arena ({@code PLAN_BIND}, {@code TENSOR_LIVE};
 *       repeated runs of the plan count once), each with its offset, bytes and lifetime (the first step it
 *       was live to the last step before it died).</li>
 *   <li><b>height</b>: the highest end offset of any tensor, its size rounded up to the plan's alignment
 *       ({@code offset + align(bytes)}): the arena size the plan needs, measured as planners measure it.</li>
 *   <li><b>lower bound</b>: the most bytes of tensors live at the same step (sizes rounded up to the plan's
 *       alignment); no packing can be shorter. A tensor
 *       with no recorded lifetime is live at every step. With no lifetime recorded at all, persistent and
 *       constant arenas hold every tensor at once (their sum) and scratch arenas at least their largest tensor.</li>
 *   <li><b>efficiency</b>: {@code lowerBound / height}, 1 for a packing that meets the bound.</li>
 *   <li><b>search height</b>: the height the search planner finds for the same tensors (sizes, lifetimes and
 *       the plan's alignment), or -1 when none was run ({@link #withSearch}); {@code searchPlanner} names the
 *       planner that found it ({@code search}, or {@code greedy} where no search planner is built in).</li>
 *   <li><b>proof</b>: how close the search height is proved to the least possible, as {@code plan} prints
 *       it ({@code optimal} or {@code gap <= X%}), and the proved bound it rests on (at least the lower
 *       bound; see {@code dev.arenascope.core.plan.LowerBounds}); empty and -1 when no search was run.</li>
 * </ul>
 * Immutable.
 *
 * @param memory           the plan arena's memory id
 * @param arena            the arena's name
 * @param kind             scratch, persistent or constant
 * @param plan             the plan's name, or empty
 * @param capacityBytes    the arena's capacity, 0 when unknown
 * @param steps            plan steps seen (largest step index + 1), 0 when none
 * @param heightBytes      see above
 * @param lowerBoundBytes  see above
 * @param searchHeightBytes see above
 * @param searchPlanner    see above; empty when none was run
 * @param alignment        the plan's alignment in bytes (its {@code alignment} attribute), 1 when unknown
 * @param tensors          the tensors, in first-seen order
 * @param searchBoundBytes the bound the search proved, -1 when none was run
 * @param searchProof      {@code optimal} or {@code gap <= X%} for the search height, empty when none was run
 */
public record PlanAnalysis(int memory, String arena, MemoryKind kind, String plan, long capacityBytes, long steps,
                           long heightBytes, long lowerBoundBytes, long searchHeightBytes, String searchPlanner,
                           long alignment, List<Tensor> tensors, long searchBoundBytes, String searchProof)
        implements FigureRow {

    public PlanAnalysis {
        tensors = List.copyOf(tensors);
        searchProof = searchProof == null ? "" : searchProof;
    }

    /** An analysis without a search's proof. */
    public PlanAnalysis(int memory, String arena, MemoryKind kind, String plan, long capacityBytes, long steps,
                        long heightBytes, long lowerBoundBytes, long searchHeightBytes, String searchPlanner,
                        long alignment, List<Tensor> tensors) {
        this(memory, arena, kind, plan, capacityBytes, steps, heightBytes, lowerBoundBytes, searchHeightBytes, searchPlanner,
                alignment, tensors, -1, "");
    }

    /**
     * A tensor of a plan arena.
     *
     * @param name      the tensor's name (string id resolved), or {@code #id}
     * @param offset    its offset in the arena
     * @param bytes     its size
     * @param firstStep first step it is live, -1 when unknown
     * @param lastStep  last step it is live, -1 when unknown
     */
    public record Tensor(String name, long offset, long bytes, long firstStep, long lastStep) {
        public boolean hasLifetime() {
            return firstStep >= 0;
        }
    }

    /** {@code lowerBound / height}, NaN for an empty arena. */
    public double efficiency() {
        return heightBytes == 0 ? Double.NaN : (double) lowerBoundBytes / heightBytes;
    }

    /** This analysis with a planner's packing of the same tensors: its height, proved bound and proof. */
    public PlanAnalysis withSearchPacking(Packing p) {
        return new PlanAnalysis(memory, arena, kind, plan, capacityBytes, steps, heightBytes, lowerBoundBytes, p.height(),
                p.strategy(), alignment, tensors, p.bound(), p.proof());
    }

    /**
     * Packs this arena's tensors again with the search planner (the greedy planner where no search
     * planner exists), aiming at the lower bound, and attaches the height of the best packing it finds
     * within {@code timeLimitNanos} (less when it reaches the bound). A tensor with no
     * recorded lifetime is live over every step. An arena with no tensors, or one the planner refuses,
     * is returned unchanged.
     */
    public PlanAnalysis withSearch(long timeLimitNanos) {
        if (tensors.isEmpty()) {
            return this;
        }
        Planner planner;
        try {
            planner = Planner.named("search");
        } catch (IllegalArgumentException e) {
            planner = Planner.named("greedy");
        }
        long allSteps = Math.max(1, steps);
        List<PlanBuffer> buffers = new ArrayList<>();
        int n = 0;
        for (Tensor t : tensors) {
            long lower = t.hasLifetime() ? t.firstStep() : 0;
            long upper = t.hasLifetime() ? Math.max(t.firstStep(), t.lastStep()) + 1 : Math.max(allSteps, 1);
            buffers.add(new PlanBuffer(t.name() + "#" + n++, lower, upper, t.bytes()));
        }
        try {
            var problem = new PlanProblem(buffers, Math.max(1, alignment));
            // minimise: the search tries the lower bound first and stops there, else narrows towards it
            // and proves what it can; its best packing when time is up
            var packing = planner.plan(problem, Long.MAX_VALUE, timeLimitNanos);
            return withSearchPacking(packing);
        } catch (RuntimeException e) {
            return this;
        }
    }

    @Override
    public String section() {
        return "plans";
    }

    @Override
    public String subject() {
        return plan.isEmpty() || arena.startsWith(plan + "/") ? arena : plan + ": " + arena;
    }

    @Override
    public List<Figure> figures() {
        List<Figure> f = new ArrayList<>();
        f.add(Figure.count("tensors", "tensors", tensors.size(), Figure.Better.NEITHER));
        f.add(Figure.bytes("heightBytes", "height", heightBytes, true));
        f.add(new Figure("lowerBoundBytes", "lower bound", Figure.Unit.BYTES, lowerBoundBytes, Figure.Better.NEITHER, false));
        f.add(new Figure("searchHeightBytes", searchPlanner.isEmpty() ? "search packing" : searchPlanner + " packing", Figure.Unit.BYTES,
                searchHeightBytes < 0 ? Double.NaN : searchHeightBytes, Figure.Better.NEITHER, false));
        f.add(new Figure("searchBoundBytes", "proved bound", Figure.Unit.BYTES,
                searchBoundBytes < 0 ? Double.NaN : searchBoundBytes, Figure.Better.NEITHER, false));
        f.add(Figure.ratio("efficiency", "bound / height", efficiency(), Figure.Better.HIGHER));
        f.add(new Figure("capacityBytes", "capacity", Figure.Unit.BYTES, capacityBytes > 0 ? capacityBytes : Double.NaN,
                Figure.Better.NEITHER, false));
        return f;
    }

    /** Every plan arena of the trace (one pass over its events). */
    public static List<PlanAnalysis> of(TraceView view) {
        Accumulator acc = new Accumulator(view);
        for (long i = 0, n = view.eventCount(); i < n; i++) {
            acc.accept(view.event(i));
        }
        return acc.finish();
    }

    static boolean isPlanArena(MemoryKind kind) {
        return kind == MemoryKind.PLAN_SCRATCH || kind == MemoryKind.PLAN_PERSISTENT || kind == MemoryKind.PLAN_CONSTANT;
    }

    /** Folds plan events, in time order, into per-arena figures. Not thread-safe. */
    static final class Accumulator {
        private final TraceView view;
        private final Map<Integer, Arena> arenas = new LinkedHashMap<>();
        private String lastPlan = "";
        private long maxStep = -1;

        Accumulator(TraceView view) {
            this.view = view;
            for (MemoryInfo m : view.memories()) {
                if (isPlanArena(m.kind())) {
                    arenas.put(m.id(), new Arena(m));
                }
            }
        }

        private static final class Arena {
            final MemoryInfo info;
            final Map<Integer, long[]> tensors = new LinkedHashMap<>(); // id -> offset, bytes, first, last
            String plan = "";

            Arena(MemoryInfo info) {
                this.info = info;
                String p = info.attributes().get("plan");
                if (p != null) {
                    plan = p;
                }
            }

            long[] tensor(int id) {
                return tensors.computeIfAbsent(id, k -> new long[] {0, 0, -1, -1});
            }
        }

        void accept(Event e) {
            switch (e.kind()) {
                case PLAN_LOADED -> {
                    String name = view.string(e.ref());
                    lastPlan = name == null ? "" : name;
                }
                case PLAN_STEP -> maxStep = Math.max(maxStep, e.a());
                case PLAN_BIND, TENSOR_LIVE, TENSOR_DEAD -> {
                    Arena a = arenas.get(e.memory());
                    if (a == null) {
                        return;
                    }
                    if (a.plan.isEmpty()) {
                        a.plan = lastPlan;
                    }
                    long[] t = a.tensor(e.ref());
                    t[0] = e.a();
                    t[1] = Math.max(t[1], e.b());
                    if (e.kind() == EventKind.TENSOR_LIVE) {
                        t[2] = t[2] < 0 ? e.c() : Math.min(t[2], e.c());
                        t[3] = Math.max(t[3], e.c());
                        maxStep = Math.max(maxStep, e.c());
                    } else if (e.kind() == EventKind.TENSOR_DEAD) {
                        t[3] = Math.max(t[3], e.c());
                        if (t[2] < 0) {
                            t[2] = e.c();
                        }
                        maxStep = Math.max(maxStep, e.c());
                    }
                }
                default -> { }
            }
        }

        List<PlanAnalysis> finish() {
            List<PlanAnalysis> out = new ArrayList<>();
            for (Arena a : arenas.values()) {
                long alignment = 1;
                try {
                    alignment = Math.max(1, Long.parseLong(a.info.attributes().getOrDefault("alignment", "1")));
                } catch (NumberFormatException e) {
                    // a foreign trace's attribute: sizes stay unaligned
                }
                List<Tensor> tensors = new ArrayList<>();
                long height = 0;
                for (Map.Entry<Integer, long[]> en : a.tensors.entrySet()) {
                    long[] t = en.getValue();
                    String name = view.string(en.getKey());
                    tensors.add(new Tensor(name == null ? "#" + en.getKey() : name, t[0], t[1], t[2], t[3]));
                    height = Math.max(height, t[0] + alignUp(t[1], alignment));
                }
                out.add(new PlanAnalysis(a.info.id(), a.info.name(), a.info.kind(), a.plan, a.info.capacity(),
                        maxStep + 1, height, lowerBound(a.info.kind(), tensors, alignment), -1, "", alignment, tensors));
            }
            return out;
        }
    }

    private static long alignUp(long v, long a) {
        long r = v % a;
        return r == 0 ? v : v + (a - r);
    }

    /** The most bytes live at one step, sizes rounded up to the alignment (see the class comment). */
    static long lowerBound(MemoryKind kind, List<Tensor> tensors, long alignment) {
        long always = 0;
        long largest = 0;
        Map<Long, Long> delta = new TreeMap<>();
        boolean anyLifetime = false;
        for (Tensor t : tensors) {
            long bytes = alignUp(t.bytes(), alignment);
            largest = Math.max(largest, bytes);
            if (t.hasLifetime()) {
                anyLifetime = true;
                delta.merge(t.firstStep(), bytes, Long::sum);
                delta.merge(Math.max(t.firstStep(), t.lastStep()) + 1, -bytes, Long::sum);
            } else {
                always += bytes;
            }
        }
        if (!anyLifetime) {
            return kind == MemoryKind.PLAN_SCRATCH ? largest : always;
        }
        long live = 0;
        long best = 0;
        for (long d : delta.values()) {
            live += d;
            best = Math.max(best, live);
        }
        return best + always;
    }

}
