package dev.arenascope.app.commands.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;


class RecordCommandTest {
    @TempDir
    Path dir;
    /** The last run of the command line: its exit code and both streams. */
    private CliRun last;

    private int run(String... args) {
        last = CliRun.of(args);
        return last.code();
    }

    private String out() {
        return last.out();
    }

    private String err() {
        return last.err();
    }

    @Test
    void recordsAWorkloadToAFileAndSummarisesInOneLine() throws Exception {
        Path file = dir.resolve("p.astrace");
        assertEquals(0, run("record", "particles", "--device", "virtual", "--out", file.toString(), "--steps", "60"), err());
        assertTrue(Files.size(file) > 0);
        String line = out().strip();
        assertFalse(line.contains("\n"), "one summary line: " + line);
        assertTrue(line.startsWith("particles on virtual: "), line);
        assertTrue(line.matches(".*: \\d+ events, peak .*"), line);
        assertTrue(line.contains(file.toString()), line);
        assertEquals("", err(), "no progress lines when stderr is no terminal");
        // stats shows the pool's limit apart from its capacity (none on the virtual device)
        assertEquals(0, run("stats", file.toString()), err());
        JsonNode pool = null;
        for (JsonNode m : new ObjectMapper().readTree(out()).get("memories")) {
            if (m.get("kind").asText().equals("POOL")) {
                pool = m;
            }
        }
        assertTrue(pool != null && pool.has("limit") && pool.get("limit").isNull(), String.valueOf(pool));
        assertEquals(0, pool.get("capacity").asLong(), pool.toString());
    }

    @Test
    void capsAreTakenAndAKeptWindowIsSaid() throws Exception {
        Path file = dir.resolve("capped.astrace");
        assertEquals(0, run("record", "particles", "--device", "virtual", "--out", file.toString(), "--steps", "60",
                "--max-size", "2GiB", "--max-duration", "8h"), err());
        assertTrue(out().contains("; capped (max size 2.00 GiB, max duration "), out());
        assertTrue(out().contains("nothing dropped"), out());
        assertFalse(Files.exists(dir.resolve("capped.astrace.writing")), "the writing note goes when the recording ends");
        assertEquals(0, run("stats", file.toString()), err());
        JsonNode ring = new ObjectMapper().readTree(out()).get("ring");
        assertEquals(2L << 30, ring.get("max_size_bytes").asLong());
        assertEquals(8 * 3600_000_000_000L, ring.get("max_duration_ns").asLong());
        assertEquals(0, ring.get("dropped_chunks").asLong());
        assertEquals("whole session", ring.get("peaks_cover").asText());
    }

    @Test
    void statsOnATraceStillBeingWrittenAnswersWhatIsSealedAndExitsZero() throws Exception {
        Path file = dir.resolve("growing.astrace");
        try (var w = new dev.arenascope.core.trace.file.AstraceWriter(file)) {
            w.onSession(new dev.arenascope.core.trace.SessionInfo("growing", "box", 0, java.util.List.of(), java.util.Map.of()));
            w.onMemory(new dev.arenascope.core.trace.MemoryInfo(0, "scratch", dev.arenascope.core.trace.MemoryKind.POOL, "virtual", 0,
                    java.util.Map.of()));
            EventBatch b = new EventBatch();
            for (int i = 0; i < 1000; i++) {
                b.add(i * 1000L, EventBatch.pack(dev.arenascope.core.trace.EventKind.ALLOC.code(), 0, 0), 0, i * 64L, 64, 64,
                        64L * (i + 1), 0, -1, -1);
            }
            w.onEvents(b);
            w.flush(); // sealed: a chunk on disk, and the recording goes on
            assertEquals(0, run("stats", file.toString()), err());
            assertEquals(1000, new ObjectMapper().readTree(out()).get("events").asLong());
            assertTrue(err().contains("still being written: read 1000 events in 1 chunks sealed so far"), err());
            assertFalse(err().contains("did not finish"), err());
        }
        assertEquals(0, run("stats", file.toString()), err());
        assertEquals("", err(), "closed: a whole file, nothing to say");
    }

