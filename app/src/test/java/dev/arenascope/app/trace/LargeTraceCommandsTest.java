package dev.arenascope.app.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.trace.file.AstraceIndex;
import dev.arenascope.core.trace.file.AstraceReader;

/**
 * {@code generate} writes the trace it says, and the commands answer the same from the out-of-core
 * store as from memory: {@code stats} and {@code sites} print the same, and the first out-of-core
 * read leaves its index beside the trace for the next.
 */
class LargeTraceCommandsTest {
    @TempDir
    Path dir;

    private static CliRun withStore(String mode, Supplier<CliRun> run) {
        String before = System.getProperty("arenascope.store");
        System.setProperty("arenascope.store", mode);
        try {
            return run.get();
        } finally {
            if (before == null) {
                System.clearProperty("arenascope.store");
            } else {
                System.setProperty("arenascope.store", before);
            }
        }
    }

    @Test
    void commandsAnswerTheSameOutOfCoreAsInMemory() throws Exception {
        Path t = dir.resolve("big.astrace");
        CliRun g = CliRun.of("generate", "--events", "300k", t.toString());
        assertEquals(0, g.code(), g.err());
        assertTrue(g.out().startsWith(t + ": 300,000 events, "), g.out());
        assertEquals(300_000, AstraceReader.loadInMemory(t, null).store().eventCount());
        CliRun memStats = withStore("memory", () -> CliRun.of("stats", t.toString()));
        assertEquals(0, memStats.code(), memStats.err());
        assertTrue(!Files.exists(AstraceIndex.indexOf(t)), "a read into memory writes no index");
        CliRun oocStats = withStore("file", () -> CliRun.of("stats", t.toString()));
        assertEquals(0, oocStats.code(), oocStats.err());
        assertEquals(memStats.out(), oocStats.out());
        assertTrue(Files.isRegularFile(AstraceIndex.indexOf(t)), "the out-of-core read saved its index");
        for (String[] q : new String[][] {{"--memory", "cuda:0"}, {"--memory", "cuda:1", "--leaks"}}) {
            String[] args = new String[q.length + 2];
            args[0] = "sites";
            args[1] = t.toString();
            System.arraycopy(q, 0, args, 2, q.length);
            CliRun a = withStore("memory", () -> CliRun.of(args));
            CliRun b = withStore("file", () -> CliRun.of(args)); // from the saved index now
            assertEquals(0, a.code(), a.err());
            assertEquals(a.out(), b.out(), String.join(" ", args));
        }
    }

    @Test
    void generateRefusesWhatItCannotWrite() {
        Path out = dir.resolve("x.astrace");
        CliRun.of("generate", "--events", "0", out.toString()).isOneLineUsageError("generate", "--events", "'0'");
        CliRun.of("generate", "--events", "lots", out.toString()).isOneLineUsageError("generate", "--events", "'lots'");
        CliRun.of("generate", "--events", "2.5", out.toString()).isOneLineUsageError("generate", "--events", "'2.5'");
        CliRun.of("generate", out.toString()).isOneLineUsageError("generate", "--events");
        CliRun.of("generate", "--events", "10", dir.resolve("x.txt").toString()).isOneLineUsageError("generate", "x.txt", ".astrace");
        assertTrue(!Files.exists(out), "nothing written");
    }

    @Test
    void countsReadAsPeopleWriteThem() {
        assertEquals(1_000_000_000L, GenerateCommand.count("1e9"));
        assertEquals(100_000_000L, GenerateCommand.count("100M"));
        assertEquals(2_500_000_000L, GenerateCommand.count("2.5G"));
        assertEquals(300_000L, GenerateCommand.count("300k"));
        assertEquals(1_234_567L, GenerateCommand.count("1,234,567"));
    }
}
