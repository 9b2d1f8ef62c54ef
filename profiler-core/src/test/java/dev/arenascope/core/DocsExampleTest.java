package dev.arenascope.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * The "Use as a library" guide's example is the program the build compiles and runs: the code block
 * after the {@code <!-- example: Profiled.java -->} marker of {@code docs/guide/library.md}, so the page
 * and the API cannot drift apart.
 */
@Timeout(120)
class DocsExampleTest {
    private static final String MARKER = "<!-- example: Profiled.java";

    @TempDir
    Path dir;

    private static Path guide() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path g = p.resolve("docs/guide/library.md");
            if (Files.isRegularFile(g)) {
                return g;
            }
        }
        throw new AssertionError("docs/guide/library.md not found above " + Path.of("").toAbsolutePath());
    }

    static String example(String page) {
        int marker = page.indexOf(MARKER);
        assertTrue(marker >= 0, "the guide marks its example");
        int start = page.indexOf("```java\n", marker);
        int end = page.indexOf("\n```", start + 8);
        assertTrue(start > 0 && end > start, "a java block follows the marker");
        return page.substring(start + "```java\n".length(), end + 1);
    }

    @Test
    void theGuidesExampleCompilesRunsAndRecordsTheArenaAndThePool() throws Exception {
        String code = example(Files.readString(guide()));
        Path src = dir.resolve("src/Profiled.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, code);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, diagnostics, diagnostics, "-Xlint:all,-path,-try", "-Werror", "--release", "25",
                "-cp", System.getProperty("java.class.path"), "-d", classes.toString(), src.toString());
        assertEquals(0, rc, "the example compiles without warnings:\n" + diagnostics.toString(StandardCharsets.UTF_8));

        Path trace = dir.resolve("run.astrace");
        PrintStream err = System.err;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, DocsExampleTest.class.getClassLoader())) {
            System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
            loader.loadClass("Profiled").getMethod("main", String[].class).invoke(null, (Object) new String[] {trace.toString()});
        } finally {
            System.setErr(err);
        }
        LoadedTrace t = TraceFormats.load(trace);
        long events = t.store().eventCount();
        assertTrue(events > 300, "100 frames of scopes, a tensor and a pool request each: " + events);
        assertEquals(List.of("frame", "buffers"), t.store().memories().stream().map(MemoryInfo::name).toList());
        String line = said.toString(StandardCharsets.UTF_8);
        assertTrue(line.contains("arenascope: " + events + " events recorded -> " + trace + " (" + events + " written, 0 lost)"), line);
    }
}
