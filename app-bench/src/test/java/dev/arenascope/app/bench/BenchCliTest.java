package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.Main;
import dev.arenascope.app.cli.Command;

/**
 * {@code arenascope bench} as a user meets it with this module on the class path: found by the app
 * (which does not know it), listed in {@code --help} where it always stood, and its outputs checked
 * before anything is measured.
 */
class BenchCliTest {
    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {}

    private static Run cli(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = Main.cli().run(args, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    private static void isOneLineUsageError(Run r, String... mentions) {
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("arenascope bench: "), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        for (String m : mentions) {
            assertTrue(r.err().contains(m), "expected '" + m + "' in: " + r.err());
        }
        assertEquals("", r.out(), "refused before the work started, so nothing was reported as measured");
    }

    @Test
    void theAppFindsTheBenchAndListsItSecond() {
        List<String> names = Main.commands().stream().map(Command::name).toList();
        assertEquals(List.of("open", "bench"), names.subList(0, 2), names.toString());
        assertEquals(1, names.stream().filter("bench"::equals).count(), "found once");
        Run help = cli("--help");
        assertEquals(0, help.code());
        assertTrue(help.out().lines().anyMatch(l -> l.startsWith("  bench ")), help.out());
        Run usage = cli("bench", "--help");
        assertEquals(0, usage.code());
        assertTrue(usage.out().startsWith("Usage: arenascope bench"), usage.out());
    }

    @Test
    void outputsAreCheckedBeforeAnythingIsMeasured() throws Exception {
        Path target = Files.createDirectory(dir.resolve("out"));
        String missingDir = dir.resolve("nowhere/x.json").toString();
        isOneLineUsageError(cli("bench", "--json", missingDir, "--only", "plan"), "--json", missingDir, "no such directory");
        isOneLineUsageError(cli("bench", "--json", target.toString()), "--json", target.toString(), "is a directory");
        isOneLineUsageError(cli("bench", "--only", "nosuchgroup"), "unknown group 'nosuchgroup'");
        try (var left = Files.list(target)) {
            assertEquals(List.of(), left.toList(), "nothing written into the directory given as a file");
        }
        assertFalse(Files.exists(dir.resolve("nowhere")));
    }

    @Test
    void anExistingJsonIsRefusedBeforeMeasuring() throws Exception {
        String earlier = "{\"earlier\": 1}\n";
        Path out = Files.writeString(dir.resolve("bench.json"), earlier);
        isOneLineUsageError(cli("bench", "--json", out.toString(), "--only", "arena", "--quick"), out.toString(), "exists already", "--force");
        assertEquals(earlier, Files.readString(out));
    }
}
