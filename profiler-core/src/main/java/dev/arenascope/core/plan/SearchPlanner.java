package dev.arenascope.core.plan;

import java.util.Arrays;
import java.util.Comparator;

/**
 * A search planner that reaches the capacity when a packing within it exists: a depth-first search
 * over canonical packings with section inference and pruning of repeated states (see
 * {@link CanonicalSearch} for the method; the ideas follow MiniMalloc, Moffitt, ASPLOS 2023).
 *
 * <p>With a capacity, it returns the first packing within it, or — when the search proves there is none,
 * or runs out of time ({@link Packing#timedOut()}) — the best packing it has: greedy by size at least,
 * lowered in the last quarter of the time limit by the same narrowing as below. Without a capacity
 * ({@code Long.MAX_VALUE}) it minimises the height: it first tries the lower
 * bound, then narrows between the best height proved impossible and the best found until they meet or
 * time runs out.
 *
 * <p>Each decision is made by {@link #portfolio}: restarts of the strict canonical search (every buffer at
 * its own floor, see {@link CanonicalSearch#strict}) over three static orders of the buffers (lifetime,
 * area, section load in various priorities) with a doubling node budget; at each node candidates go in
 * order of floor, then the run's order. A decision at a capacity that leaves no slack at any step
 * (tight problems, {@link PerfectPacking#applies}) goes to {@link TightSplit} (time cuts and bands, the
 * pieces left searched by corners), then to {@link PerfectPacking} on the whole. Thread-safe (each call
 * owns its state).
 */
public record SearchPlanner() implements Planner {

    @Override
    public String name() {
        return "search";
    }

    @Override
    public Packing plan(PlanProblem problem, long capacity, long timeLimitNanos) {
        long t0 = System.nanoTime();
        long deadline = Planner.deadline(t0, timeLimitNanos);
        long lb = problem.lowerBound();
        // the first answer is greedy's; with a time limit, greedy itself stops at it (the buffers it had
        // not placed yet are stacked above the rest), so a dense problem is still answered in time.
        // No time at all (0) asks for greedy's answer alone, whole.
        long[] best = GreedyBySizePlanner.place(problem, timeLimitNanos > 0 ? deadline : Long.MAX_VALUE);
        long bestHeight = Packing.heightOf(problem, best);
        boolean timedOut = false;
        long bound = lb;
        LowerBounds.Basis basis = LowerBounds.Basis.LOAD;
        if (bestHeight > lb && (bestHeight > capacity || capacity == Long.MAX_VALUE)
                && (System.nanoTime() >= deadline || TimeOverlaps.overlappingPairs(problem) > maxPairs())) {
            // no time left after the first answer, or tables past what memory holds: greedy is the answer
            return new Packing(problem, best, bestHeight, lb, capacity, name(), System.nanoTime() - t0, true);
        }
        if (capacity != Long.MAX_VALUE) {
            if (bestHeight > capacity && lb <= capacity) {
                // three quarters of the time for the capacity; if that stalls, the rest lowers the best
                long[] found = new long[problem.size()];
                long capDeadline = deadline == Long.MAX_VALUE ? deadline : t0 + (deadline - t0) / 4 * 3;
                CanonicalSearch.Outcome o = portfolio(problem, capacity, capDeadline, found);
                if (o == CanonicalSearch.Outcome.FOUND) {
                    best = found;
                    bestHeight = Packing.heightOf(problem, found);
                } else {
                    timedOut = o == CanonicalSearch.Outcome.TIMED_OUT;
                    long lo = o == CanonicalSearch.Outcome.INFEASIBLE ? capacity + 1 : lb;
                    long[] b = best.clone();
                    Narrowed r = narrow(problem, Math.max(lo, Math.min(bestHeight, capacity + 1)), bestHeight, b, deadline);
                    bestHeight = r.height;
                    best = b;
                    if (o == CanonicalSearch.Outcome.INFEASIBLE) {
                        bound = LowerBounds.rounded(problem, Math.max(lb, r.closed ? bestHeight : r.lo));
                        basis = LowerBounds.Basis.SEARCH;
                    }
                }
            }
        } else {
            long[] b = best.clone();
            LowerBounds.Bound basic = LowerBounds.basic(problem);
            // an eighth of the time is kept for windows, should narrowing not close the gap
            long now = System.nanoTime();
            long narrowUntil = deadline == Long.MAX_VALUE ? deadline : deadline - (deadline - now) / 8;
            Narrowed r = narrow(problem, basic.bytes(), bestHeight, b, narrowUntil);
            best = b;
            bestHeight = r.height;
            timedOut = !r.closed;
            if (r.closed) {
                bound = bestHeight;
                basis = bestHeight <= basic.bytes() ? basic.basis() : LowerBounds.Basis.SEARCH;
            } else {
                long lo = LowerBounds.rounded(problem, Math.max(basic.bytes(), r.lo));
                basis = lo > basic.bytes() ? LowerBounds.Basis.SEARCH : basic.basis();
                long w = LowerBounds.windows(problem, lo, bestHeight, deadline);
                if (w > lo) {
                    basis = LowerBounds.Basis.WINDOW;
                }
                bound = w;
                timedOut = bound < bestHeight;
            }
        }
        if (bound <= lb) {
            basis = LowerBounds.Basis.LOAD;
            bound = lb;
        }
        return new Packing(problem, best, bestHeight, lb, capacity, name(), System.nanoTime() - t0, timedOut, bound, basis);
    }

