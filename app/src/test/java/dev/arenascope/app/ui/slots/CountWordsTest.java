package dev.arenascope.app.ui.slots;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TensorSlot;

/** Counts agree with their nouns where the window prints them: the slot map said "1 tensors". */
class CountWordsTest {

    @Test
    void theSlotMapsCaptionSaysOneTensorAndTwoTensors() {
        SlotArena one = SlotArena.of("scratch", 0, List.of(new TensorSlot(0, "t0", 0, 256, 0, 0, 1)), "recorded");
        String caption = PlanSlotsDrawList.build(List.of(one), Map.of(), 800, 400).caption();
        assertTrue(caption.startsWith("scratch: 1 tensor, height 256 B"), caption);
        SlotArena two = SlotArena.of("scratch", 0, List.of(new TensorSlot(0, "t0", 0, 256, 0, 0, 1), new TensorSlot(0, "t1", 256, 256, 0, 1, 2)),
                "recorded");
        String both = PlanSlotsDrawList.build(List.of(two), Map.of(), 800, 400).caption();
        assertTrue(both.startsWith("scratch: 2 tensors, "), both);
    }
}
