package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The torch and live bench suites run in quick mode and report their figures under stable names. */
class TorchAndLiveBenchTest {

    @Test
    void torchReportsTheImportTime() throws Exception {
        Map<String, Double> f = new TorchBench().run(true);
        assertTrue(f.keySet().containsAll(Set.of("torch.import_ms", "torch.import_mb_per_s", "torch.stats_s")), f.toString());
        assertTrue(f.get("torch.import_ms") > 0 && f.get("torch.import_ms") < 60_000, f.toString());
        // the generated snapshot went through stats in a fresh JVM and its peak matched (or the run throws)
        assertTrue(f.get("torch.import_mb_per_s") > 0, f.toString());
        if (Files.isExecutable(Path.of("/usr/bin/time"))) {
            assertTrue(f.get("torch.import_peak_rss_mb") > 10, f.toString());
        }
    }

    @Test
    void liveReportsLoopbackThroughputWithoutDrops() throws Exception {
        Map<String, Double> f = new LiveBench().run(true);
        assertEquals(Set.of("live.events_per_s"), f.keySet());
        assertTrue(f.get("live.events_per_s") > 1000, f.toString());
    }
}