    /** The best height found, whether it is proved optimal, and the lowest height not proved impossible. */
    private record Narrowed(long height, boolean closed, long lo) {}

    /**
     * The most pairs of time-overlapping buffers the search takes on: its tables hold about 32 bytes a
     * pair, kept to an eighth of the heap. Past it {@link #plan} answers with greedy's packing, marked
     * as stopped early.
     */
    static long maxPairs() {
        return Math.max(1_000_000, Runtime.getRuntime().maxMemory() / 8 / 32);
    }

    /**
     * Narrows {@code [lo, hi)} — lo the lowest height not proved impossible, hi the best found, whose
     * offsets {@code best} holds and receives improvements — until they meet or time runs out. Each
     * attempt gets half the time left, so one that stalls leaves time for looser capacities.
     */
    private static Narrowed narrow(PlanProblem problem, long lo, long hi, long[] best, long deadline) {
        long align = problem.alignment();
        long next = lo;
        while (lo < hi) {
            long now = System.nanoTime();
            if (now >= deadline) {
                break;
            }
            long mid = Math.min(hi - 1, Math.max(lo, next));
            long attempt = deadline - now < 50_000_000L ? deadline : now + (deadline - now) / 2;
            long[] found = new long[problem.size()];
            CanonicalSearch.Outcome o = portfolio(problem, mid, attempt, found);
            if (o == CanonicalSearch.Outcome.FOUND) {
                System.arraycopy(found, 0, best, 0, found.length);
                hi = Packing.heightOf(problem, found);
                next = lo + (hi - lo) / 2;
            } else if (o == CanonicalSearch.Outcome.INFEASIBLE) {
                lo = mid + 1;
                next = lo + (hi - lo) / 2;
            } else {
                next = mid + (hi - mid) / 2 + 1; // undecided: try a looser capacity
            }
            next = PlanProblem.alignUp(next, align);
        }
        return new Narrowed(hi, lo >= hi, Math.min(lo, hi));
    }

    /** Static orders {@link #portfolio} takes turns with: width-area-load, load-area-width, load-width-area. */
    private static final int[] ORDER_TURNS = {6, 7, 8};

    /**
     * Decides whether {@code problem} packs within {@code capacity}: rounds of the strict canonical
     * search, each of the orders of {@link #ORDER_TURNS} once per round under a node budget that starts
     * at twice the number of buffers and doubles every round. Search times of one order are heavy tailed
     * (an order either finds a packing fast or wanders), so short runs over several orders find packings
     * far sooner than one long run. Within a run, each component that decomposition splits off is
     * re-ranked by the run's heuristic on the bytes still unplaced in its sections (the load that made
     * the static order is stale by then): on the challenging MiniMalloc problems this alone took E, H
     * and I from no packing in 30 s to one in about a second. States proved to fail are shared between
     * all runs (such entries hold for every order). A run that finishes within its budget without a
     * packing proves there is none.
     */
    static CanonicalSearch.Outcome portfolio(PlanProblem problem, long capacity, long deadline, long[] out) {
        return portfolio(problem, capacity, deadline, out, true);
    }

    /**
     * {@link #portfolio(PlanProblem, long, long, long[])}, with or without re-ranking the components
     * decomposition splits off ({@link CanonicalSearch#reorderComponents}); without, every component
     * keeps the static order (kept for tests that check both reach the same decisions).
     */
    static CanonicalSearch.Outcome portfolio(PlanProblem problem, long capacity, long deadline, long[] out, boolean reorder) {
        if (PerfectPacking.applies(problem, capacity)) {
            // no slack at any step: cut into time pieces and bands first (see TightSplit), with half the
            // time; if a band does not pack, the corner search, complete and far narrower than the
            // canonical one (see PerfectPacking), takes the whole with the rest
            long now = System.nanoTime();
            long half = deadline == Long.MAX_VALUE ? deadline : now + (deadline - now) / 2;
            CanonicalSearch.Outcome o = new TightSplit(problem, capacity, half).runInto(out);
            if (o != CanonicalSearch.Outcome.TIMED_OUT) {
                return o;
            }
            return new PerfectPacking(problem, capacity, deadline).runInto(out);
        }
        LongSet failed = new LongSet(1 << 12);
        int[][] orders = new int[ORDER_TURNS.length][];
        for (int k = 0; k < orders.length; k++) {
            orders[k] = staticOrder(problem, ORDER_TURNS[k]);
        }
        for (long budget = 2L * Math.max(1, problem.size()); ; budget = Math.min(budget * 2, Long.MAX_VALUE / 4)) {
            for (int k = 0; k < orders.length; k++) {
                if (System.nanoTime() > deadline) {
                    return CanonicalSearch.Outcome.TIMED_OUT;
                }
                CanonicalSearch search;
                try {
                    search = new CanonicalSearch(problem, orders[k], capacity, deadline, failed, k)
                            .nodeLimit(budget).strict(true).reorderComponents(reorder ? ORDER_TURNS[k] : -1);
                } catch (CanonicalSearch.PastDeadline e) {
                    return CanonicalSearch.Outcome.TIMED_OUT;
                }
                CanonicalSearch.Outcome o = search.runInto(out);
                if (o != CanonicalSearch.Outcome.TIMED_OUT) {
                    return o;
                }
            }
        }
    }

