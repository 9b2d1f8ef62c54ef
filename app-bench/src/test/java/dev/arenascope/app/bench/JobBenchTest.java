package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class JobBenchTest {
    @Test
    void quickRunReportsEveryFigureAndChecksTheWorstRank() throws Exception {
        JobBench bench = new JobBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "job");
        assertTrue(f.keySet().containsAll(Set.of("job.8x100mb_mb", "job.rank_table_8x100mb_s", "job.sites_8x100mb_s",
                "job.64x20mb_mb", "job.rank_table_64x20mb_s", "ui.job_open_8x100mb_s")), f.toString());
        assertTrue(f.get("job.8x100mb_mb") > 4 && f.get("job.8x100mb_mb") < 16, "quick: 8 ranks of about 1 MiB: " + f);
        assertTrue(f.values().stream().allMatch(v -> v > 0), f.toString());
        // the live job: two Java sender processes and two Python clients, every rank's events checked by the probe
        assertTrue(f.keySet().containsAll(Set.of("job.live.processes", "job.live.events", "job.live.refreshes", "job.live.refresh_median_ms",
                "job.live.refresh_p95_ms", "job.live.refresh_max_ms", "job.live.streaming_max", "job.live.stream_s", "job.live.caught_up_s")), f.toString());
        assertEquals(4, f.get("job.live.processes"), f.toString());
        assertTrue(f.get("job.live.refreshes") >= 2 && f.get("job.live.streaming_max") >= 1, "refreshed while they streamed: " + f);
    }
}
