package dev.arenascope.app.commands.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.Main;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;

@Timeout(60)
class ListenCommandTest {
    @TempDir
    Path dir;

    /** A byte sink the test can read, and wait on, while the command still writes to it. */
    static final class Output extends ByteArrayOutputStream {
        synchronized String text() {
            return toString(StandardCharsets.UTF_8);
        }

        @Override
        public synchronized void write(int b) {
            super.write(b);
            notifyAll();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            super.write(b, off, len);
            notifyAll();
        }

        /**
         * Waits until the text written so far contains {@code part} (woken by each write, no polling) and
         * returns the text; fails after 20 s saying what was written instead.
         */
        synchronized String await(String part, Output err) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            String t;
            while (!(t = text()).contains(part)) {
                long left = end - System.nanoTime();
                assertTrue(left > 0, "no '" + part + "' line: " + t + err.text());
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return t;
        }
    }

    /** The port of the command's "listening on 127.0.0.1:PORT" line followed by {@code rest}. */
    private static int listeningPort(Output out, Output err, String rest) throws InterruptedException {
        Matcher m = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)" + Pattern.quote(rest)).matcher(out.await(rest + "\n", err));
        assertTrue(m.find(), out.text());
        return Integer.parseInt(m.group(1));
    }

    private static CompletableFuture<Integer> listen(Output out, Output err, String... options) {
        String[] args = new String[options.length + 3];
        args[0] = "listen";
        args[1] = "--port";
        args[2] = "0";
        System.arraycopy(options, 0, args, 3, options.length);
        return CompletableFuture.supplyAsync(() -> Main.cli().run(args,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
    }

    @Test
    void listensStreamsAndWritesOneFilePerProcess() throws Exception {
        Output out = new Output();
        Output err = new Output();
        CompletableFuture<Integer> code = listen(out, err, "--out", dir.toString(), "--connections", "1", "--seconds", "50");
        int port = listeningPort(out, err, " (no token: loopback only)");
        try (Session session = new Session("demo run")) {
            LiveSender live = LiveSender.stream(session, "127.0.0.1:" + port, null);
            int mem = session.registerMemory("scratch", MemoryKind.POOL, "virtual", 0, Map.of());
            for (int i = 0; i < 10_000; i++) {
                session.publish(EventKind.ALLOC, 0, mem, i, 32, 32, 32L * (i + 1), 0, -1, -1);
            }
            session.removeSink(live);
        }
        assertEquals(0, code.get(30, TimeUnit.SECONDS), err.text());
        String pid = Long.toString(ProcessHandle.current().pid());
        Path file = dir.resolve("demo_run-p" + pid + "-c1.astrace");
        assertTrue(out.text().contains("#1 pid " + pid + " 'demo run' closed: 10,000 events, 0 lost -> " + file), out.text());
        assertTrue(Files.exists(file));
        LoadedTrace t = TraceFormats.load(file);
        assertEquals(10_000, t.store().eventCount());
        assertEquals("scratch", t.store().memories().getFirst().name());
        assertEquals(320_000, t.store().peakUsed(0));
    }

    @Test
    void saysWhatTheAcceptLoopRefusedAndAcceptsTheAddressAgainOnceItsConnectionEnded() throws Exception {
        // the command ends on its connections, not on a clock: the refused one, the first and the third
        Output out = new Output();
        Output err = new Output();
        CompletableFuture<Integer> code = listen(out, err, "--connections", "3", "--seconds", "50", "--max-per-address", "1");
        int port = listeningPort(out, err, "");
        String pid = Long.toString(ProcessHandle.current().pid());
        try (Session held = new Session("held run")) {
            LiveSender live = LiveSender.stream(held, "127.0.0.1:" + port, null);
            int mem = held.registerMemory("scratch", MemoryKind.POOL, "virtual", 0, Map.of());
            held.publish(EventKind.ALLOC, 0, mem, 0, 32, 32, 32, 0, -1, -1);
            out.await("#1 pid " + pid + " 'held run' streaming", err); // accepted: the address holds its one connection
            try (Socket second = new Socket("127.0.0.1", port)) {
                out.await("accept: refused 1 connection from addresses already holding 1", err);
            }
            held.removeSink(live);
        }
        out.await("#1 pid " + pid + " 'held run' closed", err); // its slot is free again
        try (Session again = new Session("next run")) {
            LiveSender live = LiveSender.stream(again, "127.0.0.1:" + port, null);
            int mem = again.registerMemory("scratch", MemoryKind.POOL, "virtual", 0, Map.of());
            again.publish(EventKind.ALLOC, 0, mem, 0, 32, 32, 32, 0, -1, -1);
            again.removeSink(live);
        }
        assertEquals(0, code.get(30, TimeUnit.SECONDS), err.text());
        assertTrue(out.text().contains("#3 pid " + pid + " 'next run' closed: 1 events"), out.text());
        assertTrue(out.text().contains("(so far: 0 failed, 0 shed, 1 refused)"), out.text());
    }

    @Test
    void closesAConnectionThatSendsNothingForTheIdleTimeout() throws Exception {
        // the timeout under test is the receiver's own: the connection is closed once it has sent nothing for
        // 0.5 s, however long that takes to be noticed on a loaded machine; the test waits for the line
        Output out = new Output();
        Output err = new Output();
        CompletableFuture<Integer> code = listen(out, err, "--connections", "1", "--seconds", "50", "--idle-timeout", "0.5");
        int port = listeningPort(out, err, "");
        try (Session session = new Session("idle run")) {
            LiveSender live = LiveSender.stream(session, "127.0.0.1:" + port, null);
            int mem = session.registerMemory("scratch", MemoryKind.POOL, "virtual", 0, Map.of());
            session.publish(EventKind.ALLOC, 0, mem, 0, 32, 32, 32, 0, -1, -1);
            out.await("s between chunks: closed as idle", err);
            session.removeSink(live);
        }
        assertEquals(0, code.get(30, TimeUnit.SECONDS), err.text());
        assertTrue(out.text().contains("nothing received for 0.5 s between chunks: closed as idle"), out.text());
    }

    @Test
    void idleTimeoutAndPerAddressCapAreChecked() {
        for (String[] bad : new String[][] {{"--idle-timeout", "0"}, {"--idle-timeout", "x"}, {"--max-per-address", "0"}}) {
            Output out = new Output();
            Output err = new Output();
            String[] args = {"listen", "--port", "0", "--seconds", "1", bad[0], bad[1]};
            assertEquals(2, Main.cli().run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
            assertTrue(err.text().strip().lines().count() == 1 && err.text().contains(bad[0]), err.text());
        }
    }

    @Test
    void aCappedConnectionKeepsItsNewestChunksAndStatsSaysWhatWasDropped() throws Exception {
        Output out = new Output();
        Output err = new Output();
        CompletableFuture<Integer> code = listen(out, err, "--out", dir.toString(), "--connections", "1", "--seconds", "50",
                "--max-size", "1MiB");
        int port = listeningPort(out, err, " (no token: loopback only)");
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(34);
        long used = 0;
        try (Session session = new Session("capped")) {
            LiveSender live = LiveSender.stream(session, "127.0.0.1:" + port, null);
            int mem = session.registerMemory("scratch", MemoryKind.POOL, "virtual", 0, Map.of());
            for (int i = 0; i < 400_000; i++) {
                long size = 32 + rnd.nextInt(4096);
                used += size;
                session.publish(EventKind.ALLOC, 0, mem, rnd.nextLong() >>> 8, size, size, used, 0, -1, -1);
            }
            session.removeSink(live);
        }
        assertEquals(0, code.get(40, TimeUnit.SECONDS), err.text());
        String pid = Long.toString(ProcessHandle.current().pid());
        Path file = dir.resolve("capped-p" + pid + "-c1.astrace");
        assertTrue(out.text().contains("-> " + file + " (capped (max size 1.00 MiB): "), out.text());
        assertTrue(Files.size(file) <= 1 << 20, Files.size(file) + " bytes");
        assertTrue(Files.list(dir).noneMatch(p -> p.toString().endsWith(".writing") || p.toString().endsWith(".ring-tmp")));

        ByteArrayOutputStream sOut = new ByteArrayOutputStream();
        ByteArrayOutputStream sErr = new ByteArrayOutputStream();
        assertEquals(0, Main.cli().run(new String[] {"stats", file.toString()}, new PrintStream(sOut, true, StandardCharsets.UTF_8),
                new PrintStream(sErr, true, StandardCharsets.UTF_8)), sErr.toString(StandardCharsets.UTF_8));
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(sOut.toString(StandardCharsets.UTF_8));
        var ring = json.get("ring");
        assertEquals(1 << 20, ring.get("max_size_bytes").asLong());
        assertTrue(ring.get("dropped_chunks").asLong() > 0, ring.toString());
        assertEquals("kept window", ring.get("peaks_cover").asText());
        LoadedTrace t = TraceFormats.load(file);
        long events = json.get("events").asLong();
        // the kept events and the dropped ones are the whole stream, less what the link lost, plus the carried gauge
        assertEquals(400_000 - t.store().lostEvents(), events - 1 + ring.get("dropped_events").asLong());
        assertEquals(ring.get("window_start_ns").asLong(), t.store().startNs());
        // the pool only grows: its peak in the kept window is its last gauge
        long lastUsed = t.store().event(t.store().eventCount() - 1).used();
        assertEquals(lastUsed, json.get("memories").get(0).get("peak_bytes").asLong());
        // the report says it too, in words and in its JSON
        for (String format : new String[] {"md", "json"}) {
            Path report = dir.resolve("capped." + format);
            assertEquals(0, Main.cli().run(new String[] {"report", file.toString(), "--format", format, "--out", report.toString()},
                    new PrintStream(sOut, true, StandardCharsets.UTF_8), new PrintStream(sErr, true, StandardCharsets.UTF_8)),
                    sErr.toString(StandardCharsets.UTF_8));
            String text = Files.readString(report);
            assertTrue(format.equals("md") ? text.contains("peaks and totals cover the kept window only")
                    : text.contains("\"droppedEvents\" : " + ring.get("dropped_events").asLong()), text);
        }
    }

    @Test
    void capsAreCheckedAndNeedAnAstraceOut() {
        for (String[] bad : new String[][] {{"--max-size", "0", "--out", "d"}, {"--max-size", "-1", "--out", "d"},
                {"--max-size", "10XB", "--out", "d"}, {"--max-size", "100KiB", "--out", "d"}, {"--max-duration", "0", "--out", "d"},
                {"--max-size", "2GiB", "--seconds", "1"}, {"--max-duration", "8h", "--format", ".jsonl"}}) {
            Output out = new Output();
            Output err = new Output();
            String[] args = {"listen", "--port", "0", "--seconds", "1", bad[0], bad[1], bad[2], bad[3].equals("d") ? dir.toString() : bad[3]};
            if (bad[2].equals("--seconds")) {
                args = new String[] {"listen", "--port", "0", bad[0], bad[1], bad[2], bad[3]};
            }
            if (bad[2].equals("--format")) {
                args = new String[] {"listen", "--port", "0", "--seconds", "1", "--out", dir.toString(), bad[0], bad[1], bad[2], bad[3]};
            }
            assertEquals(2, Main.cli().run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)),
                    String.join(" ", args) + ": " + err.text());
            assertTrue(err.text().strip().lines().count() == 1 && err.text().startsWith("arenascope listen: ")
                    && err.text().contains(bad[0].equals("--max-duration") && !bad[2].equals("--format") ? "--max-duration" : "--max-"), err.text());
        }
    }

    @Test
    void refusesAnOpenAddressWithoutAToken() {
        Output out = new Output();
        Output err = new Output();
        int code = Main.cli().run(new String[] {"listen", "--bind", "0.0.0.0", "--port", "0", "--seconds", "1"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertEquals("arenascope listen: listening on 0.0.0.0 (not loopback) requires a token; give one or bind to 127.0.0.1\n", err.text());
    }
}
