package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Plans a {@link BankProblem}: which bank each buffer goes into, and where in that bank's arena.
 *
 * <p><b>Small problems</b> (up to {@link #EXHAUSTIVE_LIMIT} buffers) are searched exhaustively: a
 * branch and bound over the assignments, buffers in order of what they save, each tried in its banks
 * cheapest first; a branch is cut when its cost plus the cheapest cost of the buffers left cannot beat
 * the best found, or when a bank's buffers so far cannot be packed within its capacity (a set that does
 * not pack never packs with more buffers in it, so the cut is safe). Each bank's packing is the search
 * planner's, proved or refuted; the answer is proved optimal when no packing check ran out of time.
 *
 * <p><b>Larger problems</b> are filled bank by bank, cheapest first. Into each bank go first the buffers
 * that have no later choice, then the others in order of saving per byte-step (the cost saved over the
 * buffer's next bank, divided by its lifetime) as long as the bytes live at every step of their lifetime
 * stay within the capacity; the set is packed, buffers the packing put above the capacity go on to later
 * banks, and the rest are tried once more by first fit around what was placed. While time is left, each
 * buffer turned away is tried again with the whole bank packed anew.
 *
 * <p><b>The bound.</b> Any assignment costs at least: each buffer in its cheapest allowed bank, or, for a
 * buffer that may use the cheapest bank of all, its second-cheapest bank minus what the cheapest bank can
 * save. That saving is bounded from the linear relaxation's dual: for checkpoints chosen in time, the
 * cheapest bank's capacity (less its pinned buffers) at each checkpoint, times the largest saving per
 * byte, plus the savings of the buffers live at no checkpoint. The checkpoints are chosen by dynamic
 * programming over the buffers' start steps to make the bound lowest. Thread-safe and stateless.
 */
public final class BankPlanner {
    /** Problems up to this many buffers are searched exhaustively. */
    public static final int EXHAUSTIVE_LIMIT = 20;
    /** Above this many buffers in a bank, a turned-away buffer is not tried again with a new packing. */
    static final int REPACK_LIMIT = 10_000;
    private static final int MAX_CHECKPOINTS = 3_000;
    /** Above this many buffers, no ruin-and-recreate rounds (each costs a pass over the buffers). */
    static final int LNS_LIMIT = 20_000;

    /** Plans {@code bp} within {@code timeLimitNanos} (a packing is always returned). */
    public BankPlan plan(BankProblem bp, long timeLimitNanos) {
        long t0 = System.nanoTime();
        long deadline = t0 + Math.min(Math.max(0, timeLimitNanos), Long.MAX_VALUE / 4);
        double bound = costBound(bp);
        if (bp.size() <= EXHAUSTIVE_LIMIT) {
            BankPlan exact = new Exhaustive(bp, deadline).run(t0, bound);
            if (exact != null) {
                return exact;
            }
        }
        return new Filling(bp, deadline).run(t0, bound);
    }

    // ---------------------------------------------------------------- shared

    /** The banks' indexes from cheapest to dearest (ties: the order given). */
    static int[] byCost(BankProblem bp) {
        Integer[] o = new Integer[bp.banks().size()];
        for (int i = 0; i < o.length; i++) {
            o[i] = i;
        }
        Arrays.sort(o, (x, y) -> Double.compare(bp.banks().get(x).cost(), bp.banks().get(y).cost()));
        int[] out = new int[o.length];
        for (int i = 0; i < o.length; i++) {
            out[i] = o[i];
        }
        return out;
    }

    /** The packing of {@code members} (buffer indexes, ascending) of {@code whole} within {@code capacity}. */
    static Packing pack(PlanProblem whole, int[] members, long capacity, long limitNanos, boolean search) {
        List<PlanBuffer> bs = new ArrayList<>(members.length);
        for (int i : members) {
            bs.add(whole.buffers().get(i));
        }
        PlanProblem sub = new PlanProblem(bs, whole.alignment());
        if (bs.isEmpty()) {
            return new Packing(sub, new long[0], 0, 0, capacity, "none", 0, false);
        }
        Planner p = search ? new SearchPlanner() : Planner.auto(sub, capacity);
        return p.plan(sub, capacity, Math.max(0, limitNanos));
    }

    private static BankPlan assemble(BankProblem bp, int[] bankOf, long[] offsets, Packing[] packings, double bound,
                                     boolean exhaustive, boolean timedOut, long t0) {
        double cost = bp.cost(bankOf);
        return new BankPlan(bp, bankOf, offsets, Arrays.asList(packings), cost, exhaustive ? Math.max(bound, cost) : bound,
                exhaustive, timedOut, System.nanoTime() - t0);
    }

    /** Packings and offsets for a complete assignment whose banks' member sets were packed. */
    private static BankPlan fromPackings(BankProblem bp, int[] bankOf, Map<Integer, Packing> byBank, double bound,
                                         boolean exhaustive, boolean timedOut, long t0) {
        int nb = bp.banks().size();
        Packing[] packings = new Packing[nb];
        long[] offsets = new long[bp.size()];
        for (int b = 0; b < nb; b++) {
            int[] members = members(bankOf, b);
            Packing p = byBank.get(b);
            if (p == null) {
                p = pack(bp.problem(), members, bp.banks().get(b).capacity(), 0, false);
            }
            packings[b] = p;
            for (int k = 0; k < members.length; k++) {
                offsets[members[k]] = p.offset(k);
            }
        }
        return assemble(bp, bankOf, offsets, packings, bound, exhaustive, timedOut, t0);
    }

    static int[] members(int[] bankOf, int b) {
        int c = 0;
        for (int k : bankOf) {
            c += k == b ? 1 : 0;
        }
        int[] out = new int[c];
        c = 0;
        for (int i = 0; i < bankOf.length; i++) {
            if (bankOf[i] == b) {
                out[c++] = i;
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- the exhaustive search

    private static final class Exhaustive {
        private final BankProblem bp;
        private final long deadline;
        private final int n;
        private final int[] banks;
        private final int[] order;
        private final double[] cheapestLeft;
        private final long[] mask;
        private final int[] current;
        private final List<Map<Long, Packing>> tried = new ArrayList<>();
        private double best = Double.POSITIVE_INFINITY;
        private int[] bestAssignment;
        private boolean complete = true;

        Exhaustive(BankProblem bp, long deadline) {
            this.bp = bp;
            this.deadline = deadline;
            n = bp.size();
            banks = byCost(bp);
            mask = new long[bp.banks().size()];
            current = new int[n];
            for (int b = 0; b < mask.length; b++) {
                tried.add(new HashMap<>());
            }
            Integer[] o = new Integer[n];
            for (int i = 0; i < n; i++) {
                o[i] = i;
            }
            Arrays.sort(o, (x, y) -> Double.compare(spread(y), spread(x)));
            order = new int[n];
            for (int i = 0; i < n; i++) {
                order[i] = o[i];
            }
            cheapestLeft = new double[n + 1];
            for (int k = n - 1; k >= 0; k--) {
                double c = Double.POSITIVE_INFINITY;
                for (int b = 0; b < mask.length; b++) {
                    if (bp.allows(order[k], b)) {
                        c = Math.min(c, bp.cost(order[k], b));
                    }
                }
                cheapestLeft[k] = cheapestLeft[k + 1] + c;
            }
        }

        /** How much the choice of bank matters for buffer i: its dearest allowed cost less its cheapest. */
        private double spread(int i) {
            double lo = Double.POSITIVE_INFINITY;
            double hi = 0;
            for (int b = 0; b < bp.banks().size(); b++) {
                if (bp.allows(i, b)) {
                    lo = Math.min(lo, bp.cost(i, b));
                    hi = Math.max(hi, bp.cost(i, b));
                }
            }
            return hi - lo;
        }

        BankPlan run(long t0, double bound) {
            search(0, 0);
            if (bestAssignment == null) {
                return null; // nothing fits (or no time): the filling says how close it came
            }
            Map<Integer, Packing> byBank = new HashMap<>();
            for (int b = 0; b < mask.length; b++) {
                long m = 0;
                for (int i = 0; i < n; i++) {
                    m |= bestAssignment[i] == b ? 1L << i : 0;
                }
                Packing p = tried.get(b).get(m);
                if (p != null) {
                    byBank.put(b, p);
                }
            }
            return fromPackings(bp, bestAssignment, byBank, bound, complete, !complete, t0);
        }

        private void search(int k, double cost) {
            if (System.nanoTime() > deadline) {
                complete = false;
                return;
            }
            if (k == n) {
                if (cost < best) {
                    best = cost;
                    bestAssignment = current.clone();
                }
                return;
            }
            if (cost + cheapestLeft[k] >= best * (1 - 1e-12)) {
                return;
            }
            int i = order[k];
            for (int b : banks) {
                if (!bp.allows(i, b)) {
                    continue;
                }
                long m = mask[b] | 1L << i;
                if (packs(b, m)) {
                    mask[b] = m;
                    current[i] = b;
                    search(k + 1, cost + bp.cost(i, b));
                    mask[b] ^= 1L << i;
                }
            }
        }

        private boolean packs(int b, long m) {
            Map<Long, Packing> seen = tried.get(b);
            Packing p = seen.get(m);
            if (p == null) {
                int[] members = new int[Long.bitCount(m)];
                for (int i = 0, c = 0; i < n; i++) {
                    if ((m >>> i & 1) != 0) {
                        members[c++] = i;
                    }
                }
                long cap = bp.banks().get(b).capacity();
                p = pack(bp.problem(), members, cap, Math.min(1_000_000_000L, deadline - System.nanoTime()), true);
                if (!p.fits() && p.timedOut() && p.bound() <= cap) {
                    complete = false; // not refuted, only not found in time
                }
                seen.put(m, p);
            }
            return p.fits();
        }
    }

    // ---------------------------------------------------------------- filling bank by bank

    private static final class Filling {
        private final BankProblem bp;
        private final long deadline;
        private final PlanProblem problem;
        private final int n;
        private final int[] banks;
        private final int[] bankOf;
        private final long[] offsets;
        private boolean timedOut;

        Filling(BankProblem bp, long deadline) {
            this.bp = bp;
            this.deadline = deadline;
            problem = bp.problem();
            n = bp.size();
            banks = byCost(bp);
            bankOf = new int[n];
            Arrays.fill(bankOf, -1);
            offsets = new long[n];
        }

        BankPlan run(long t0, double bound) {
            Packing[] packings = new Packing[banks.length];
            for (int r = 0; r < banks.length; r++) {
                int b = banks[r];
                packings[b] = fill(r, b);
            }
            if (banks.length > 1 && n <= LNS_LIMIT && fits(packings) && bp.cost(bankOf) > bound * (1 + 1e-12)) {
                improve(bound);
                for (int b = 0; b < banks.length; b++) {
                    packings[b] = asPlaced(b);
                }
            }
            return assemble(bp, bankOf, offsets, packings, bound, false, timedOut, t0);
        }

        private boolean fits(Packing[] packings) {
            for (int b = 0; b < packings.length; b++) {
                if (packings[b].height() > bp.banks().get(b).capacity()) {
                    return false;
                }
            }
            return true;
        }

        /** Bank b's buffers at their offsets as a packing record. */
        private Packing asPlaced(int b) {
            int[] mine = members(bankOf, b);
            List<PlanBuffer> bs = new ArrayList<>(mine.length);
            long[] off = new long[mine.length];
            for (int k = 0; k < mine.length; k++) {
                bs.add(problem.buffers().get(mine[k]));
                off[k] = offsets[mine[k]];
            }
            PlanProblem sub = new PlanProblem(bs, problem.alignment());
            return new Packing(sub, off, Packing.heightOf(sub, off), sub.lowerBound(), bp.banks().get(b).capacity(), "banks", 0, false);
        }

        /**
         * Ruin and recreate on the cheapest bank until the deadline (or the bound is met): a random window
         * of time is emptied of the cheapest bank's movable buffers, then refilled by first fit from every
         * buffer live in the window that may use the bank, in order of saving with some noise; buffers
         * that lost their place go by first fit into their next bank. A round that lowers the cost (or
         * keeps it, a third of the time) is kept, else undone. Every state is a valid packing.
         */
        private void improve(double bound) {
            int cheap = banks[0];
            long cap = bp.banks().get(cheap).capacity();
            Random random = new Random(0x5eed);
            long[] starts = new long[n];
            for (int i = 0; i < n; i++) {
                starts[i] = problem.buffers().get(i).lower();
            }
            long[] sortedStarts = starts.clone();
            Arrays.sort(sortedStarts);
            long lastEnd = 0;
            for (PlanBuffer b : problem.buffers()) {
                lastEnd = Math.max(lastEnd, b.upper());
            }
            double cost = bp.cost(bankOf);
            int[] keepBank = bankOf.clone();
            long[] keepOffset = offsets.clone();
            double[] save = new double[n];
            for (int i = 0; i < n; i++) {
                save[i] = bp.allows(i, cheap) && laterChoice(i, 0) ? saving(i, 0) : Double.NEGATIVE_INFINITY;
            }
            List<Integer> removed = new ArrayList<>();
            List<Integer> cands = new ArrayList<>();
            double[] key = new double[n];
            while (System.nanoTime() < deadline && cost > bound * (1 + 1e-12)) {
                long t0 = sortedStarts[random.nextInt(n)];
                long span = 1 + (long) ((lastEnd - t0) * Math.pow(random.nextDouble(), 3));
                long t1 = t0 + span;
                removed.clear();
                cands.clear();
                for (int i = 0; i < n; i++) {
                    PlanBuffer b = problem.buffers().get(i);
                    if (b.lower() < t1 && t0 < b.upper() && save[i] != Double.NEGATIVE_INFINITY) {
                        if (bankOf[i] == cheap) {
                            removed.add(i);
                            bankOf[i] = -1;
                        }
                        cands.add(i);
                        key[i] = save[i] * (1 + 0.3 * random.nextGaussian());
                    }
                }
                if (cands.isEmpty()) {
                    continue;
                }
                cands.sort((x, y) -> Double.compare(key[y], key[x]));
                for (int i : cands) {
                    if (bankOf[i] == cheap) {
                        continue;
                    }
                    long off = lowestFit(i, cheap, cap);
                    if (off >= 0) {
                        bankOf[i] = cheap;
                        offsets[i] = off;
                    }
                }
                boolean ok = true;
                for (int i : removed) {
                    if (bankOf[i] == -1) {
                        ok &= relocate(i);
                    }
                }
                double next = ok ? bp.cost(bankOf) : Double.POSITIVE_INFINITY;
                if (ok && (next < cost - 1e-9 || (next <= cost + 1e-9 && random.nextInt(3) == 0))) {
                    cost = next;
                    System.arraycopy(bankOf, 0, keepBank, 0, n);
                    System.arraycopy(offsets, 0, keepOffset, 0, n);
                } else {
                    System.arraycopy(keepBank, 0, bankOf, 0, n);
                    System.arraycopy(keepOffset, 0, offsets, 0, n);
                }
            }
        }

        /** Buffer i into the cheapest bank after the first where first fit finds it room; false when none. */
        private boolean relocate(int i) {
            for (int r = 1; r < banks.length; r++) {
                int b = banks[r];
                if (!bp.allows(i, b)) {
                    continue;
                }
                long off = lowestFit(i, b, bp.banks().get(b).capacity());
                if (off >= 0) {
                    bankOf[i] = b;
                    offsets[i] = off;
                    return true;
                }
            }
            return false;
        }

        /** The lowest offset in bank b where buffer i shares no byte with the bank's buffers live with it, or -1 above cap. */
        private long lowestFit(int i, int b, long cap) {
            PlanBuffer me = problem.buffers().get(i);
            long size = problem.alignedSize(i);
            if (size == 0) {
                return 0;
            }
            List<long[]> taken = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                if (j != i && bankOf[j] == b && problem.alignedSize(j) > 0 && problem.buffers().get(j).overlapsInTime(me)) {
                    taken.add(new long[] {offsets[j], offsets[j] + problem.alignedSize(j)});
                }
            }
            long off = lowestGap(taken, size);
            return off + size <= cap ? off : -1;
        }

        /** Whether buffer i may still go into a bank after the r-th cheapest. */
        private boolean laterChoice(int i, int r) {
            for (int q = r + 1; q < banks.length; q++) {
                if (bp.allows(i, banks[q])) {
                    return true;
                }
            }
            return false;
        }

        /** Cost per byte-step saved by putting buffer i in the r-th cheapest bank rather than its next one. */
        private double saving(int i, int r) {
            for (int q = r + 1; q < banks.length; q++) {
                if (bp.allows(i, banks[q])) {
                    PlanBuffer b = problem.buffers().get(i);
                    double d = bp.cost(i, banks[q]) - bp.cost(i, banks[r]);
                    long size = Math.max(1, problem.alignedSize(i));
                    return d / size / (double) (b.upper() - b.lower());
                }
            }
            return Double.POSITIVE_INFINITY;
        }

        private Packing fill(int r, int b) {
            long cap = bp.banks().get(b).capacity();
            List<Integer> must = new ArrayList<>();
            List<Integer> maybe = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (bankOf[i] < 0 && bp.allows(i, b)) {
                    (laterChoice(i, r) ? maybe : must).add(i);
                }
            }
            double[] save = new double[n];
            for (int i : maybe) {
                save[i] = saving(i, r);
            }
            maybe.sort((x, y) -> {
                int c = Double.compare(save[y], save[x]);
                return c != 0 ? c : Long.compare(problem.alignedSize(y), problem.alignedSize(x));
            });
            long share = Math.max(0, (deadline - System.nanoTime()) / Math.max(1, banks.length - r));
            long bankDeadline = System.nanoTime() + share;

            // the buffers with no later choice, and the others while the load allows
            Load load = new Load(problem, must);
            List<Integer> chosen = new ArrayList<>(must);
            List<Integer> away = new ArrayList<>();
            for (int i : maybe) {
                if (load.fits(i, cap)) {
                    load.add(i);
                    chosen.add(i);
                } else {
                    away.add(i);
                }
            }
            int[] set = sorted(chosen);
            Packing p = pack(problem, set, cap, (bankDeadline - System.nanoTime()) / 2, false);
            timedOut |= p.timedOut();
            boolean[] isMust = new boolean[n];
            for (int i : must) {
                isMust[i] = true;
            }
            List<Integer> placed = new ArrayList<>();
            List<Long> at = new ArrayList<>();
            boolean mustAbove = false;
            for (int k = 0; k < set.length; k++) {
                int i = set[k];
                boolean above = p.offset(k) + problem.alignedSize(i) > cap;
                mustAbove |= above && isMust[i];
            }
            if (mustAbove) {
                // what has to be here first, packed on its own; the others around it
                int[] mset = sorted(must);
                Packing pm = pack(problem, mset, cap, (bankDeadline - System.nanoTime()) / 2, false);
                timedOut |= pm.timedOut();
                for (int k = 0; k < mset.length; k++) {
                    placed.add(mset[k]);
                    at.add(pm.offset(k));
                }
                away.clear();
                for (int i : maybe) {
                    away.add(i);
                }
                away.sort((x, y) -> Double.compare(save[y], save[x]));
            } else {
                for (int k = 0; k < set.length; k++) {
                    int i = set[k];
                    if (p.offset(k) + problem.alignedSize(i) > cap) {
                        away.add(i);
                    } else {
                        placed.add(i);
                        at.add(p.offset(k));
                    }
                }
                away.sort((x, y) -> {
                    int c = Double.compare(save[y], save[x]);
                    return c != 0 ? c : Long.compare(problem.alignedSize(y), problem.alignedSize(x));
                });
            }
            firstFit(away, placed, at, cap);
            // while time is left: each buffer turned away, with the whole bank packed anew
            if (placed.size() < REPACK_LIMIT) {
                for (int k = 0; k < away.size(); k++) {
                    long left = bankDeadline - System.nanoTime();
                    if (left <= 0) {
                        timedOut = true;
                        break;
                    }
                    int i = away.get(k);
                    if (i < 0) {
                        continue;
                    }
                    List<Integer> trial = new ArrayList<>(placed);
                    trial.add(i);
                    int[] tset = sorted(trial);
                    Packing tp = pack(problem, tset, cap, Math.min(left, Math.max(20_000_000L, left / Math.max(1, away.size() - k))), true);
                    if (tp.fits()) {
                        placed.clear();
                        at.clear();
                        for (int q = 0; q < tset.length; q++) {
                            placed.add(tset[q]);
                            at.add(tp.offset(q));
                        }
                        away.set(k, -1);
                        firstFit(away.subList(k + 1, away.size()), placed, at, cap);
                    }
                }
            }
            for (int q = 0; q < placed.size(); q++) {
                bankOf[placed.get(q)] = b;
                offsets[placed.get(q)] = at.get(q);
            }
            // the bank's packing as placed (buffers overlapping in time never share a byte; the height
            // is past the capacity only where buffers with no other bank did not fit: exit 3)
            return asPlaced(b);
        }

        /**
         * Each buffer of {@code away} (in order) at the lowest offset where it shares no byte with a
         * placed buffer live at a common step, when that is within {@code cap}; placed ones are marked -1.
         */
        private void firstFit(List<Integer> away, List<Integer> placed, List<Long> at, long cap) {
            for (int k = 0; k < away.size(); k++) {
                int i = away.get(k);
                if (i < 0) {
                    continue;
                }
                if ((long) placed.size() * away.size() > 400_000_000L) {
                    return; // too many to try one by one
                }
                PlanBuffer b = problem.buffers().get(i);
                long size = problem.alignedSize(i);
                List<long[]> taken = new ArrayList<>();
                for (int q = 0; q < placed.size(); q++) {
                    int j = placed.get(q);
                    if (problem.buffers().get(j).overlapsInTime(b)) {
                        long s = problem.alignedSize(j);
                        if (s > 0) {
                            taken.add(new long[] {at.get(q), at.get(q) + s});
                        }
                    }
                }
                long off = lowestGap(taken, size);
                if (size == 0 || off + size <= cap) {
                    placed.add(i);
                    at.add(size == 0 ? 0 : off);
                    away.set(k, -1);
                }
            }
        }

        private static int[] sorted(List<Integer> xs) {
            int[] a = new int[xs.size()];
            for (int k = 0; k < a.length; k++) {
                a[k] = xs.get(k);
            }
            Arrays.sort(a);
            return a;
        }
    }

    /** The lowest offset at which {@code size} bytes share none of the {@code [start, end)} ranges {@code taken} (sorted here). */
    private static long lowestGap(List<long[]> taken, long size) {
        taken.sort((x, y) -> Long.compare(x[0], y[0]));
        long off = 0;
        for (long[] t : taken) {
            if (t[0] - off >= size) {
                break;
            }
            off = Math.max(off, t[1]);
        }
        return off;
    }

    /** Bytes live at each step, over the problem's compressed steps: range add and range maximum. */
    private static final class Load {
        private final long[] steps;
        private final PlanProblem problem;
        private final long[] max;
        private final long[] pending;
        private final int size;

        Load(PlanProblem problem, List<Integer> initial) {
            this.problem = problem;
            long[] s = new long[2 * problem.size()];
            for (int i = 0; i < problem.size(); i++) {
                s[2 * i] = problem.buffers().get(i).lower();
                s[2 * i + 1] = problem.buffers().get(i).upper();
            }
            Arrays.sort(s);
            int u = 0;
            for (int i = 0; i < s.length; i++) {
                if (u == 0 || s[i] != s[u - 1]) {
                    s[u++] = s[i];
                }
            }
            steps = Arrays.copyOf(s, Math.max(1, u));
            size = Math.max(1, steps.length);
            max = new long[4 * size];
            pending = new long[4 * size];
            for (int i : initial) {
                add(i);
            }
        }

        private int from(int i) {
            return Arrays.binarySearch(steps, problem.buffers().get(i).lower());
        }

        private int to(int i) {
            return Arrays.binarySearch(steps, problem.buffers().get(i).upper()) - 1;
        }

        boolean fits(int i, long cap) {
            return query(1, 0, size - 1, from(i), to(i)) + problem.alignedSize(i) <= cap;
        }

        void add(int i) {
            update(1, 0, size - 1, from(i), to(i), problem.alignedSize(i));
        }

        private void update(int node, int lo, int hi, int a, int b, long v) {
            if (b < lo || hi < a) {
                return;
            }
            if (a <= lo && hi <= b) {
                max[node] += v;
                pending[node] += v;
                return;
            }
            int mid = (lo + hi) >>> 1;
            update(2 * node, lo, mid, a, b, v);
            update(2 * node + 1, mid + 1, hi, a, b, v);
            max[node] = pending[node] + Math.max(max[2 * node], max[2 * node + 1]);
        }

        private long query(int node, int lo, int hi, int a, int b) {
            if (b < lo || hi < a) {
                return Long.MIN_VALUE / 4;
            }
            if (a <= lo && hi <= b) {
                return max[node];
            }
            int mid = (lo + hi) >>> 1;
            return pending[node] + Math.max(query(2 * node, lo, mid, a, b), query(2 * node + 1, mid + 1, hi, a, b));
        }
    }

    // ---------------------------------------------------------------- the bound

    /** A proved lower bound on the cost of any assignment of {@code bp} that fits. */
    static double costBound(BankProblem bp) {
        int n = bp.size();
        int nb = bp.banks().size();
        int cheapest = byCost(bp)[0];
        double trivial = 0;
        double relaxed = 0;
        PlanProblem p = bp.problem();
        List<Integer> flexible = new ArrayList<>();
        List<Integer> pinned = new ArrayList<>();
        double[] perByte = new double[n];
        double lambda = 0;
        for (int i = 0; i < n; i++) {
            double lo = Double.POSITIVE_INFINITY;
            double second = Double.POSITIVE_INFINITY;
            for (int b = 0; b < nb; b++) {
                if (!bp.allows(i, b)) {
                    continue;
                }
                double c = bp.cost(i, b);
                lo = Math.min(lo, c);
                if (b != cheapest) {
                    second = Math.min(second, c);
                }
            }
            trivial += lo;
            if (!bp.allows(i, cheapest)) {
                relaxed += lo;
            } else if (Double.isInfinite(second)) {
                relaxed += lo;
                pinned.add(i);
            } else {
                relaxed += second;
                long size = p.alignedSize(i);
                if (size > 0) {
                    perByte[i] = (second - lo) / size;
                    lambda = Math.max(lambda, perByte[i]);
                    flexible.add(i);
                }
            }
        }
        if (flexible.isEmpty()) {
            return trivial;
        }
        long capacity = bp.banks().get(cheapest).capacity();
        double savings = Math.min(savingsBound(p, flexible, pinned, perByte, lambda, capacity),
                dualDescent(p, flexible, pinned, perByte, lambda, capacity));
        return Math.max(trivial, relaxed - savings);
    }

    /**
     * The relaxation's dual with a price {@code y} on the cheapest bank's capacity at every step between
     * two consecutive starts or ends, improved by projected subgradient steps: for any prices at or above
     * zero, {@code sum y(k) * capacityLeft(k) + sum over buffers of size * max(0, saving per byte - the
     * prices over its lifetime)} bounds what the bank can save (weak duality), so every iterate is a valid
     * bound and the lowest is kept.
     */
    private static double dualDescent(PlanProblem p, List<Integer> flexible, List<Integer> pinned, double[] perByte,
                                      double lambda, long capacity) {
        int m = flexible.size();
        long[] pts = new long[2 * (m + pinned.size())];
        int c = 0;
        for (int i : flexible) {
            pts[c++] = p.buffers().get(i).lower();
            pts[c++] = p.buffers().get(i).upper();
        }
        for (int i : pinned) {
            pts[c++] = p.buffers().get(i).lower();
            pts[c++] = p.buffers().get(i).upper();
        }
        Arrays.sort(pts);
        int u = 0;
        for (int k = 0; k < pts.length; k++) {
            if (u == 0 || pts[k] != pts[u - 1]) {
                pts[u++] = pts[k];
            }
        }
        int segments = Math.max(1, u - 1); // segment k: steps [pts[k], pts[k+1])
        double[] left = new double[segments];
        long[] pinnedDiff = new long[segments + 1];
        for (int i : pinned) {
            PlanBuffer b = p.buffers().get(i);
            pinnedDiff[Arrays.binarySearch(pts, 0, u, b.lower())] += p.alignedSize(i);
            pinnedDiff[Arrays.binarySearch(pts, 0, u, b.upper())] -= p.alignedSize(i);
        }
        long run = 0;
        for (int k = 0; k < segments; k++) {
            run += pinnedDiff[k];
            left[k] = Math.max(0, capacity - run);
        }
        int[] from = new int[m];
        int[] to = new int[m];
        double[] size = new double[m];
        double[] w = new double[m];
        for (int q = 0; q < m; q++) {
            int i = flexible.get(q);
            from[q] = Arrays.binarySearch(pts, 0, u, p.buffers().get(i).lower());
            to[q] = Arrays.binarySearch(pts, 0, u, p.buffers().get(i).upper()); // exclusive
            size[q] = p.alignedSize(i);
            w[q] = perByte[i];
        }
        double[] y = new double[segments];
        double[] prefix = new double[segments + 1];
        double[] grad = new double[segments + 1];
        double best = Double.POSITIVE_INFINITY;
        int iterations = (int) Math.max(50, Math.min(3_000, 300_000_000L / Math.max(1, m + segments)));
        for (int it = 0; it < iterations; it++) {
            for (int k = 0; k < segments; k++) {
                prefix[k + 1] = prefix[k] + y[k];
            }
            double value = 0;
            for (int k = 0; k < segments; k++) {
                value += y[k] * left[k];
            }
            Arrays.fill(grad, 0);
            for (int q = 0; q < m; q++) {
                double priced = prefix[to[q]] - prefix[from[q]];
                if (priced < w[q]) {
                    value += size[q] * (w[q] - priced);
                    grad[from[q]] -= size[q];
                    grad[to[q]] += size[q];
                }
            }
            best = Math.min(best, value);
            // the subgradient: capacity left minus the bytes still earning at each segment
            double run2 = 0;
            double norm = 0;
            for (int k = 0; k < segments; k++) {
                run2 += grad[k];
                grad[k] = left[k] + run2;
                norm = Math.max(norm, Math.abs(grad[k]));
            }
            if (norm == 0) {
                break;
            }
            double step = lambda / Math.sqrt(it + 1.0) / norm;
            for (int k = 0; k < segments; k++) {
                y[k] = Math.max(0, y[k] - step * grad[k]);
            }
        }
        return best;
    }

    /**
     * The most the cheapest bank can save: the dual of the relaxation with a price {@code lambda} on its
     * capacity at chosen checkpoints; buffers live at no checkpoint keep their whole saving.
     */
    private static double savingsBound(PlanProblem p, List<Integer> flexible, List<Integer> pinned, double[] perByte,
                                       double lambda, long capacity) {
        long[] pts = new long[flexible.size()];
        for (int k = 0; k < pts.length; k++) {
            pts[k] = p.buffers().get(flexible.get(k)).lower();
        }
        Arrays.sort(pts);
        int u = 0;
        for (int k = 0; k < pts.length; k++) {
            if (u == 0 || pts[k] != pts[u - 1]) {
                pts[u++] = pts[k];
            }
        }
        if (u > MAX_CHECKPOINTS) {
            long[] fewer = new long[MAX_CHECKPOINTS];
            for (int k = 0; k < MAX_CHECKPOINTS; k++) {
                fewer[k] = pts[(int) ((long) k * u / MAX_CHECKPOINTS)];
            }
            pts = fewer;
            u = MAX_CHECKPOINTS;
        } else {
            pts = Arrays.copyOf(pts, u);
        }
        int t = u;
        // the capacity left at each checkpoint by the buffers pinned to the cheapest bank
        double[] price = new double[t];
        long[] pinnedLoad = new long[t];
        for (int i : pinned) {
            PlanBuffer b = p.buffers().get(i);
            int a = lowerIndex(pts, b.lower());
            for (int k = a; k < t && pts[k] < b.upper(); k++) {
                pinnedLoad[k] += p.alignedSize(i);
            }
        }
        for (int k = 0; k < t; k++) {
            price[k] = lambda * Math.max(0, capacity - pinnedLoad[k]);
        }
        // the buffers grouped by the first checkpoint at or after their start, their ends sorted
        List<List<long[]>> groups = new ArrayList<>();
        for (int k = 0; k <= t; k++) {
            groups.add(new ArrayList<>());
        }
        double all = 0;
        for (int i : flexible) {
            PlanBuffer b = p.buffers().get(i);
            double mass = perByte[i] * p.alignedSize(i);
            all += mass;
            groups.get(lowerIndex(pts, b.lower())).add(new long[] {b.upper(), Double.doubleToLongBits(mass)});
        }
        long[][] ends = new long[t + 1][];
        double[][] prefix = new double[t + 1][];
        for (int k = 0; k <= t; k++) {
            List<long[]> g = groups.get(k);
            g.sort((x, y) -> Long.compare(x[0], y[0]));
            ends[k] = new long[g.size()];
            prefix[k] = new double[g.size() + 1];
            for (int q = 0; q < g.size(); q++) {
                ends[k][q] = g.get(q)[0];
                prefix[k][q + 1] = prefix[k][q] + Double.longBitsToDouble(g.get(q)[1]);
            }
        }
        // f[j]: the least dual cost up to checkpoint j, j being chosen; buffers between the previous
        // chosen checkpoint and j (live at neither) pay their saving
        double[] f = new double[t];
        double bestEnd = all; // no checkpoint at all
        for (int j = 0; j < t; j++) {
            double acc = 0; // savings of buffers starting after checkpoint i and ending by pts[j]
            double best = Double.POSITIVE_INFINITY;
            for (int i = j - 1; i >= -1; i--) {
                // buffers whose first checkpoint at or after their start is i + 1 start after pts[i]
                acc += upTo(ends[i + 1], prefix[i + 1], pts[j]);
                best = Math.min(best, (i < 0 ? 0 : f[i]) + acc);
                if (acc >= best) {
                    break; // acc only grows from here
                }
            }
            f[j] = best + price[j];
            // close after j: every buffer starting after pts[j] keeps its saving
            double after = 0;
            for (int k = j + 1; k <= t; k++) {
                after += prefix[k][prefix[k].length - 1];
            }
            bestEnd = Math.min(bestEnd, f[j] + after);
        }
        return Math.min(all, bestEnd);
    }

    /** The index of the first checkpoint at or after {@code step} ({@code pts.length} when none). */
    private static int lowerIndex(long[] pts, long step) {
        int k = Arrays.binarySearch(pts, step);
        return k >= 0 ? k : -k - 1;
    }

    /** The sum of masses whose end is at most {@code step}. */
    private static double upTo(long[] ends, double[] prefix, long step) {
        int lo = 0;
        int hi = ends.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ends[mid] <= step) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return prefix[lo];
    }
}
