package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The torch and live bench suites run in quick mode and report their figures under stable names. */
class TorchAndLiveBenchTest {

    @Test
    void torchReportsTheImportTime() throws Exception {
        Map<String, Double> f = new TorchBench().run(true);
        assertEquals(Set.of("torch.import_ms"), f.keySet());
        assertTrue(f.get("torch.import_ms") > 0 && f.get("torch.import_ms") < 60_000, f.toString());
    }

    @Test
    void liveReportsLoopbackThroughputWithoutDrops() throws Exception {
        Map<String, Double> f = new LiveBench().run(true);
        assertEquals(Set.of("live.events_per_s"), f.keySet());
        assertTrue(f.get("live.events_per_s") > 1000, f.toString());
    }
}
