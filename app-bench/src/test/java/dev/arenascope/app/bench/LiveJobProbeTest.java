package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe as the bench runs it, in a JVM of its own: a rank whose process did not deliver what it
 * recorded ends the probe with exit 3 and one line saying which, never with figures.
 */
class LiveJobProbeTest {

    @Test
    void aProcessThatDeliveredNothingEndsTheProbeWithExit3AndOneLine(@TempDir Path empty) throws Exception {
        // a Python folder without the client: the one Python rank's process fails before it streams anything
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path err = empty.resolve("probe.err");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx512m", "-Darenascope.headless=true",
                "-cp", System.getProperty("java.class.path"), LiveJobProbe.class.getName(),
                "1", "1", empty.toString(), "20", "5", "0", "120").redirectError(err.toFile()).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the probe ended");
        List<String> lines = Files.readAllLines(err).stream().filter(l -> l.startsWith("live job probe: ")).toList();
        assertEquals(3, p.exitValue(), "exit 3: " + out + Files.readString(err));
        assertEquals(1, lines.size(), "one line says why: " + Files.readString(err));
        assertTrue(lines.getFirst().contains("python sender exited"), lines.getFirst());
        assertTrue(!out.contains("refresh_median_ms"), "no figures: " + out);
    }
}
