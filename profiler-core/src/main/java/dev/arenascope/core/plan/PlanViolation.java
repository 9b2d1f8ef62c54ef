package dev.arenascope.core.plan;

import java.util.List;

/**
 * One way a {@link MemoryPlan} is broken, as {@link PlanValidator} reports it.
 *
 * @param kind    what is wrong
 * @param arena   the arena concerned ({@code scratch:hbm}), or null when none
 * @param tensors the tensor ids concerned (empty when none)
 * @param message one human-readable line naming the arena, tensors, offsets and sizes
 */
public record PlanViolation(Kind kind, String arena, List<String> tensors, String message) {
    public PlanViolation {
        tensors = List.copyOf(tensors);
    }

    /** The kinds of violation. */
    public enum Kind {
        /** A binding or arena names a bank the plan does not declare. */
        UNKNOWN_MEMORY,
        /** A tensor's role and bank name no arena of the plan. */
        MISSING_ARENA,
        /** A tensor's bytes reach outside its arena (negative offset or past its size). */
        OUTSIDE_ARENA,
        /** Two tensors of one arena are live at a common step and share bytes. */
        OVERLAP,
        /** A constant arena's tensors (or the arena itself) name more than one source memory. */
        MIXED_SOURCES,
        /** A staged constant arena hydrates from a writable bank instead of a read-only blob. */
        STAGED_FROM_WRITABLE,
        /** A tensor's offset is not a multiple of the plan's alignment. */
        MISALIGNED,
        /** A scratch tensor without a lifetime, or a lifetime for a tensor the plan does not allocate. */
        BAD_LIFETIME,
        /** A scratch or persistent arena placed in a read-only bank. */
        READ_ONLY_ARENA
    }

    @Override
    public String toString() {
        return kind + ": " + message;
    }
}
