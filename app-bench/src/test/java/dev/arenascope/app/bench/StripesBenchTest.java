package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class StripesBenchTest {

    @Test
    void quickRunReportsEveryFigureUnderItsStableName() throws Exception {
        StripesBench bench = new StripesBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "ui");
        assertEquals(List.of("ui.stripes_frame_ms", "ui.stripes_zoom_max_ms", "ui.stripes_frame_cpu_ms", "ui.stripes_zoom_max_cpu_ms",
                "ui.stripes_build_ms", "ui.stripes_index_ms",
                "ui.stripes_allocations"), List.copyOf(f.keySet()));
        assertTrue(f.get("ui.stripes_frame_ms") > 0 && f.get("ui.stripes_build_ms") > 0, f.toString());
        assertTrue(f.get("ui.stripes_allocations") >= TorchBench.QUICK_ALLOCATIONS, f.toString());
    }
}
