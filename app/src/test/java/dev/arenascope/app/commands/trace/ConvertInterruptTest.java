package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.testsupport.Await;

/**
 * Issue 29 #10: {@code convert} stopped by SIGTERM half-way leaves no cut file under the final name
 * (which would look complete) and no temporary file either; an earlier OUT is left as it was.
 */
class ConvertInterruptTest {
    @TempDir
    Path dir;

    private long partBytes() {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".part")).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    @Test
    void aTermSignalMidConversionLeavesTheEarlierOutputAndNoPart() throws Exception {
        Path in = dir.resolve("big.jsonl");
        try (BufferedWriter w = Files.newBufferedWriter(in)) {
            w.write("{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"capacity\":0}\n");
            for (int i = 0; i < 600_000; i++) {
                w.write("{\"t\":" + i + ",\"kind\":\"" + (i % 2 == 0 ? "ALLOC" : "FREE") + "\",\"mem\":0,\"a\":4096,\"b\":64,\"used\":"
                        + (i % 2 == 0 ? 64 : 0) + "}\n");
            }
        }
        Path out = Files.writeString(dir.resolve("out.csv"), "an earlier conversion\n");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of(java, "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.arenascope.app.Main", "convert", in.toString(), out.toString(), "--force"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("log.txt").toFile()).start();
        try {
            Await.untilFile("256 KiB of the conversion written", dir, () -> !p.isAlive() || partBytes() >= 256 * 1024);
            assertTrue(p.isAlive(), "the conversion ended by itself: " + Files.readString(dir.resolve("log.txt")));
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "convert did not stop after a TERM");
        } finally {
            p.destroyForcibly();
        }
        assertEquals("an earlier conversion\n", Files.readString(out), "OUT is the earlier file, not a cut one");
        assertEquals(0, partBytes(), "no temporary file left");
        try (Stream<Path> s = Files.list(dir)) {
            assertFalse(s.anyMatch(f -> f.getFileName().toString().startsWith(".")), "nothing hidden left beside OUT");
        }
    }
}
