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
 * <p>Each decision is made by {@link #portfolio}: restarts of the search over several static orders of
 * the buffers (section load, lifetime, size, area in various priorities, then perturbed ones); at each
 * node candidates go in order of floor, then the round's order. Thread-safe (each call owns its state).
 */
public record SearchPlanner() implements Planner {

    @Override
    public String name() {
        return "search";
    }

    @Override
    public Packing plan(PlanProblem problem, long capacity, long timeLimitNanos) {
        long t0 = System.nanoTime();
        long deadline = t0 + Math.max(0, timeLimitNanos);
        if (deadline < t0) {
            deadline = Long.MAX_VALUE;
        }
        long lb = problem.lowerBound();
        long[] best = GreedyBySizePlanner.place(problem);
        long bestHeight = Packing.heightOf(problem, best);
        boolean timedOut = false;
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
                    long lo = o == CanonicalSearch.Outcome.INFEASIBLE ? capacity + 1 : Math.max(lb, capacity + 1);
                    long[] b = best.clone();
                    bestHeight = narrow(problem, lo, bestHeight, b, deadline).height;
                    best = b;
                }
            }
        } else {
            long[] b = best.clone();
            Narrowed r = narrow(problem, lb, bestHeight, b, deadline);
            best = b;
            bestHeight = r.height;
            timedOut = !r.closed;
        }
        return new Packing(problem, best, bestHeight, lb, capacity, name(), System.nanoTime() - t0, timedOut);
    }

    private record Narrowed(long height, boolean closed) {}

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
        return new Narrowed(hi, lo >= hi);
    }

    /** Node budget of the first round of {@link #portfolio}; later rounds grow by the Luby sequence. */
    static final long BASE_NODES = 30_000;

    /**
     * Decides whether {@code problem} packs within {@code capacity}: rounds of the search, each with
     * another static order (the fixed heuristics first, then randomly perturbed ones; every other round
     * on the problem mirrored in time) and a node budget of {@link #BASE_NODES} times the Luby sequence
     * (1, 1, 2, 1, 1, 2, 4, ...). States proved to fail are shared between rounds of one direction. Search times of one order
     * are heavy tailed — an order either finds a packing fast or wanders — so restarts across orders find
     * packings far sooner than any one order. A round that finishes without a packing proves there is none.
     */
    static CanonicalSearch.Outcome portfolio(PlanProblem problem, long capacity, long deadline, long[] out) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(0xA11CE);
        CanonicalSearch.LongSet failed = new CanonicalSearch.LongSet(1 << 12);
        CanonicalSearch.LongSet failedMirrored = new CanonicalSearch.LongSet(1 << 12);
        PlanProblem mirrored = mirror(problem);
        for (int round = 0; ; round++) {
            if (System.nanoTime() > deadline) {
                return CanonicalSearch.Outcome.TIMED_OUT;
            }
            // odd rounds search the problem mirrored in time: the same packings, met in another order
            PlanProblem q = (round & 1) == 0 || !MIRROR ? problem : mirrored;
            int h = (MIRROR ? round / 2 : round) % ORDERS;
            int[] order = (MIRROR ? round / 2 : round) < ORDERS ? staticOrder(q, h) : perturb(staticOrder(q, h), rnd);
            CanonicalSearch search = new CanonicalSearch(q, order, capacity, deadline, (round & 1) == 0 ? failed : failedMirrored, round).nodeLimit(BASE_NODES * luby(round + 1));
            CanonicalSearch.Outcome o = search.runInto(out);
            if (o != CanonicalSearch.Outcome.TIMED_OUT) {
                return o;
            }
        }
    }

    /** Whether odd rounds search the time-mirrored problem. */
    static final boolean MIRROR = true;

    /** The problem with time reversed: buffer i lives over {@code [T - upper, T - lower)}; offsets carry over. */
    static PlanProblem mirror(PlanProblem p) {
        long t = 0;
        for (PlanBuffer b : p.buffers()) {
            t = Math.max(t, b.upper());
        }
        java.util.List<PlanBuffer> bs = new java.util.ArrayList<>(p.size());
        for (PlanBuffer b : p.buffers()) {
            bs.add(new PlanBuffer(b.id(), t - b.upper(), t - b.lower(), b.size()));
        }
        return new PlanProblem(bs, p.alignment());
    }

    /** The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ... (i from 1). */
    static long luby(long i) {
        long k = 1;
        while ((1L << k) - 1 < i) {
            k++;
        }
        while (true) {
            if (i == (1L << k) - 1) {
                return 1L << (k - 1);
            }
            i -= (1L << (k - 1)) - 1;
            k = 1;
            while ((1L << k) - 1 < i) {
                k++;
            }
        }
    }

    /** {@code order} with random swaps of near neighbours (each element moves a few places at most). */
    static int[] perturb(int[] order, java.util.SplittableRandom rnd) {
        int[] o = order.clone();
        for (int i = 0; i + 1 < o.length; i++) {
            if (rnd.nextInt(4) == 0) {
                int j = Math.min(o.length - 1, i + 1 + rnd.nextInt(3));
                int t = o[i];
                o[i] = o[j];
                o[j] = t;
            }
        }
        return o;
    }

    /**
     * Problem indices of the non-empty buffers: larger section load first (the most bytes live in any
     * section the buffer spans), then longer lifetimes, then larger sizes, then problem order.
     */
    static int[] staticOrder(PlanProblem problem) {
        return staticOrder(problem, 0);
    }

    /** Number of static orders {@link #staticOrder(PlanProblem, int)} knows. */
    static final int ORDERS = 9;

    /**
     * Problem indices of the non-empty buffers in one of several static orders (all descending, ties
     * in problem order): 0 section load, width, size; 1 size, width; 2 width, size; 3 area (width x
     * size), load; 4 load, size, width; 5 load, area.
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
        Comparator<Integer> by = switch (heuristic) {
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
        Arrays.sort(idx, by.thenComparingInt(i -> i));
        return Arrays.stream(idx).mapToInt(Integer::intValue).toArray();
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
