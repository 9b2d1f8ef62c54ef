package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;

/**
 * The commands on traces made to hurt: a line Jackson sniffs as UTF-32, names that carry terminal
 * escapes and forged rows, a stack chain thousands deep; and outputs that would clobber an input.
 */
class HostileInputCommandsTest {
    @TempDir
    Path dir;

    private static final String MEMORY = "{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"capacity\":0}\n";

    private static String alloc(long t, long used, int site) {
        return "{\"t\":" + t + ",\"kind\":\"ALLOC\",\"mem\":0,\"a\":" + t * 64 + ",\"b\":64,\"used\":" + used
                + (site >= 0 ? ",\"site\":" + site : "") + "}\n";
    }

    private Path sniffed() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(new byte[] {'{', 0, 0, 0, '\n'});
        b.write((MEMORY + alloc(1, 64, -1) + alloc(2, 128, -1)).getBytes(StandardCharsets.UTF_8));
        return Files.write(dir.resolve("sniffed.jsonl"), b.toByteArray());
    }

    private static void damagedLineOne(CliRun r, String command) {
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("arenascope " + command + ": ") && r.err().contains("sniffed.jsonl:1: "), r.err());
        assertTrue(r.err().contains("recovered 2 events"), r.err());
        assertFalse(r.err().contains("\tat ") || r.err().contains("reading bytes in memory"), r.err());
    }

    @Test
    void aLineJacksonWouldTakeForUtf32IsADamagedLineInEveryCommand() throws Exception {
        Path f = sniffed();
        CliRun stats = CliRun.of("stats", f.toString());
        damagedLineOne(stats, "stats");
        assertEquals(2, new ObjectMapper().readTree(stats.out()).get("events").asLong());
        Path csv = dir.resolve("out.csv");
        damagedLineOne(CliRun.of("convert", f.toString(), csv.toString()), "convert");
        assertEquals(3, Files.readAllLines(csv).size(), "header and the two events");
        damagedLineOne(CliRun.of("report", f.toString(), "--format", "json"), "report");
        damagedLineOne(CliRun.of("sites", f.toString()), "sites");
    }

    @Test
    void reportNeverWritesOverItsTraceOrItsBaseline() throws Exception {
        Path f = Files.writeString(dir.resolve("run.jsonl"), MEMORY + alloc(1, 64, -1));
        Path b = Files.writeString(dir.resolve("base.jsonl"), MEMORY + alloc(1, 32, -1));
        byte[] run = Files.readAllBytes(f);
        byte[] base = Files.readAllBytes(b);
        CliRun.of("report", f.toString(), "--out", f.toString(), "--format", "md").isOneLineUsageError("report", "is the trace being reported on");
        CliRun.of("report", f.toString(), "--baseline", b.toString(), "--out", dir.resolve(".").resolve("base.jsonl").toString(), "--format", "json")
                .isOneLineUsageError("report", "is the --baseline trace");
        assertTrue(Arrays.equals(run, Files.readAllBytes(f)) && Arrays.equals(base, Files.readAllBytes(b)));
    }

    @Test
    void aConversionThatFailsLeavesAnEarlierOutputAsItWas() throws Exception {
        Path bad = Files.write(dir.resolve("bad.pickle"), new byte[] {(byte) 0x80, 4, 'c', 'o', 's', '\n'});
        Path out = Files.writeString(dir.resolve("keep.jsonl"), "an earlier conversion\n");
        CliRun r = CliRun.of("convert", bad.toString(), out.toString(), "--force");
        assertEquals(2, r.code(), r.err());
        assertEquals("an earlier conversion\n", Files.readString(out));
        try (var files = Files.list(dir)) {
            assertEquals(2, files.count(), "no temporary file left");
        }
    }

    @Test
    void sitesTextShowsNamesAsTextNotAsTerminalCommandsOrRows() throws Exception {
        String evil = "\\u001b]0;owned\\u0007\\u001b[2J\\u202eevil\\n 99.0 GiB  99.9%  1  forged";
        Path f = Files.writeString(dir.resolve("evil.jsonl"), MEMORY
                + "{\"type\":\"frame\",\"id\":0,\"function\":\"" + evil + "\",\"file\":\"x.py\",\"line\":1}\n"
                + "{\"type\":\"stack\",\"id\":0,\"frame\":0,\"parent\":-1}\n" + alloc(1, 64, 0));
        CliRun r = CliRun.of("sites", f.toString());
        assertEquals(0, r.code(), r.err());
        assertFalse(r.out().chars().anyMatch(c -> c == 0x1b || c == 0x07 || c == 0x202e), r.out());
        assertFalse(r.out().lines().anyMatch(l -> l.strip().startsWith("99.0 GiB")), "no forged row: " + r.out());
        assertTrue(r.out().contains("\\x1b]0;owned\\x07"), r.out());
        CliRun folded = CliRun.of("sites", f.toString(), "--format", "folded");
        assertEquals(1, folded.out().lines().count(), folded.out());
        assertFalse(folded.out().chars().anyMatch(c -> c == 0x1b || c == 0x07 || c == 0x202e), folded.out());
    }

    @Test
    void aDeepStackChainCostsOutputInProportionToTheTrace() throws Exception {
        StringBuilder sb = new StringBuilder(MEMORY).append("{\"type\":\"frame\",\"id\":0,\"function\":\"f\",\"file\":\"x.py\",\"line\":1}\n");
        int k = 3000;
        for (int i = 0; i < k; i++) {
            sb.append("{\"type\":\"stack\",\"id\":").append(i).append(",\"frame\":0,\"parent\":").append(i - 1).append("}\n");
        }
        for (int i = 0; i < k; i++) {
            sb.append(alloc(i + 1, 64L * (i + 1), i));
        }
        Path f = Files.writeString(dir.resolve("deep.jsonl"), sb.toString());
        CliRun r = CliRun.of("sites", f.toString(), "--format", "folded");
        assertEquals(2, r.code(), "the nodes past the bound are bad lines: " + r.err());
        assertTrue(r.err().contains("frames deep, more than the 1024"), r.err());
        long written = r.out().length();
        // each site's line repeats its callers, so folded output is the input times the depth at most: bounded
        // by the depth bound (before it, this trace wrote 3000 lines averaging 16 KB, 150 times its size)
        assertTrue(written < 64L * Files.size(f), written + " bytes of folded output for a " + Files.size(f) + "-byte trace");
    }

    @Test
    void topMustBePositiveWhateverItsSign() {
        CliRun.of("sites", "x.jsonl", "--top", "-1").isOneLineUsageError("sites", "--top");
    }

    @Test
    void aLoopOfSymbolicLinksIsNotNoSuchFile() throws Exception {
        Path a = dir.resolve("a.jsonl");
        Path b = dir.resolve("b.jsonl");
        Files.createSymbolicLink(a, b);
        Files.createSymbolicLink(b, a);
        CliRun.of("stats", a.toString()).isOneLineUsageError("stats", "a loop of symbolic links");
    }
}
