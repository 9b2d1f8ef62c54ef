package dev.arenascope.core.plan;

import java.util.List;
import java.util.Locale;

/**
 * A banked plan: the bank each buffer went into, its offset in that bank's arena, each bank's packing,
 * the cost of the assignment and a proved lower bound on every assignment's cost.
 *
 * @param problem      the problem solved
 * @param bankOf       the bank of buffer {@code i} (an index into {@code problem.banks()})
 * @param offsets      the offset of buffer {@code i} in its bank's arena
 * @param packings     per bank, the packing of the buffers assigned to it (a problem of those buffers,
 *                     in the problem's order)
 * @param cost         the assignment's cost, {@link BankProblem#cost(int[])}
 * @param bound        a proved lower bound on the cost of any assignment that fits (the cost itself when
 *                     the search covered every assignment)
 * @param exhaustive   whether the search covered every assignment, so that none cheaper fits
 * @param timedOut     whether the time limit cut the search or the improvement short
 * @param elapsedNanos the planner's wall time
 */
public record BankPlan(BankProblem problem, int[] bankOf, long[] offsets, List<Packing> packings, double cost,
                       double bound, boolean exhaustive, boolean timedOut, long elapsedNanos) {

    public BankPlan {
        packings = List.copyOf(packings);
        bankOf = bankOf.clone();
        offsets = offsets.clone();
    }

    /** Whether every bank's arena is within its capacity. */
    public boolean fits() {
        for (int b = 0; b < packings.size(); b++) {
            if (packings.get(b).height() > problem.banks().get(b).capacity()) {
                return false;
            }
        }
        return true;
    }

    /** The height of bank {@code b}'s arena. */
    public long height(int b) {
        return packings.get(b).height();
    }

    /** Bytes (aligned) of the buffers in bank {@code b}. */
    public long bytesIn(int b) {
        long s = 0;
        for (int i = 0; i < bankOf.length; i++) {
            if (bankOf[i] == b) {
                s += problem.problem().alignedSize(i);
            }
        }
        return s;
    }

    /** Buffers in bank {@code b}. */
    public int buffersIn(int b) {
        int c = 0;
        for (int k : bankOf) {
            c += k == b ? 1 : 0;
        }
        return c;
    }

    /** Whether no assignment that fits costs less. */
    public boolean provedOptimal() {
        return fits() && (exhaustive || cost <= bound * (1 + 1e-12));
    }

    /** How far above the proved bound the cost is at most, in percent (0 when optimal). */
    public double gapPercent() {
        if (provedOptimal() || bound <= 0) {
            return provedOptimal() ? 0 : Double.POSITIVE_INFINITY;
        }
        return Math.ceil((cost - bound) * 10000.0 / bound) / 100.0;
    }

    /** {@code optimal} or {@code gap <= X%}, as {@code plan} prints it. */
    public String proof() {
        if (provedOptimal()) {
            return "optimal";
        }
        double g = gapPercent();
        return Double.isInfinite(g) ? "no bound" : String.format(Locale.ROOT, "gap <= %.2f%%", g);
    }
}