    @Test
    void badCapsAreOneLineAndExitTwo() {
        String out = dir.resolve("x.astrace").toString();
        String[][] cases = {
                {"--max-size", "0", "--out", out}, {"--max-size", "-1", "--out", out}, {"--max-size", "10XB", "--out", out},
                {"--max-size", "512KiB", "--out", out}, {"--max-duration", "0", "--out", out}, {"--max-duration", "8 hours", "--out", out},
                {"--max-duration", "-3s", "--out", out},
                {"--max-size", "2GiB", "--out", dir.resolve("x.jsonl").toString()},
                {"--max-size", "2GiB", "--live", "127.0.0.1:1"}};
        for (String[] c : cases) {
            String[] args = new String[c.length + 4];
            args[0] = "record";
            args[1] = "particles";
            args[2] = "--device";
            args[3] = "virtual";
            System.arraycopy(c, 0, args, 4, c.length);
            var r = dev.arenascope.app.cli.CliRun.of(args);
            r.isOneLineUsageError("record", c[0].startsWith("--max-duration") ? "--max-duration" : "--max-size");
            assertFalse(Files.exists(dir.resolve("x.astrace")), "nothing recorded for " + String.join(" ", c));
        }
    }

    @Test
    void aRunThatFailsBeforeRecordingAnythingLeavesNoFile() {
        Path file = dir.resolve("r.astrace");
        assertEquals(2, run("record", "render", "--device", "virtual:1MiB", "--out", file.toString()), err());
        assertTrue(err().contains("--arena 16.0 MiB is more than the 1.00 MiB free on virtual"), err());
        assertFalse(Files.exists(file), "an empty trace is not left behind");
    }

    @Test
    void aDeviceTooSmallForTheWorkloadExitsTwoAndKeepsWhatWasRecorded() throws Exception {
        Path file = dir.resolve("i.astrace");
        assertEquals(2, run("record", "inference", "--device", "virtual:40MiB", "--out", file.toString()), err());
        String[] lines = err().strip().split("\n");
        assertEquals(2, lines.length, err());
        assertTrue(lines[0].matches("arenascope record: the \\d+ events recorded before the failure are in .*i\\.astrace"), lines[0]);
        assertTrue(lines[1].startsWith("arenascope record: inference: virtual: cannot allocate ") && lines[1].contains("free of 40.0 MiB"), lines[1]);
        assertTrue(Files.size(file) > 0);
        assertEquals(0, run("stats", file.toString()), err());
    }

