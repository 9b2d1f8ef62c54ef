package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class WhatIfBenchTest {

    @Test
    void quickRunReportsEveryFigure() throws Exception {
        WhatIfBench bench = new WhatIfBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "whatif");
        assertEquals(Set.of("whatif.replay_s", "whatif.replay_cpu_s", "whatif.grid_s", "whatif.grid_cpu_s", "whatif.grid_serial_cpu_s",
                "whatif.grid_threads", "whatif.grid_settings", "whatif.check_ms", "whatif.exact"), f.keySet());
        assertEquals(12.0, f.get("whatif.grid_settings"));
        assertEquals(1.0, f.get("whatif.exact"), "the model reproduces magma27");
        f.forEach((k, v) -> assertTrue(v > 0 && v < 1e7, k + " = " + v));
    }
}
