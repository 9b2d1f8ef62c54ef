package dev.arenascope.app.ui.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TensorSlot;
import dev.arenascope.core.plan.GreedyBySizePlanner;
import dev.arenascope.core.plan.Planner;

/**
 * The slot map's Re-plan: {@code arenascope plan}'s default strategy and time limit, and never a
 * packing higher than the one loaded (the window's re-plan made 1.00 MiB into 1.04 MiB where the CLI
 * proves 1.00 MiB optimal).
 */
class ReplanTest {
    /** Four tensors packed to the least height by hand: 1 MiB, every step full. */
    private static SlotArena loaded() {
        long half = 512 << 10;
        List<TensorSlot> slots = List.of(
                new TensorSlot(0, "a", 0, half, 0, 0, 1),
                new TensorSlot(0, "b", half, half, 0, 0, 0),
                new TensorSlot(0, "c", half, half, 0, 1, 2),
                new TensorSlot(0, "d", 0, half, 0, 2, 3));
        return SlotArena.of("scratch", 0, slots, "recorded");
    }

    @Test
    void theDefaultReplanIsTheCommandLinesAndKeepsTheLeastHeight() {
        assertEquals(Planner.DEFAULT_TIME_LIMIT_NANOS, PlanSlots.REPLAN_LIMIT_NANOS, "the CLI's budget");
        SlotArena before = loaded();
        assertEquals(1L << 20, before.height());
        SlotArena after = PlanSlots.replan(before);
        assertEquals(1L << 20, after.height(), "no higher than loaded: " + after.strategy());
        assertTrue(after.strategy().contains("search") || after.strategy().contains("auto") || after.strategy().contains("kept"),
                after.strategy());
    }

    @Test
    void aPlannerThatDoesWorseLeavesTheLoadedPackingInPlace() {
        SlotArena before = loaded();
        SlotArena after = PlanSlots.replan(before, new GreedyBySizePlanner(), 1_000_000_000L);
        assertTrue(after.height() <= before.height(), after.height() + " > " + before.height());
        if (!after.slots().equals(before.slots())) {
            assertEquals(before.height(), after.height(), "a different packing only at the same height");
        }
    }
}
