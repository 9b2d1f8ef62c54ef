package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.aot.AotCache;
import dev.arenascope.app.aot.LeanJvm;

class CliBenchTest {
    @TempDir
    Path dir;

    @Test
    void quickRunReportsEveryFigure() throws Exception {
        CliBench bench = new CliBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "cli");
        assertEquals(Set.of("cli.start_ms", "cli.start_no_aot_ms", "cli.aot_cache",
                "cli.plan_A_s", "cli.plan_A_vs_minimalloc", "cli.plan_B_s", "cli.plan_B_vs_minimalloc",
                "cli.plan_min_vs_minimalloc", "cli.plan_5x_count"), f.keySet());
        // the ratio is MiniMalloc's measured time (A 3.3 s) over the fresh JVM's wall time
        assertEquals(3.3 / f.get("cli.plan_A_s"), f.get("cli.plan_A_vs_minimalloc"), 1e-9);
        assertEquals(Math.min(f.get("cli.plan_A_vs_minimalloc"), f.get("cli.plan_B_vs_minimalloc")),
                f.get("cli.plan_min_vs_minimalloc"), 1e-12);
        assertTrue(f.get("cli.start_ms") > 0 && f.get("cli.start_no_aot_ms") > 0, f.toString());
        if (f.get("cli.aot_cache") == 0) {
            // tests run from class folders: no jar, so no cache beside it, and both figures are one
            assertEquals(f.get("cli.start_no_aot_ms"), f.get("cli.start_ms"));
        }
    }

    @Test
    void everyProblemHasAMiniMallocTime() throws Exception {
        Map<String, Double> t = BenchFixtures.miniMallocTimes();
        assertEquals(BenchFixtures.MINIMALLOC, List.copyOf(t.keySet()));
        assertTrue(t.values().stream().allMatch(v -> v > 0), t.toString());
    }

    @Test
    void theLauncherGivesAPlanWithACapacityTheLeanOptions() throws Exception {
        // the bench measures `plan --capacity` with LeanJvm.OPTIONS because the launcher adds them
        String launcher = Files.readString(Path.of("..", "arenascope"));
        assertTrue(launcher.contains("lean=(" + String.join(" ", LeanJvm.OPTIONS) + ")"), "the launcher's lean options");
    }

    @Test
    void theLauncherGivesTheBatchCommandsTheSerialCollector() throws Exception {
        // the torch bench times `stats` with LeanJvm.BATCH_OPTIONS because the launcher adds them
        String launcher = Files.readString(Path.of("..", "arenascope"));
        String line = String.join("|", LeanJvm.BATCH_COMMANDS) + ") lean=(" + String.join(" ", LeanJvm.BATCH_OPTIONS) + ")";
        assertTrue(launcher.contains(line), "the launcher's batch line: " + line);
    }

    @Test
    void aCacheOlderThanTheJarIsNotUsed() throws Exception {
        Path jar = Files.writeString(dir.resolve("arenascope-app.jar"), "jar");
        assertEquals(Optional.empty(), AotCache.beside(Optional.of(jar)));
        Path cache = Files.writeString(dir.resolve(AotCache.FILE_NAME), "aot");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(1_000_000));
        Files.setLastModifiedTime(cache, FileTime.fromMillis(2_000_000));
        assertEquals(Optional.of(cache), AotCache.beside(Optional.of(jar)));
        Files.setLastModifiedTime(jar, FileTime.fromMillis(3_000_000));
        assertEquals(Optional.empty(), AotCache.beside(Optional.of(jar)), "a jar rebuilt after the cache");
        assertEquals(Optional.empty(), AotCache.beside(Optional.empty()));
    }
}
