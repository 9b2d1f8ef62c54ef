package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.format.Bytes;

/**
 * A static allocation problem over several memory banks: each buffer goes into exactly one bank it is
 * allowed in (never across two), each bank is packed as its own arena within its capacity, and the goal
 * is the least cost of the bytes accessed: buffer {@code i} in bank {@code b} costs
 * {@code size(i) * accesses(i) * cost(b)}. Immutable.
 *
 * @param problem  the buffers, lifetimes, sizes and alignment
 * @param banks    the banks (at most {@link PlanBank#MAX_BANKS}), in any order
 * @param allowed  per buffer, the banks it may use as a bit set (bit {@code b}: {@code banks.get(b)})
 * @param accesses per buffer, how many times each of its bytes is accessed (a weight, not negative)
 */
public record BankProblem(PlanProblem problem, List<PlanBank> banks, long[] allowed, long[] accesses) {

    /** Every bank. */
    public static long anyBank(int banks) {
        return banks >= 64 ? -1L : (1L << banks) - 1;
    }

    public BankProblem {
        banks = List.copyOf(banks);
        if (banks.isEmpty() || banks.size() > PlanBank.MAX_BANKS) {
            throw new IllegalArgumentException("a banked problem needs 1 to " + PlanBank.MAX_BANKS + " banks, got " + banks.size());
        }
        int n = problem.size();
        if (allowed.length != n || accesses.length != n) {
            throw new IllegalArgumentException("allowed banks and accesses must be given for each of the " + n + " buffers");
        }
        allowed = allowed.clone();
        accesses = accesses.clone();
        long all = anyBank(banks.size());
        for (int i = 0; i < n; i++) {
            PlanBuffer b = problem.buffers().get(i);
            if (accesses[i] < 0) {
                throw new IllegalArgumentException("buffer '" + b.id() + "' has negative accesses " + accesses[i]);
            }
            if (allowed[i] == 0 || (allowed[i] & ~all) != 0) {
                throw new IllegalArgumentException("buffer '" + b.id() + "' names no bank of the problem");
            }
            long size = problem.alignedSize(i);
            boolean fits = false;
            for (int k = 0; k < banks.size(); k++) {
                if ((allowed[i] >>> k & 1) != 0 && size <= banks.get(k).capacity()) {
                    fits = true;
                }
            }
            if (!fits) {
                List<String> where = new ArrayList<>();
                for (int k = 0; k < banks.size(); k++) {
                    if ((allowed[i] >>> k & 1) != 0) {
                        where.add(banks.get(k).name() + " holds " + Bytes.format(banks.get(k).capacity()));
                    }
                }
                throw new IllegalArgumentException("buffer '" + b.id() + "' (" + Bytes.format(size) + ") fits no bank it may use"
                        + (Long.bitCount(allowed[i]) == 1 ? " (pinned)" : "") + ": " + String.join(", ", where));
            }
        }
    }

    /**
     * A problem whose buffers may use every bank, each accessed once: the cost is bytes times the
     * bank's cost.
     */
    public static BankProblem anywhere(PlanProblem problem, List<PlanBank> banks) {
        long[] allowed = new long[problem.size()];
        long[] accesses = new long[problem.size()];
        Arrays.fill(allowed, anyBank(banks.size()));
        Arrays.fill(accesses, 1);
        return new BankProblem(problem, banks, allowed, accesses);
    }

    /**
     * A problem with, per buffer id, the names of the banks it may use (absent or empty: any) and its
     * accesses (absent: 1).
     *
     * @throws IllegalArgumentException naming the buffer and the bank name no bank has
     */
    public static BankProblem of(PlanProblem problem, List<PlanBank> banks, Map<String, List<String>> bankNames,
                                 Map<String, Long> accessCounts) {
        int n = problem.size();
        long[] allowed = new long[n];
        long[] accesses = new long[n];
        for (int i = 0; i < n; i++) {
            String id = problem.buffers().get(i).id();
            List<String> names = bankNames.getOrDefault(id, List.of());
            if (names.isEmpty()) {
                allowed[i] = anyBank(banks.size());
            } else {
                for (String name : names) {
                    int k = indexOf(banks, name);
                    if (k < 0) {
                        throw new IllegalArgumentException("buffer '" + id + "' names bank '" + name + "', which is not one of "
                                + banks.stream().map(PlanBank::name).toList());
                    }
                    allowed[i] |= 1L << k;
                }
            }
            accesses[i] = accessCounts.getOrDefault(id, 1L);
        }
        return new BankProblem(problem, banks, allowed, accesses);
    }

    static int indexOf(List<PlanBank> banks, String name) {
        for (int k = 0; k < banks.size(); k++) {
            if (banks.get(k).name().equals(name)) {
                return k;
            }
        }
        return -1;
    }

    public int size() {
        return problem.size();
    }

    /** Whether buffer {@code i} may go into bank {@code b}. */
    public boolean allows(int i, int b) {
        return (allowed[i] >>> b & 1) != 0;
    }

    /** What buffer {@code i} costs in bank {@code b}. */
    public double cost(int i, int b) {
        return (double) problem.alignedSize(i) * accesses[i] * banks.get(b).cost();
    }

    /** The cost of an assignment (bank per buffer). */
    public double cost(int[] bankOf) {
        double c = 0;
        for (int i = 0; i < bankOf.length; i++) {
            c += cost(i, bankOf[i]);
        }
        return c;
    }
}
