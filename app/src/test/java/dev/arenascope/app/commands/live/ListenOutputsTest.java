package dev.arenascope.app.commands.live;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.Main;
import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.trace.file.TraceFormats;

/** Where {@code listen --out} puts sessions: never over an earlier run's file, never a name the file system refuses. */
@Timeout(60)
class ListenOutputsTest {
    @TempDir
    Path dir;

    private record Listening(CompletableFuture<Integer> code, ListenCommandTest.Output out, ListenCommandTest.Output err, int port) {}

    private Listening listen(int connections, String... more) throws InterruptedException {
        ListenCommandTest.Output out = new ListenCommandTest.Output();
        ListenCommandTest.Output err = new ListenCommandTest.Output();
        List<String> args = new ArrayList<>(List.of("listen", "--port", "0", "--out", dir.toString(),
                "--connections", Integer.toString(connections), "--seconds", "50"));
        args.addAll(List.of(more));
        CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> Main.cli().run(args.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        Pattern listening = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
        Matcher m;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!(m = listening.matcher(out.text())).find()) {
            assertTrue(System.nanoTime() < end, "no 'listening on' line: " + out.text() + err.text());
            Thread.sleep(20);
        }
        return new Listening(code, out, err, Integer.parseInt(m.group(1)));
    }

    /** Sends one JSONL session as the Python client does; returns the receiver's last answer. */
    private static String sendText(int port, String name, long pid) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream o = s.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String hello = "{\"arenascope_live\":\"jsonl\",\"version\":1,\"pid\":" + pid + ",\"name\":"
                    + new ObjectMapper().writeValueAsString(name) + ",\"token\":\"\"}\n";
            o.write(hello.getBytes(StandardCharsets.UTF_8));
            o.flush();
            assertTrue(in.readLine().contains("\"status\":0"));
            StringBuilder lines = new StringBuilder("{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"capacity\":0}\n");
            for (int i = 0; i < 31; i++) {
                lines.append("{\"t\":").append(i).append(",\"kind\":\"ALLOC\",\"mem\":0,\"a\":").append(i * 64)
                        .append(",\"b\":64,\"used\":").append((i + 1) * 64).append("}\n");
            }
            lines.append("{\"type\":\"goodbye\",\"events\":31,\"lost\":0}\n");
            o.write(lines.toString().getBytes(StandardCharsets.UTF_8));
            o.flush();
            s.shutdownOutput();
            return in.readLine();
        }
    }

    @Test
    void aSecondRunNeverWritesOverTheFirstRunsFiles() throws Exception {
        Listening first = listen(1);
        assertTrue(sendText(first.port(), "app", 1).contains("\"events\":31"));
        assertEquals(0, first.code().get(30, TimeUnit.SECONDS), first.err().text());
        Path earlier = dir.resolve("app-p1-c1.astrace");
        byte[] kept = Files.readAllBytes(earlier);

        Listening second = listen(1); // the counter restarts and pid 1 is common (containers): the same name
        assertTrue(sendText(second.port(), "app", 1).contains("\"events\":31"));
        assertEquals(0, second.code().get(30, TimeUnit.SECONDS), second.err().text());
        assertArrayEquals(kept, Files.readAllBytes(earlier), "the first run's file is untouched");
        Path numbered = dir.resolve("app-p1-c1-1.astrace");
        assertTrue(second.out().text().contains("-> " + numbered), second.out().text());
        assertEquals(31, TraceFormats.load(numbered).store().eventCount());
    }

    @Test
    void aSessionNameTooLongForAFileNameOrEmptyIsShortenedNotLost() throws Exception {
        Listening l = listen(2);
        String answer = sendText(l.port(), "x".repeat(300), 7);
        assertTrue(answer.contains("\"events\":31"), answer);
        answer = sendText(l.port(), "", 8);
        assertTrue(answer.contains("\"events\":31"), answer);
        assertEquals(0, l.code().get(30, TimeUnit.SECONDS), l.err().text());
        assertFalse(l.err().text().contains("Exception"), l.err().text());
        try (var files = Files.list(dir)) {
            List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(List.of("session-p8-c2.astrace", "x".repeat(ListenCommand.MAX_NAME_IN_FILE) + "-p7-c1.astrace"), names);
        }
    }

    @Test
    void anOutThatCannotHoldFilesIsRefusedAtStart() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        CliRun r = CliRun.of("listen", "--port", "0", "--out", file.toString(), "--seconds", "1");
        r.isOneLineUsageError("listen", "--out " + file, "not a directory");
        Path below = file.resolve("sub");
        r = CliRun.of("listen", "--port", "0", "--out", below.toString(), "--seconds", "1");
        r.isOneLineUsageError("listen", "--out " + below, "cannot write files there");
    }

    @Test
    void aSessionThatCannotBeStoredIsSaidToTheSenderAndNoFileIsNamed() throws Exception {
        Listening l = listen(1);
        Files.delete(dir); // --out vanishes after the start (a cleaned /tmp, an unmounted disk)
        String answer = sendText(l.port(), "app", 3);
        assertTrue(answer.contains("\"events\":0") && answer.contains("not stored"), answer);
        assertEquals(0, l.code().get(30, TimeUnit.SECONDS), l.err().text());
        String out = l.out().text();
        assertTrue(out.contains("'app' cut: 0 events, 0 lost (not stored: ") && out.contains("app-p3-c1.astrace: no such file or directory"), out);
        assertFalse(out.contains(" -> "), "no file named: " + out);
        assertFalse((out + l.err().text()).contains("\tat "), "no stack trace: " + out + l.err().text());
        Files.createDirectories(dir); // for @TempDir's clean-up
    }

    @Test
    void aSessionThatCannotBeStoredIsSaidToABinarySenderToo() throws Exception {
        Listening l = listen(1);
        Files.delete(dir); // --out vanishes after the start
        CliRun r = CliRun.of("record", "particles", "--device", "virtual", "--steps", "3", "--live", "127.0.0.1:" + l.port());
        assertEquals(5, r.code(), r.out() + r.err());
        String line = r.err().lines().filter(x -> x.startsWith("arenascope record: live ")).findFirst().orElse(r.err());
        assertTrue(line.contains("0 of ") && line.contains("cannot store the session (not stored: ")
                && line.contains("no such file or directory"), line);
        assertEquals(0, l.code().get(30, TimeUnit.SECONDS), l.err().text());
        assertTrue(l.out().text().contains("cut: 0 events"), l.out().text());
        assertFalse((r.err() + l.out().text() + l.err().text()).contains("\tat "), "no stack trace");
        Files.createDirectories(dir); // for @TempDir's clean-up
    }

    @Test
    void aSessionNameIsPrintedAsTextNotAsTerminalCommands() throws Exception {
        Listening l = listen(1);
        String evil = "\u001b]0;owned\u0007\u001b[2J\u202eevil\n 99.0 GiB  99.9%";
        sendText(l.port(), evil, 4);
        assertEquals(0, l.code().get(30, TimeUnit.SECONDS), l.err().text());
        String out = l.out().text() + l.err().text();
        assertFalse(out.chars().anyMatch(c -> c == 0x1b || c == 0x07 || c == 0x202e), out);
        assertTrue(out.contains("\\x1b]0;owned\\x07"), out);
        assertFalse(out.lines().anyMatch(x -> x.strip().startsWith("99.0 GiB")), "no forged line: " + out);
    }
}
