package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class PoolBenchTest {

    @Test
    void quickRunReportsEveryFigure() throws Exception {
        PoolBench bench = new PoolBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "pool");
        assertEquals(Set.of("pool.hit_ns", "pool.hit_recording_ns", "pool.miss_virtual_ns"), f.keySet());
        f.forEach((k, v) -> assertTrue(v > 0 && v < 1e7, k + " = " + v));
    }
}
