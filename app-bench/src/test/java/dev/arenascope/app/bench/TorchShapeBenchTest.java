package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.torch.SnapshotShapes;

class TorchShapeBenchTest {

    @Test
    void quickRunReportsEveryShapeAndTheCurveUnderStableNames() throws Exception {
        TorchShapeBench bench = new TorchShapeBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "torch.shape"); // fails when a stats run prints another peak than the generator's
        List<String> expected = new ArrayList<>();
        boolean rss = f.containsKey("torch.shape.stacks_1.stats_rss_mb");
        for (SnapshotShapes.Shape s : SnapshotShapes.shapes()) {
            String p = "torch.shape." + s.name();
            expected.addAll(List.of(p + ".mb", p + ".stats_s", p + ".stats_g1_s", p + ".convert_s"));
            if (rss) {
                expected.addAll(List.of(p + ".stats_rss_mb", p + ".stats_g1_rss_mb", p + ".convert_rss_mb"));
            }
        }
        for (int n : List.of(5_000, 10_000, 20_000)) {
            expected.add("torch.shape.curve." + n + ".mb");
            expected.add("torch.shape.curve." + n + ".stats_s");
            if (rss) {
                expected.add("torch.shape.curve." + n + ".stats_rss_mb");
            }
        }
        assertEquals(expected, List.copyOf(f.keySet()));
        for (var e : f.entrySet()) {
            assertTrue(e.getValue() > 0 && e.getValue() < 1e6, e.getKey() + " = " + e.getValue());
        }
        // the curve's files grow with their allocations
        assertTrue(f.get("torch.shape.curve.20000.mb") > 3 * f.get("torch.shape.curve.5000.mb"));
    }
}
