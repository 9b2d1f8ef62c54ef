package dev.arenascope.app.bench;

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
    }
}