    @Test
    void streamsLiveWithoutWritingAFile() throws Exception {
        var received = new AtomicLong();
        var closed = new CountDownLatch(1);
        try (var receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0),
                peer -> new EventSink() {
                    @Override
                    public void onEvents(EventBatch batch) {
                        received.addAndGet(batch.size());
                    }

                    @Override
                    public void onClose() {
                        closed.countDown();
                    }
                })) {
            assertEquals(0, run("record", "particles", "--device", "virtual", "--steps", "40", "--live", "127.0.0.1:" + receiver.port()), err());
            assertTrue(closed.await(10, TimeUnit.SECONDS), "the stream ended");
        }
        String line = out().strip();
        long events = Long.parseLong(line.replaceAll(".*: (\\d+) events.*", "$1"));
        assertEquals(events, received.get(), line);
        assertTrue(line.contains("streamed to 127.0.0.1:"), line);
        try (var files = Files.list(Path.of("."))) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith("particles-")), "no default file with --live");
        }
    }

    @Test
    void aLiveStreamWithNoReceiverSaysNothingWasDeliveredAndExitsFive() throws Exception {
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        assertEquals(ExitCodes.INCOMPLETE, run("record", "particles", "--device", "virtual", "--steps", "20", "--live", "127.0.0.1:" + port), err());
        String line = out().strip();
        long events = Long.parseLong(line.replaceAll(".*: (\\d+) events.*", "$1"));
        assertTrue(line.endsWith("streamed to 127.0.0.1:" + port + " (0 delivered, " + events + " lost)"), line);
        String e = err().strip();
        assertTrue(e.startsWith("arenascope record: live 127.0.0.1:" + port + ": 0 of " + events + " events delivered, " + events
                + " lost (cannot reach 127.0.0.1:" + port), e);
        assertFalse(e.contains("\n"), "one line: " + e);
    }

    @Test
    void aLiveStreamRefusedForItsTokenExitsFive() throws Exception {
        var options = new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, "the-right-token");
        try (var receiver = LiveReceiver.start(options, peer -> batch -> { })) {
            assertEquals(ExitCodes.INCOMPLETE, run("record", "particles", "--device", "virtual", "--steps", "20", "--live", "127.0.0.1:" + receiver.port()), err());
        }
        String e = err().strip();
        assertTrue(e.contains(" events delivered, ") && e.contains("refused by 127.0.0.1:") && e.contains("bad token"), e);
    }

    @Test
    void calibratesARecordedRenderTrace() throws Exception {
        Path file = dir.resolve("r.astrace");
        assertEquals(0, run("record", "render", "--device", "virtual", "--out", file.toString(), "--frames", "40",
                "--width", "96", "--height", "64", "--triangles", "800", "--grow-by", "800", "--grow-every", "3", "--arena", "4MiB"), err());
        assertEquals(0, run("calibrate", file.toString()), err());
        String table = out();
        for (String scope : new String[] {"output", "raster", "tiles", "blur", "tonemap", "scene_inputs"}) {
            assertTrue(table.lines().anyMatch(l -> l.startsWith(scope + " ") && l.contains("exact")), scope + " in\n" + table);
        }
        assertTrue(table.contains("·fragments"), table);

        assertEquals(0, run("calibrate", file.toString(), "--json"), err());
        JsonNode root = new ObjectMapper().readTree(out());
        JsonNode output = null;
        for (JsonNode s : root.get("scopes")) {
            if (s.get("name").asText().equals("output")) {
                output = s;
            }
        }
        assertTrue(output != null, out());
        assertTrue(output.get("integral").asBoolean());
        assertEquals(0.0, output.get("worst_error_bytes").asDouble());
        // 96 x 64 pixels: RGBA8 + float depth per frame
        assertEquals(96 * 64 * 8, output.get("coefficients").get("frames").asDouble());
    }

    @Test
    void badUsageExitsTwoWithOneLineAndLeavesNoFile() throws Exception {
        assertEquals(2, run("record"));
        assertTrue(err().contains("which workload"), err());
        assertEquals(2, run("record", "nope"));
        assertTrue(err().contains("unknown workload 'nope'"), err());
        assertEquals(2, run("record", "particles", "--steps", "many", "--device", "virtual"));
        assertTrue(err().contains("--steps"), err());
        assertEquals(2, run("record", "inference", "--resolution", "100", "--device", "virtual"));
        assertTrue(err().contains("multiple of 32"), err());
        assertEquals(2, run("record", "particles", "--bogus", "1"));
        assertTrue(err().contains("--bogus"), err());
        assertEquals(2, run("record", "particles", "--device", "quantum"));
        assertTrue(err().contains("quantum"), err());
        assertEquals(2, run("record", "particles", "--live", "nohost"));
        assertTrue(err().contains("HOST:PORT"), err());
        assertEquals(1, err().strip().lines().count());
        try (var files = Files.list(Path.of("."))) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().endsWith(".astrace")), "a refused command writes no trace");
        }

        assertEquals(2, run("calibrate", dir.resolve("missing.astrace").toString()));
        assertTrue(err().contains("missing.astrace"), err());
        Path garbage = dir.resolve("garbage.astrace");
        Files.write(garbage, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertEquals(2, run("calibrate", garbage.toString()));
        assertTrue(err().contains("garbage.astrace"), err());
        assertEquals(1, err().strip().lines().count(), err());

        Path pool = dir.resolve("pool.astrace");
        assertEquals(0, run("record", "particles", "--device", "virtual", "--out", pool.toString(), "--steps", "20"));
        assertEquals(2, run("calibrate", pool.toString()));
        assertTrue(err().contains("no closed arena scopes"), err());
    }
}
