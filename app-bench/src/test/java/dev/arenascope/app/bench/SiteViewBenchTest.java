package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SiteViewBenchTest {

    @Test
    void quickRunReportsEveryFigureUnderItsStableName() throws Exception {
        SiteViewBench bench = new SiteViewBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "ui");
        assertEquals(List.of("ui.siteview_peak_ms", "ui.siteview_peak_cold_ms", "ui.siteview_peak_warm_ms", "ui.siteview_select_ms", "ui.siteview_allocations"),
                List.copyOf(f.keySet()));
        assertTrue(f.get("ui.siteview_peak_ms") > 0 && f.get("ui.siteview_peak_warm_ms") > 0 && f.get("ui.siteview_select_ms") > 0,
                f.toString());
        assertEquals(TorchBench.QUICK_ALLOCATIONS, f.get("ui.siteview_allocations"));
    }
}
