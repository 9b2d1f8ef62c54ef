package dev.arenascope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
