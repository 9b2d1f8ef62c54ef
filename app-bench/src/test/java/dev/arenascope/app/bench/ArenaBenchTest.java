package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ArenaBenchTest {

    @Test
    void quickRunReportsEveryFigureUnderItsStableName() throws Exception {
        ArenaBench bench = new ArenaBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "arena");
        assertEquals(List.of("arena.alloc_ns", "arena.scope_ns", "arena.clock_ns", "arena.alloc_recorded_ns",
                "arena.alloc_recorded_lost_events", "arena.alloc_recorded_exact_clock_ns",
                "arena.alloc_recorded_exact_clock_lost_events", "arena.alloc_recorded_stack_ns",
                "arena.alloc_recorded_stack_lost_events", "arena.stamp_ns"), List.copyOf(f.keySet()));
        for (String k : List.of("arena.alloc_ns", "arena.scope_ns", "arena.clock_ns", "arena.alloc_recorded_ns",
                "arena.alloc_recorded_exact_clock_ns", "arena.alloc_recorded_stack_ns", "arena.stamp_ns")) {
            assertTrue(f.get(k) > 0 && f.get(k) < 1e6, k + " = " + f.get(k));
        }
        assertTrue(f.get("arena.alloc_recorded_lost_events") >= 0);
        assertTrue(f.get("arena.alloc_recorded_exact_clock_lost_events") >= 0);
    }
}
