package dev.arenascope.app.commands.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;

/** {@code calibrate} on sizes near 2^63: no "exact, 0 B" for a model that does not fit in 64 bits. */
class CalibrateOverflowTest {
    @TempDir
    Path dir;

    /** One scope {@code s} with param {@code n}, executed once per {@code n = 1, 2, ...}, each requesting the sizes given. */
    private Path trace(String name, long[][] sizesPerExecution) throws Exception {
        StringBuilder sb = new StringBuilder("{\"type\":\"memory\",\"id\":0,\"name\":\"a\",\"kind\":\"ARENA\",\"capacity\":0}\n"
                + "{\"type\":\"string\",\"id\":0,\"value\":\"s\"}\n{\"type\":\"string\",\"id\":1,\"value\":\"n\"}\n");
        long t = 1;
        for (int e = 0; e < sizesPerExecution.length; e++) {
            int n = e + 1;
            sb.append("{\"t\":").append(t).append(",\"kind\":\"SCOPE_ENTER\",\"mem\":0,\"c\":-1,\"ref\":0,\"ref2\":").append(n).append("}\n");
            sb.append("{\"t\":").append(t++).append(",\"kind\":\"SCOPE_PARAM\",\"mem\":0,\"a\":").append(n).append(",\"ref\":1,\"ref2\":").append(n).append("}\n");
            for (long size : sizesPerExecution[e]) {
                sb.append("{\"t\":").append(t++).append(",\"kind\":\"ALLOC\",\"mem\":0,\"b\":").append(size).append(",\"c\":").append(size)
                        .append(",\"ref2\":").append(n).append("}\n");
            }
            sb.append("{\"t\":").append(t++).append(",\"kind\":\"SCOPE_EXIT\",\"mem\":0,\"ref\":0,\"ref2\":").append(n).append("}\n");
        }
        return Files.writeString(dir.resolve(name), sb.toString());
    }

    @Test
    void aConstantThatOverflowsIsSaidNotFittedExactly() throws Exception {
        Path f = trace("big.jsonl", new long[][] {{(1L << 62) + 1}, {0}});
        CliRun r = CliRun.of("calibrate", f.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("arenascope calibrate: ") && r.err().contains("scope 's': no model: the constant"), r.err());
        String row = r.out().lines().filter(l -> l.startsWith("s ")).findFirst().orElseThrow();
        assertTrue(row.matches("s +2 +overflow .*"), row);
        CliRun json = CliRun.of("calibrate", f.toString(), "--json");
        assertTrue(json.out().contains("\"exact\" : false") && json.out().contains("\"overflow\""), json.out());
    }

    @Test
    void requestsThatSumPast64BitsAreSaidNotWrappedNegative() throws Exception {
        Path f = trace("sum.jsonl", new long[][] {{1L << 62, 1L << 62}, {1L << 62, 1L << 62}});
        CliRun r = CliRun.of("calibrate", f.toString());
        assertEquals(2, r.code(), r.err());
        assertFalse(r.out().contains("-9223372036854775808"), r.out());
        assertTrue(r.err().contains("2^63 - 1 bytes or more"), r.err());
    }

    @Test
    void anHonestTraceStillFitsExactly() throws Exception {
        Path f = trace("ok.jsonl", new long[][] {{4096 + 64}, {4096 + 128}, {4096 + 192}});
        CliRun r = CliRun.of("calibrate", f.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("exact") && r.out().contains("4096 + 64·n"), r.out());
    }
}
