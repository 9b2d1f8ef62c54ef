package dev.arenascope.app.commands.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.ReadReport;
import dev.arenascope.core.trace.store.EventStore;

/**
 * {@code record} without {@code --out} names its file after the workload and the second it started:
 * runs started in the same second (or an earlier run's file of that name) must not share it.
 */
class DefaultOutputNamesTest {
    @TempDir
    Path dir;

    @Test
    void recordingsStartedTogetherEachWriteTheirOwnFileAndNoneReplacesAnEarlierOne() throws Exception {
        // an "earlier run" under every name the next two minutes could give: every run collides with it
        DateTimeFormatter f = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
        LocalDateTime now = LocalDateTime.now();
        byte[] earlier = "an earlier run's trace".getBytes(StandardCharsets.US_ASCII);
        List<Path> stale = new ArrayList<>();
        for (int s = -1; s < 120; s++) {
            Path p = dir.resolve("particles-" + now.plusSeconds(s).format(f) + ".astrace");
            Files.write(p, earlier);
            stale.add(p);
        }
        int n = 3;
        List<Process> runs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-cp", System.getProperty("java.class.path"), "dev.arenascope.app.Main",
                    "record", "particles", "--device", "virtual", "--steps", "40");
            pb.directory(dir.toFile());
            pb.redirectErrorStream(true);
            runs.add(pb.start());
        }
        Set<String> named = new HashSet<>();
        for (Process p : runs) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            String file = out.replaceAll("(?s).* -> (\\S+\\.astrace).*", "$1");
            assertTrue(file.endsWith(".astrace") && !file.contains("\n"), out);
            named.add(file);
        }
        assertEquals(n, named.size(), "each run names its own file: " + named);
        for (String file : named) {
            Path p = dir.resolve(file);
            assertTrue(p.getFileName().toString().matches("particles-\\d{8}-\\d{6}-\\d+\\.astrace"), file);
            EventStore store = new EventStore("t");
            ReadReport r = AstraceReader.read(p, store);
            assertTrue(!r.damaged() && r.events() > 0, r.summary());
        }
        for (Path p : stale) {
            assertArrayEquals(earlier, Files.readAllBytes(p), "untouched: " + p);
        }
    }
}
