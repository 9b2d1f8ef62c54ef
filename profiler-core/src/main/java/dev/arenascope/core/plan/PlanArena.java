package dev.arenascope.core.plan;

import java.util.Locale;

/**
 * One arena of a plan with its role and bank, as {@link MemoryPlan#arenas()} lists them.
 *
 * @param role   scratch, persistent or constant
 * @param memory the bank (the key in the plan's arena map)
 * @param usage  size and source memory
 */
public record PlanArena(TensorRole role, String memory, ArenaUsage usage) {

    /** A short stable name, e.g. {@code scratch:hbm}. */
    public String label() {
        return role.name().toLowerCase(Locale.ROOT) + ":" + memory;
    }

    /** Whether this is a constant arena hydrated from another bank. */
    public boolean staged() {
        return role == TensorRole.CONSTANT && usage.staged();
    }
}
