package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class TraceBenchTest {

    @Test
    void quickRunReportsEveryFigure() throws Exception {
        TraceBench bench = new TraceBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "trace");
        assertEquals(Set.of("trace.write_events_per_s", "trace.read_events_per_s", "trace.bytes_per_event",
                "trace.jsonl_read_events_per_s"), f.keySet());
        f.forEach((k, v) -> assertTrue(v > 0, k + " = " + v));
        assertTrue(f.get("trace.bytes_per_event") <= 8, "bytes per event " + f.get("trace.bytes_per_event"));
    }
}
