package dev.arenascope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output named on the command line is never an earlier run's file unless {@code --force} says so:
 * without it every command that writes refuses with one line naming the file and {@code --force}
 * (exit 2) and leaves the file as it was; with it the file is replaced whole, and no temporary file is
 * left beside it.
 */
class ExplicitOutputsTest {
    @TempDir
    Path dir;

    private static final String EARLIER = "an earlier run's file\n";

    private Path trace() throws Exception {
        return Files.writeString(dir.resolve("in.jsonl"),
                "{\"type\":\"memory\",\"id\":0,\"name\":\"m\",\"kind\":\"POOL\",\"capacity\":0}\n"
                        + "{\"t\":1,\"kind\":\"ALLOC\",\"mem\":0,\"a\":0,\"b\":64,\"used\":64}\n"
                        + "{\"t\":2,\"kind\":\"FREE\",\"mem\":0,\"a\":0,\"b\":64,\"used\":0}\n");
    }

    /**
     * Runs {@code args(out)} against an earlier file at {@code out}: refused without --force, the
     * file untouched; then with --force: exit 0, the file replaced, nothing else left in the folder.
     */
    private void refusedThenForced(String command, Path out, Function<Path, List<String>> args) throws Exception {
        Files.writeString(out, EARLIER);
        long before;
        try (var files = Files.list(dir)) {
            before = files.count();
        }
        CliRun refused = CliRun.of(args.apply(out).toArray(String[]::new));
        refused.isOneLineUsageError(command, out.toString(), "exists already", "--force");
        assertEquals(EARLIER, Files.readString(out), command + " left the earlier file as it was");
        List<String> forced = new java.util.ArrayList<>(args.apply(out));
        forced.add("--force");
        CliRun r = CliRun.of(forced.toArray(String[]::new));
        assertEquals(0, r.code(), command + ": " + r.err());
        assertFalse(java.util.Arrays.equals(EARLIER.getBytes(java.nio.charset.StandardCharsets.UTF_8), Files.readAllBytes(out)),
                command + " --force replaced the file");
        try (var files = Files.list(dir)) {
            assertEquals(before, files.count(), command + ": no temporary file left beside " + out);
        }
    }

    @Test
    void convertRefusesAnExistingOutUnlessForced() throws Exception {
        Path in = trace();
        refusedThenForced("convert", dir.resolve("out.csv"), out -> List.of("convert", in.toString(), out.toString()));
        assertTrue(Files.readString(dir.resolve("out.csv")).lines().count() == 3, "header and two events");
    }

    @Test
    void reportRefusesAnExistingOutUnlessForced() throws Exception {
        Path in = trace();
        refusedThenForced("report", dir.resolve("r.md"), out -> List.of("report", in.toString(), "--out", out.toString()));
        assertTrue(Files.readString(dir.resolve("r.md")).startsWith("#"), "a Markdown report");
    }

    @Test
    void aJobReportRefusesAnExistingOutAndNeverWritesOverARank() throws Exception {
        Path a = trace();
        Path b = Files.copy(a, dir.resolve("in2.jsonl"));
        refusedThenForced("report", dir.resolve("job.md"), out -> List.of("report", a.toString(), b.toString(), "--out", out.toString()));
        byte[] rank = Files.readAllBytes(b);
        CliRun.of("report", a.toString(), b.toString(), "--out", b.toString(), "--force")
                .isOneLineUsageError("report", "is one of the job's traces");
        assertTrue(java.util.Arrays.equals(rank, Files.readAllBytes(b)));
    }

    @Test
    void planRefusesAnExistingOutputUnlessForcedAndNeverWritesOverItsInput() throws Exception {
        Path csv = Files.writeString(dir.resolve("p.csv"), "id,lower,upper,size\na,0,2,64\nb,1,3,64\n");
        refusedThenForced("plan", dir.resolve("packed.csv"), out -> List.of("plan", "--input", csv.toString(), "--time-limit", "1",
                "--output", out.toString()));
        assertTrue(Files.readString(dir.resolve("packed.csv")).contains("offset"), "the CSV with offsets");
        CliRun.of("plan", "--input", csv.toString(), "--output", csv.toString(), "--force")
                .isOneLineUsageError("plan", "is the input being planned");
    }

    @Test
    void queryRefusesAnExistingSaveUnlessForced() throws Exception {
        Path in = trace();
        refusedThenForced("query", dir.resolve("t.duckdb"), out -> List.of("query", in.toString(), "--save", out.toString()));
        assertTrue(Files.size(dir.resolve("t.duckdb")) > EARLIER.length(), "a database");
        CliRun.of("query", in.toString(), "--save", in.toString(), "--force").isOneLineUsageError("query", "is a trace being loaded");
    }

    @Test
    void recordRefusesAnExistingOutUnlessForced() throws Exception {
        refusedThenForced("record", dir.resolve("r.jsonl"), out -> List.of("record", "particles", "--device", "virtual",
                "--steps", "3", "--out", out.toString()));
        assertTrue(Files.readString(dir.resolve("r.jsonl")).contains("\"type\":\"session\""), "the new recording");
    }

    @Test
    void parquetTablesThatExistAreRefusedUnlessForced() throws Exception {
        Path in = trace();
        Path tables = dir.resolve("tables");
        CliRun first = CliRun.of("convert", in.toString(), "--to", "parquet", tables.toString());
        assertEquals(0, first.code(), first.err());
        CliRun.of("convert", in.toString(), "--to", "parquet", tables.toString()).isOneLineUsageError("convert", "exists already", "--force");
        CliRun forced = CliRun.of("convert", in.toString(), "--to", "parquet", tables.toString(), "--force");
        assertEquals(0, forced.code(), forced.err());
        try (var names = Files.list(tables)) {
            assertFalse(names.anyMatch(p -> p.getFileName().toString().startsWith(".")), "no staging folder left");
        }
    }
}
