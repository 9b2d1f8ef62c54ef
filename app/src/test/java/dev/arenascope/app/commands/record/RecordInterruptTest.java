package dev.arenascope.app.commands.record;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.testsupport.Await;

/**
 * {@code record render --frames 0} renders until cancelled; from a shell that means Ctrl-C or a TERM.
 * The trace must then be closed whole (footer written) and the summary line printed, not cut off.
 */
class RecordInterruptTest {
    @TempDir
    Path dir;

    private static long size(Path f) {
        try {
            return Files.exists(f) ? Files.size(f) : 0;
        } catch (IOException e) {
            return 0; // not there yet
        }
    }

    @Test
    void aTermSignalEndsAnOpenEndedRecordingWithAWholeTraceAndItsSummary() throws Exception {
        Path trace = dir.resolve("endless.astrace");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.arenascope.app.Main", "record", "render", "--device", "virtual", "--frames", "0", "--out", trace.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
        try {
            // woken by the file system as the recording writes (inotify on Linux), or by the process ending
            Await.untilFile("8 KiB of trace written", dir, () -> !p.isAlive() || size(trace) >= 8_192);
            assertTrue(p.isAlive(), "the recording ended by itself: " + Files.readString(dir.resolve("out.txt")));
            p.destroy();    // SIGTERM
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "record did not stop after a TERM");
        } finally {
            p.destroyForcibly();
        }
        String out = Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
        assertTrue(out.contains("render on virtual: ") && out.contains("-> " + trace), out);
        LoadedTrace t = AstraceReader.load(trace);
        assertFalse(t.report().damaged(), t.report().summary());
        assertTrue(t.store().eventCount() > 0);
    }
}
