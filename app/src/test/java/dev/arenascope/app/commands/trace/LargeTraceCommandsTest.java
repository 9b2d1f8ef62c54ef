package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

    /** {@code arenascope ARGS} in a fresh JVM of {@code heap}, as the launcher starts a batch command, the store left to decide ({@code auto}). */
    private static CliRun child(String heap, String... args) throws Exception {
        return CliRun.inChild(List.of(heap, "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED"), 600, args);
    }

    @Test
    void commandsReadATraceBiggerThanTheirHeap() throws Exception {
        // 3 M events: a 23 MB file, about 60 MB in the in-memory store; a 56 MiB heap opens it out of core
        // by itself (auto: a sixth of the heap) and answers as the in-memory store does in this JVM
        Path t = dir.resolve("big.astrace");
        CliRun g = CliRun.of("generate", "--events", "3M", t.toString());
        assertEquals(0, g.code(), g.err());
        String heap = "-Xmx56m";
        CliRun stats = child(heap, "stats", t.toString());
        assertEquals(0, stats.code(), stats.err());
        assertTrue(Files.isRegularFile(AstraceIndex.indexOf(t)), "opened out of core: its index saved beside it");
        CliRun memStats = withStore("memory", () -> CliRun.of("stats", t.toString()));
        assertEquals(0, memStats.code(), memStats.err());
        assertEquals(memStats.out(), stats.out());
        CliRun sites = child(heap, "sites", t.toString(), "--memory", "cuda:0");
        assertEquals(0, sites.code(), sites.err());
        assertEquals(withStore("memory", () -> CliRun.of("sites", t.toString(), "--memory", "cuda:0")).out(), sites.out());
        Path json = dir.resolve("small-heap.json");
        CliRun report = child(heap, "report", t.toString(), "--format", "json", "--out", json.toString());
        assertEquals(0, report.code(), report.err());
        Path memJson = dir.resolve("memory.json");
        CliRun memReport = withStore("memory", () -> CliRun.of("report", t.toString(), "--format", "json", "--out", memJson.toString()));
        assertEquals(0, memReport.code(), memReport.err());
        assertEquals(Files.readString(memJson), Files.readString(json));
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
