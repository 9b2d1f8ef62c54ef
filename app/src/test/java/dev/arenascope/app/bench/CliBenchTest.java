package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.aot.AotCache;

class CliBenchTest {
    @TempDir
    Path dir;

    @Test
    void quickRunReportsEveryFigure() throws Exception {
        CliBench bench = new CliBench();
        assertEquals("cli", bench.group());
        assertTrue(BenchCommand.SUITES.stream().anyMatch(s -> s instanceof CliBench), "registered");
        Map<String, Double> f = bench.run(true);
        assertEquals(Set.of("cli.start_ms", "cli.start_no_aot_ms", "cli.aot_cache"), f.keySet());
        assertTrue(f.get("cli.start_ms") > 0 && f.get("cli.start_no_aot_ms") > 0, f.toString());
        if (f.get("cli.aot_cache") == 0) {
            // tests run from class folders: no jar, so no cache beside it, and both figures are one
            assertEquals(f.get("cli.start_no_aot_ms"), f.get("cli.start_ms"));
        }
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