    /**
     * Problem indices of the non-empty buffers: larger section load first (the most bytes live in any
     * section the buffer spans), then longer lifetimes, then larger sizes, then problem order.
     */
    static int[] staticOrder(PlanProblem problem) {
        return staticOrder(problem, 0);
    }

    /**
     * Problem indices of the non-empty buffers in one of several static orders (all descending, ties
     * in problem order): 0 section load, width, size; 1 size, width; 2 width, size; 3 area (width x
     * size), load; 4 load, size, width; 5 load, area; 6 width, area, load; 7 load, area, width;
     * 8 load, width, area.
     */
    static int[] staticOrder(PlanProblem problem, int heuristic) {
        int n = problem.size();
        long[] load = sectionLoad(problem);
        long[] width = new long[n];
        long[] size = new long[n];
        long[] area = new long[n];
        for (int i = 0; i < n; i++) {
            width[i] = problem.buffers().get(i).upper() - problem.buffers().get(i).lower();
            size[i] = problem.alignedSize(i);
            area[i] = Math.multiplyHigh(width[i], size[i]) != 0 ? Long.MAX_VALUE : width[i] * size[i];
        }
        Integer[] idx = new Integer[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (size[i] > 0) {
                idx[k++] = i;
            }
        }
        idx = Arrays.copyOf(idx, k);
        Arrays.sort(idx, byHeuristic(heuristic, load, width, size, area).thenComparingInt(i -> i));
        return Arrays.stream(idx).mapToInt(Integer::intValue).toArray();
    }

    /**
     * Orders indices into the given key arrays by {@link #staticOrder(PlanProblem, int)}'s heuristic
     * {@code heuristic} (all keys descending; ties left to the caller). Also what
     * {@link CanonicalSearch} re-ranks a component with, on keys taken from what is left of it.
     */
    static Comparator<Integer> byHeuristic(int heuristic, long[] load, long[] width, long[] size, long[] area) {
        return switch (heuristic) {
            case 0 -> desc(load).thenComparing(desc(width)).thenComparing(desc(size));
            case 1 -> desc(size).thenComparing(desc(width));
            case 2 -> desc(width).thenComparing(desc(size));
            case 3 -> desc(area).thenComparing(desc(load));
            case 4 -> desc(load).thenComparing(desc(size)).thenComparing(desc(width));
            case 5 -> desc(load).thenComparing(desc(area));
            case 6 -> desc(width).thenComparing(desc(area)).thenComparing(desc(load));
            case 7 -> desc(load).thenComparing(desc(area)).thenComparing(desc(width));
            default -> desc(load).thenComparing(desc(width)).thenComparing(desc(area));
        };
    }

    private static Comparator<Integer> desc(long[] key) {
        return (a, b) -> Long.compare(key[b], key[a]);
    }

    /** For each buffer, the most bytes live at one step of its lifetime. */
    static long[] sectionLoad(PlanProblem problem) {
        int n = problem.size();
        long[] points = new long[2 * n];
        for (int i = 0; i < n; i++) {
            points[2 * i] = problem.buffers().get(i).lower();
            points[2 * i + 1] = problem.buffers().get(i).upper();
        }
        Arrays.sort(points);
        long[] pts = Arrays.stream(points).distinct().toArray();
        long[] diff = new long[pts.length + 1];
        for (int i = 0; i < n; i++) {
            diff[Arrays.binarySearch(pts, problem.buffers().get(i).lower())] += problem.alignedSize(i);
            diff[Arrays.binarySearch(pts, problem.buffers().get(i).upper())] -= problem.alignedSize(i);
        }
        long[] live = new long[pts.length];
        long run = 0;
        for (int s = 0; s < pts.length; s++) {
            run += diff[s];
            live[s] = run;
        }
        long[] load = new long[n];
        for (int i = 0; i < n; i++) {
            int a = Arrays.binarySearch(pts, problem.buffers().get(i).lower());
            int b = Arrays.binarySearch(pts, problem.buffers().get(i).upper());
            for (int s = a; s < b; s++) {
                load[i] = Math.max(load[i], live[s]);
            }
        }
        return load;
    }
}
