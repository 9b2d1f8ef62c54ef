package dev.arenascope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.arenascope.app.Main;

/** One in-process run of the command line, as a test sees it: the exit code, stdout and stderr. */
public record CliRun(int code, String out, String err) {

    /** Runs {@code arenascope ARGS...} in this JVM and captures both streams. */
    public static CliRun of(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = Main.cli().run(args, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        return new CliRun(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    /**
     * Runs {@code arenascope ARGS...} in a fresh JVM (this test's java and class path) with
     * {@code jvmOptions} (a small heap, say), its stdin closed and its stderr into a file, so a child
     * that writes much to both cannot block on a full pipe; fails the test, the child killed, when it
     * has not ended within {@code seconds}.
     */
    public static CliRun inChild(List<String> jvmOptions, long seconds, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile("arenascope-child-", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes(); // ends when the child closes its stdout: at its exit
            boolean ended = p.waitFor(seconds, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            String errText = Files.readString(err);
            assertTrue(ended, "arenascope " + String.join(" ", args) + " did not end in " + seconds + " s: " + errText);
            return new CliRun(p.exitValue(), new String(out, StandardCharsets.UTF_8), errText);
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** Asserts exit 2 with one line on stderr that names the command, mentions each of {@code mentions}, and holds no stack trace. */
    public void isOneLineUsageError(String command, String... mentions) {
        assertEquals(2, code, err);
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("arenascope " + command + ": "), err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), err);
        for (String m : mentions) {
            assertTrue(err.contains(m), "expected '" + m + "' in: " + err);
        }
    }
}
