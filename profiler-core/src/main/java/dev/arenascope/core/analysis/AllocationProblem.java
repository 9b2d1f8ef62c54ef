package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.List;

import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * A recorded run's allocations as a static allocation problem: what a fixed-address arena would have to
 * hold had the run known every lifetime in advance. Allocation {@code i} of the memory (in allocation
 * order, the same numbering as {@link Allocations}) becomes buffer {@code a<i>}, live from the event
 * that made it to the event that freed it ({@link AllocationIndex}'s rules: frees, pool holds and
 * releases, pointer restores, resets, closes), or to one past the trace's last event when it is still
 * live there. Steps are the trace's event indexes, so two allocations overlap in the problem exactly
 * when both were live after some event. Sizes are the bytes each allocation held (rounding and
 * alignment included, as the memory's {@code used} gauge counts them) or the bytes requested
 * ({@code c} of {@code ALLOC} and {@code POOL_REQUEST}; an event that does not say gives the bytes
 * held). The problem's lower bound is then the most bytes live at once, the trace's own peak of that
 * measure. One replay of the trace; memory proportional to the memory's allocations.
 *
 * @param problem     the buffers (alignment 1)
 * @param memory      the memory they came from
 * @param allocations how many (the problem's size)
 * @param lastEvent   the trace's last event index (-1 when empty)
 */
public record AllocationProblem(PlanProblem problem, MemoryInfo memory, int allocations, long lastEvent) {

    /** The bytes a buffer takes: as allocated or as requested. */
    public enum Sizes {
        /** the bytes the allocation held, rounding included */
        ALLOCATED,
        /** the bytes asked for */
        REQUESTED
    }

    /** The problem of {@code memory}'s allocations in {@code view}. */
    public static AllocationProblem of(TraceView view, MemoryInfo memory, Sizes sizes) {
        AllocationIndex x = AllocationIndex.build(view, memory);
        long end = x.lastIndex + 1;
        List<PlanBuffer> buffers = new ArrayList<>(x.size);
        for (int i = 0; i < x.size; i++) {
            long upper = x.end[i] == AllocationIndex.NEVER ? end : x.end[i];
            long lower = x.start[i];
            if (upper <= lower) {
                upper = lower + 1; // freed by the event that made it (a replacement at its own address)
            }
            long bytes = sizes == Sizes.REQUESTED ? x.requested[i] : x.bytes[i];
            buffers.add(new PlanBuffer("a" + i, lower, upper, Math.max(0, bytes)));
        }
        return new AllocationProblem(new PlanProblem(buffers, 1), memory, x.size, x.lastIndex);
    }
}
