package dev.arenascope.app.record;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.LoadedTrace;

/**
 * {@code record render --frames 0} renders until cancelled; from a shell that means Ctrl-C or a TERM.
 * The trace must then be closed whole (footer written) and the summary line printed, not cut off.
 */
class RecordInterruptTest {
    @TempDir
    Path dir;

    @Test
    void aTermSignalEndsAnOpenEndedRecordingWithAWholeTraceAndItsSummary() throws Exception {
        Path trace = dir.resolve("endless.astrace");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.arenascope.app.Main", "record", "render", "--device", "virtual", "--frames", "0", "--out", trace.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
        try {
            // woken by the file system as the recording writes (inotify on Linux), or by the process ending
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            try (java.nio.file.WatchService watch = dir.getFileSystem().newWatchService()) {
                dir.register(watch, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE, java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY);
                while ((!Files.exists(trace) || Files.size(trace) < 8_192) && p.isAlive()) {
                    long left = deadline - System.nanoTime();
                    assertTrue(left > 0, "no 8 KiB of trace in 60 s: " + Files.readString(dir.resolve("out.txt")));
                    java.nio.file.WatchKey k = watch.poll(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
                    if (k != null) {
                        k.pollEvents();
                        k.reset();
                    }
                }
            }
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
