package dev.arenascope.core.plan;

import java.util.LinkedHashMap;
import java.util.Map;

/** Small hand-built plans for the tests: one scratch, one persistent, one cold and one staged constant arena. */
final class Plans {
    private Plans() {}

    /**
     * A valid plan: banks {@code hbm} (writable), {@code sram} (writable) and {@code flash} (read-only);
     * scratch in hbm with three tensors over four steps (a and c share bytes but not steps), persistent
     * state in hbm, cold constants in flash, staged constants in sram hydrated from flash.
     */
    static MemoryPlan valid() {
        Map<String, MemoryBank> banks = new LinkedHashMap<>();
        banks.put("hbm", new MemoryBank("hbm", true));
        banks.put("sram", new MemoryBank("sram", true));
        banks.put("flash", new MemoryBank("flash", false));
        Map<String, TensorAllocation> t = new LinkedHashMap<>();
        t.put("a", scratch(0, 256));
        t.put("b", scratch(256, 512));
        t.put("c", scratch(0, 256));
        t.put("state", new TensorAllocation(128, new TensorBinding(TensorRole.PERSISTENT, "hbm", 0)));
        t.put("w_cold", new TensorAllocation(64, new TensorBinding(TensorRole.CONSTANT, "flash", 0, "flash")));
        t.put("w_staged", new TensorAllocation(192, new TensorBinding(TensorRole.CONSTANT, "sram", 64, "flash")));
        Map<String, TensorLifetime> life = new LinkedHashMap<>();
        life.put("a", new TensorLifetime(0, 1));
        life.put("b", new TensorLifetime(1, 2));
        life.put("c", new TensorLifetime(2, 3));
        return new MemoryPlan("tiny", 64, banks, t,
                Map.of("hbm", new ArenaUsage("hbm", 768)),
                Map.of("hbm", new ArenaUsage("hbm", 128)),
                constants(), life);
    }

    private static Map<String, ArenaUsage> constants() {
        Map<String, ArenaUsage> c = new LinkedHashMap<>();
        c.put("flash", new ArenaUsage("flash", 64, "flash"));
        c.put("sram", new ArenaUsage("sram", 256, "flash"));
        return c;
    }

    static TensorAllocation scratch(long offset, long size) {
        return new TensorAllocation(size, new TensorBinding(TensorRole.SCRATCH, "hbm", offset));
    }

    /** {@code plan} with tensor {@code id}'s allocation replaced. */
    static MemoryPlan with(MemoryPlan plan, String id, TensorAllocation a) {
        Map<String, TensorAllocation> t = new LinkedHashMap<>(plan.tensorAllocs());
        t.put(id, a);
        return new MemoryPlan(plan.name(), plan.alignment(), plan.memoryBanks(), t, plan.arenaUsages(),
                plan.persistentArenas(), plan.constantArenas(), plan.tensorLifetimes());
    }
}
