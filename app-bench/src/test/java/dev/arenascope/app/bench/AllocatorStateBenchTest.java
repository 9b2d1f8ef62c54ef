package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class AllocatorStateBenchTest {

    @Test
    void quickRunReportsEveryFigureUnderItsStableName() throws Exception {
        AllocatorStateBench bench = new AllocatorStateBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "ui");
        assertEquals(List.of("ui.allocator_step_ms", "ui.allocator_step_forward_ms", "ui.allocator_step_back_ms", "ui.allocator_jump_ms", "ui.allocator_first_ms",
                "ui.allocator_first_at_open_ms", "ui.allocator_prepare_ms", "ui.allocator_checkpoints", "ui.allocator_replay_ms",
                "ui.allocator_blocks"), List.copyOf(f.keySet()));
        assertTrue(f.get("ui.allocator_step_ms") > 0 && f.get("ui.allocator_replay_ms") > 0, f.toString());
        assertTrue(f.get("ui.allocator_blocks") > 1, f.toString());
        assertTrue(f.get("ui.allocator_prepare_ms") > 0 && f.get("ui.allocator_checkpoints") >= 1, "the background build ran: " + f);
    }
}
