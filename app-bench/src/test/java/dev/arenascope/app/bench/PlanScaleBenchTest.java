package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class PlanScaleBenchTest {
    @Test
    void quickFiguresAreThereAndThePackingsAtOrAboveTheirLoad() throws Exception {
        Map<String, Double> f = new PlanScaleBench().run(true);
        for (String k : new String[]{"plan.scale.10000.", "plan.scale.torch."}) {
            for (String leaf : new String[]{"lower_bound_bytes", "height_bytes", "gap_pct", "s", "cpu_s", "heap_mb"}) {
                assertTrue(f.containsKey(k + leaf), k + leaf + " in " + f.keySet());
            }
            assertTrue(f.get(k + "height_bytes") >= f.get(k + "lower_bound_bytes"), f.toString());
            assertEquals((f.get(k + "height_bytes") - f.get(k + "lower_bound_bytes")) * 100 / f.get(k + "lower_bound_bytes"),
                    f.get(k + "gap_pct"), 1e-9);
        }
        assertTrue(f.get("plan.scale.torch.buffers") >= 20_000, f.toString());
    }
}
