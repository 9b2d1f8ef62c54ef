package dev.arenascope.core.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bridges {@link MemoryPlan}s and {@link PlanProblem}s: a plan's writable arenas as problems, a
 * plan re-laid out by a {@link Planner}, and a one-arena plan made from a packing. Stateless.
 */
public final class PlanLayouts {
    private PlanLayouts() {}

    /** One arena re-laid out: the arena, the problem made of its tensors and the packing found. */
    public record ArenaLayout(PlanArena arena, Packing packing) {}

    /** A re-laid-out plan with the packing of each arena that was planned. */
    public record Replanned(MemoryPlan plan, List<ArenaLayout> arenas) {
        /** Whether every planned arena fits its capacity. */
        public boolean fits() {
            return arenas.stream().allMatch(a -> a.packing().fits());
        }

        /** Whether some arena's search stopped at the time limit. */
        public boolean timedOut() {
            return arenas.stream().anyMatch(a -> a.packing().timedOut());
        }
    }

    /**
     * The tensors of a scratch or persistent arena as a problem, in plan order. A tensor with lifetime
     * {@code [first, last]} becomes a buffer live over {@code [first, last + 1)}; one without a lifetime is
     * live over the whole run.
     */
    public static PlanProblem problemOf(MemoryPlan plan, PlanArena arena) {
        long steps = Math.max(1, plan.stepCount());
        List<PlanBuffer> bs = new ArrayList<>();
        for (String id : plan.tensorsIn(arena.role(), arena.memory())) {
            TensorLifetime l = plan.tensorLifetimes().get(id);
            long lower = l == null ? 0 : l.firstStep();
            long upper = l == null ? steps : l.lastStep() + 1;
            bs.add(new PlanBuffer(id, lower, upper, plan.tensorAllocs().get(id).size()));
        }
        return new PlanProblem(bs, plan.alignment());
    }

    /**
     * Lays out every scratch and persistent arena of {@code plan} again with {@code planner}; each arena's
     * size becomes its packing's height. Constant arenas keep their layout: a cold arena is the stored
     * blob itself and a staged one mirrors it byte for byte.
     *
     * @param capacity       bytes each planned arena may take ({@code Long.MAX_VALUE} for no limit)
     * @param timeLimitNanos search time for each arena
     */
    public static Replanned replan(MemoryPlan plan, Planner planner, long capacity, long timeLimitNanos) {
        Map<String, Long> offsets = new HashMap<>();
        Map<PlanArena, Long> sizes = new LinkedHashMap<>();
        List<ArenaLayout> layouts = new ArrayList<>();
        Map<String, ArenaPlanning> planning = new LinkedHashMap<>();
        for (PlanArena arena : plan.arenas()) {
            if (arena.role() == TensorRole.CONSTANT) {
                continue;
            }
            PlanProblem problem = problemOf(plan, arena);
            Packing p = planner.plan(problem, capacity, timeLimitNanos);
            offsets.putAll(p.offsetsById());
            sizes.put(arena, p.height());
            layouts.add(new ArenaLayout(arena, p));
            planning.put(arena.label(), ArenaPlanning.of(p));
        }
        return new Replanned(plan.withLayout(offsets, sizes).withPlanning(planning), layouts);
    }

    /**
     * A plan with one writable bank {@code bank} and one scratch arena holding the packing's buffers at
     * its offsets: buffer {@code [lower, upper)} becomes lifetime {@code [lower, upper - 1]}. The arena's
     * size is the packing's height, and its planning record ({@link ArenaPlanning}) is the packing's.
     */
    public static MemoryPlan scratchPlan(String name, String bank, Packing packing) {
        PlanProblem problem = packing.problem();
        Map<String, TensorAllocation> allocs = new LinkedHashMap<>();
        Map<String, TensorLifetime> lifetimes = new LinkedHashMap<>();
        for (int i = 0; i < problem.size(); i++) {
            PlanBuffer b = problem.buffers().get(i);
            allocs.put(b.id(), new TensorAllocation(b.size(), new TensorBinding(TensorRole.SCRATCH, bank, packing.offset(i))));
            lifetimes.put(b.id(), new TensorLifetime(b.lower(), b.upper() - 1));
        }
        return new MemoryPlan(name, problem.alignment(), Map.of(bank, new MemoryBank(bank, true)), allocs,
                Map.of(bank, new ArenaUsage(bank, packing.height())), Map.of(), Map.of(), lifetimes,
                Map.of(new PlanArena(TensorRole.SCRATCH, bank, new ArenaUsage(bank, packing.height())).label(), ArenaPlanning.of(packing)));
    }

    /**
     * A banked plan as a memory plan: one scratch arena per bank, named after it, each tensor bound to
     * its bank at its offset; the slot map draws one arena per bank.
     */
    public static MemoryPlan bankedPlan(String name, BankPlan plan) {
        BankProblem bp = plan.problem();
        PlanProblem problem = bp.problem();
        Map<String, TensorAllocation> allocs = new LinkedHashMap<>();
        Map<String, TensorLifetime> lifetimes = new LinkedHashMap<>();
        for (int i = 0; i < problem.size(); i++) {
            PlanBuffer b = problem.buffers().get(i);
            String bank = bp.banks().get(plan.bankOf()[i]).name();
            allocs.put(b.id(), new TensorAllocation(b.size(), new TensorBinding(TensorRole.SCRATCH, bank, plan.offsets()[i])));
            lifetimes.put(b.id(), new TensorLifetime(b.lower(), b.upper() - 1));
        }
        Map<String, MemoryBank> banks = new LinkedHashMap<>();
        Map<String, ArenaUsage> usages = new LinkedHashMap<>();
        Map<String, ArenaPlanning> planning = new LinkedHashMap<>();
        for (int k = 0; k < bp.banks().size(); k++) {
            String bank = bp.banks().get(k).name();
            banks.put(bank, new MemoryBank(bank, true));
            ArenaUsage usage = new ArenaUsage(bank, plan.height(k));
            usages.put(bank, usage);
            planning.put(new PlanArena(TensorRole.SCRATCH, bank, usage).label(), ArenaPlanning.of(plan.packings().get(k)));
        }
        return new MemoryPlan(name, problem.alignment(), banks, allocs, usages, Map.of(), Map.of(), lifetimes, planning);
    }
}
