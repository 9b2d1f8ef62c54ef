package dev.arenascope.app.commands.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.testsupport.Fixtures;

/** {@code convert} with a PyTorch snapshot as input and Perfetto JSON as output, as a user runs them. */
class ImportExportCommandsTest {
    @TempDir
    Path dir;

    static Path torchFixture(String name) {
        return Fixtures.torch(name);
    }

    @Test
    void aSnapshotConvertsAndItsStatsShowTheStatedPeak() throws Exception {
        Path out = dir.resolve("magma.astrace");
        CliRun r = TraceCommandsTest.cli("convert", torchFixture("cs336-a2-magma27.pickle").toString(), out.toString());
        assertEquals(0, r.code(), r.err());
        CliRun s = TraceCommandsTest.cli("stats", out.toString());
        assertEquals(0, s.code(), s.err());
        JsonNode m = new ObjectMapper().readTree(s.out()).get("memories").get(0);
        assertEquals("cuda:0", m.get("name").asText());
        assertEquals(13_927_831_556L, m.get("peak_bytes").asLong());
        assertEquals(14_180_941_824L, m.get("reserved_peak_bytes").asLong());
    }

    @Test
    void aSnapshotExportsStraightToPerfetto() throws Exception {
        Path out = dir.resolve("bcrafton.json");
        CliRun r = TraceCommandsTest.cli("convert", torchFixture("cs336-a2-bcrafton.pickle").toString(), out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode root = new ObjectMapper().readTree(out.toFile());
        long peak = 0;
        for (JsonNode e : root.get("traceEvents")) {
            if (e.get("ph").asText().equals("C") && e.get("name").asText().equals("bytes in use")) {
                peak = Math.max(peak, e.get("args").get("bytes").asLong());
            }
        }
        assertEquals(3_853_700_352L, peak);
    }

    @Test
    void aRecordedTraceExportsWithSlicesCountersAndNames() throws Exception {
        Path in = dir.resolve("in.astrace");
        SyntheticTrace.write(3, 20_000, new AstraceWriter(in));
        Path out = dir.resolve("out.json");
        CliRun r = TraceCommandsTest.cli("convert", in.toString(), out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode root = new ObjectMapper().readTree(out.toFile());
        Set<String> phases = new HashSet<>();
        for (JsonNode e : root.get("traceEvents")) {
            phases.add(e.get("ph").asText());
            assertTrue(e.get("pid").isInt());
            if (!e.get("ph").asText().equals("M")) {
                assertTrue(e.get("ts").isNumber(), e.toString());
            }
        }
        assertTrue(phases.containsAll(Set.of("M", "C")), phases.toString());
        assertTrue(Set.of("M", "C", "B", "E", "i").containsAll(phases), phases.toString());
    }

    @Test
    void aPickleThatReferencesAClassIsRefusedInOneLineWithExit2() throws Exception {
        // pickle.dumps({'set': {1}}, protocol=2): the set is built by GLOBAL __builtin__.set + REDUCE
        byte[] evil = HexFormat.of().parseHex("80027d710058030000007365747101635f5f6275696c74696e5f5f0a7365740a71025d71034b0161857104527105732e");
        Path in = dir.resolve("evil.pickle");
        Files.write(in, evil);
        Path out = dir.resolve("evil.astrace");
        CliRun r = TraceCommandsTest.cli("convert", in.toString(), out.toString());
        assertEquals(2, r.code());
        assertEquals("arenascope convert: " + in + " at byte 15: opcode GLOBAL (0x63) references a class; refused (only plain data pickles are read)\n", r.err());
        assertFalse(Files.exists(out), "no output is left behind");

        Path cut = dir.resolve("cut.pickle");
        Files.write(cut, Arrays.copyOf(Files.readAllBytes(torchFixture("cs336-a2-magma27.pickle")), 100_000));
        r = TraceCommandsTest.cli("convert", cut.toString(), dir.resolve("cut.json").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("arenascope convert: " + cut + " at byte "), r.err());
        assertEquals(1, r.err().lines().count());
    }
}
