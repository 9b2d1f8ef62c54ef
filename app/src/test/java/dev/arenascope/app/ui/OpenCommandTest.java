package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.Main;

class OpenCommandTest {
    private String err;

    private int run(String... args) {
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = Main.cli().run(args, new PrintStream(new ByteArrayOutputStream()), new PrintStream(e));
        err = e.toString();
        return code;
    }

    @Test
    void badArgumentsAreOneLineAndExitTwo() {
        assertEquals(2, run("open"));
        assertTrue(err.startsWith("arenascope open: expected one trace file, got 0"), err);
        assertEquals(2, run("open", "/no/such/trace.astrace"));
        assertEquals("arenascope open: /no/such/trace.astrace: no such file\n", err);
        assertEquals(2, run("open", "a.astrace", "b.astrace"));
        assertEquals("arenascope open: none of the 2 files named exists as a file: a.astrace, ...\n", err, "a job needs one member to open");
        assertEquals(2, run("open", "--frames", "3", "x.astrace"));
        assertTrue(err.contains("unknown option --frames"), err);
        assertEquals(1, err.lines().count(), "one line, no stack trace: " + err);
    }

    @Test
    void aFolderWithoutTracesIsRefusedInOneLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Files.writeString(dir.resolve("notes.txt"), "no trace here\n");
        assertEquals(2, run("open", dir.toString()));
        assertTrue(err.startsWith("arenascope open: " + dir + ": is a directory holding no trace file (reads "), err);
        assertEquals(1, err.lines().count(), err);
    }
}
