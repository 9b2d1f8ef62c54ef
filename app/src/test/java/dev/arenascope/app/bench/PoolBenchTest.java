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
        assertEquals("pool", bench.group());
        assertTrue(BenchCommand.SUITES.stream().anyMatch(s -> s instanceof PoolBench), "registered");
        Map<String, Double> f = bench.run(true);
        assertEquals(Set.of("pool.hit_ns", "pool.hit_recording_ns", "pool.miss_virtual_ns"), f.keySet());
        f.forEach((k, v) -> assertTrue(v > 0 && v < 1e7, k + " = " + v));
    }
}
