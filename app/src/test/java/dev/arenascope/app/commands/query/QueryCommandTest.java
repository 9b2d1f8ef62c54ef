package dev.arenascope.app.commands.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.sql.SqlExamples;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.testsupport.Fixtures;

class QueryCommandTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TORCH = Fixtures.torch("cs336-a2-magma27.pickle").toString();

    @TempDir
    Path dir;

    Path record(String workload, String... extra) {
        Path out = dir.resolve(workload + ".astrace");
        List<String> args = new ArrayList<>(List.of("record", workload, "--device", "virtual", "--out", out.toString()));
        args.addAll(List.of(extra));
        CliRun r = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        return out;
    }

    /** The guide's first question, for the memory {@code sites} picks, as JSON. */
    static JsonNode topAtPeak(String file, String memory) throws Exception {
        String sql = SqlExamples.all().getFirst().sql().replace("'cuda:0'", "'" + memory.replace("'", "''") + "'");
        CliRun r = CliRun.of("query", file, "--sql", sql, "--format", "json");
        assertEquals(0, r.code(), r.err());
        return JSON.readTree(r.out());
    }

    static void assertSameAsSitesAtPeak(String file) throws Exception {
        CliRun s = CliRun.of("sites", file, "--at", "peak", "--format", "json");
        assertEquals(0, s.code(), s.err());
        JsonNode sites = JSON.readTree(s.out());
        JsonNode rows = topAtPeak(file, sites.get("memory").asText());
        assertEquals(sites.get("sites").size(), rows.size(), file);
        long total = 0;
        for (int i = 0; i < rows.size(); i++) {
            JsonNode want = sites.get("sites").get(i);
            JsonNode got = rows.get(i);
            assertEquals(want.get("label").asText(), got.get("label").asText(), "row " + i);
            assertEquals(want.get("bytes").asLong(), got.get("bytes").asLong(), "row " + i);
            assertEquals(want.get("count").asLong(), got.get("allocations").asLong(), "row " + i);
            total += got.get("bytes").asLong();
        }
        assertEquals(sites.get("total_bytes").asLong(), total);
    }

    @Test
    void topSitesAtThePeakOfASnapshotAreSitesAtPeakByteForByte() throws Exception {
        assertSameAsSitesAtPeak(TORCH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"render", "inference", "particles"})
    void recordedWorkloadsTablesAreTheirStores(String workload) throws Exception {
        Path t = workload.equals("render") ? record(workload, "--frames", "3", "--stacks") : record(workload);
        assertSameAsSitesAtPeak(t.toString());
        TraceStore s = TraceFormats.load(t).store();
        long[] kinds = new long[EventKind.maxCode() + 1];
        for (long i = 0; i < s.eventCount(); i++) {
            kinds[s.event(i).kind().code()]++;
        }
        CliRun r = CliRun.of("query", t.toString(), "--format", "csv", "--sql", """
                SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM memories), (SELECT count(*) FROM scopes),
                       (SELECT count(*) FROM pool_requests), (SELECT count(*) FROM plan_tensors), (SELECT count(*) FROM markers),
                       (SELECT count(*) FROM frames), (SELECT count(*) FROM stacks), (SELECT count(*) FROM strings)""");
        assertEquals(0, r.code(), r.err());
        String expected = String.join(",", List.of(s.eventCount(), (long) s.memories().size(), kinds[EventKind.SCOPE_ENTER.code()],
                kinds[EventKind.POOL_REQUEST.code()], kinds[EventKind.TENSOR_LIVE.code()], kinds[EventKind.MARKER.code()],
                (long) s.frameCount(), (long) s.stackNodeCount(), (long) s.strings().size()).stream().map(String::valueOf).toList());
        assertEquals(expected, r.out().lines().toList().get(1));
    }

    @Test
    void formatsAreATableCsvAndJson() throws Exception {
        String sql = "SELECT name, kind, peak_bytes FROM memories";
        CliRun table = CliRun.of("query", TORCH, "--sql", sql);
        assertEquals(0, table.code(), table.err());
        List<String> lines = table.out().lines().toList();
        assertTrue(lines.get(0).startsWith("name") && lines.get(0).contains("peak_bytes"), table.out());
        assertTrue(lines.get(2).contains("cuda:0") && lines.get(2).contains("SEGMENTED"), table.out());
        assertEquals("(1 row)", lines.getLast());
        CliRun csv = CliRun.of("query", TORCH, "--sql", sql, "--format", "csv");
        assertEquals("name,kind,peak_bytes", csv.out().lines().findFirst().orElseThrow());
        JsonNode j = JSON.readTree(CliRun.of("query", TORCH, "--sql", sql, "--format", "json").out());
        assertEquals("cuda:0", j.get(0).get("name").asText());
        assertTrue(j.get(0).get("peak_bytes").isNumber());
        CliRun limited = CliRun.of("query", TORCH, "--sql", "SELECT * FROM events", "--max-rows", "3");
        assertTrue(limited.out().contains("(3 rows; more not shown, see --max-rows)"), limited.out());
    }

    @Test
    void aQueryFromAFileMayHaveSeveralStatements() throws Exception {
        Path q = Files.writeString(dir.resolve("q.sql"), """
                CREATE TEMP VIEW big AS SELECT * FROM allocations WHERE bytes >= 1048576;
                SELECT count(*) AS n FROM big;
                """);
        CliRun r = CliRun.of("query", TORCH, "--file", q.toString(), "--format", "csv");
        assertEquals(0, r.code(), r.err());
        assertTrue(Long.parseLong(r.out().lines().toList().get(1)) > 0, r.out());
    }

    @Test
    void badQueriesAndTimeoutsAreOneLineAndExit2() {
        CliRun.of("query", TORCH, "--sql", "SELEC 1").isOneLineUsageError("query", "syntax error");
        CliRun.of("query", TORCH, "--sql", "SELECT nope FROM allocations").isOneLineUsageError("query", "nope");
        CliRun.of("query", TORCH, "--sql", "SELECT count(*) FROM range(1000000000000) r WHERE r.range % 7 = 1", "--timeout", "300ms")
                .isOneLineUsageError("query", "cancelled");
        CliRun.of("query", TORCH, "--sql", "COPY allocations TO '" + dir.resolve("x.csv") + "'").isOneLineUsageError("query");
        CliRun.of("query", TORCH).isOneLineUsageError("query", "--sql");
        CliRun.of("query", "--sql", "SELECT 1").isOneLineUsageError("query", "FILE");
        CliRun.of("query", TORCH, "--sql", "SELECT 1", "--format", "xml").isOneLineUsageError("query", "--format");
        CliRun.of("query", TORCH, "--sql", "SELECT 1", "--timeout", "soon").isOneLineUsageError("query", "--timeout");
        CliRun.of("query", dir.resolve("missing.pickle").toString(), "--sql", "SELECT 1").isOneLineUsageError("query", "missing.pickle");
    }

    @Test
    void copyWritesOnlyUnderTheAllowedDirectory() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path csv = out.resolve("peak.csv");
        CliRun r = CliRun.of("query", TORCH, "--allow-dir", out.toString(), "--sql",
                "COPY (SELECT * FROM peak_of('cuda:0')) TO '" + csv + "' (HEADER)");
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.readString(csv).startsWith("rank,memory,allocation"));
    }

    @Test
    void saveKeepsTheTablesInADuckDbFile() throws Exception {
        Path db = dir.resolve("run.duckdb");
        CliRun r = CliRun.of("query", TORCH, "--save", db.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("saved " + db), r.out());
        TraceStore s = TraceFormats.load(Path.of(TORCH)).store();
        Properties p = new Properties();
        p.setProperty("duckdb.read_only", "true");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db, p); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM events), (SELECT sum(bytes) FROM peak_of('cuda:0'))")) {
            rs.next();
            assertEquals(s.eventCount(), rs.getLong(1));
            assertEquals(s.peakUsed(0), rs.getLong(2));
        }
        CliRun.of("query", TORCH, "--save", db.toString()).isOneLineUsageError("query", "exists");
    }

    @Test
    void parquetOfAJobReadsBackToTheLiveAnswer() throws Exception {
        Path render = record("render", "--frames", "2");
        Path out = dir.resolve("parquet");
        CliRun c = CliRun.of("convert", TORCH, render.toString(), "--to", "parquet", out.toString());
        assertEquals(0, c.code(), c.err());
        assertTrue(c.out().contains("2 ranks"), c.out());
        assertTrue(Files.isDirectory(out.resolve("allocations").resolve("rank=1")));
        String live = "SELECT rank, memory, count(*) AS n, sum(bytes) AS b, count(free_ns) AS f FROM allocations GROUP BY ALL ORDER BY ALL";
        CliRun a = CliRun.of("query", TORCH, render.toString(), "--sql", live, "--format", "csv");
        String fromParquet = live.replace("FROM allocations", "FROM read_parquet('" + out.resolve("allocations") + "/*/*.parquet')");
        CliRun b = CliRun.of("query", TORCH, "--allow-dir", out.toString(), "--sql", fromParquet, "--format", "csv");
        assertEquals(0, b.code(), b.err());
        assertEquals(a.out(), b.out());
        CliRun.of("convert", TORCH, "--to", "parquet", out.toString()).isOneLineUsageError("convert", "exists");
        CliRun.of("convert", TORCH, "--to", "orc", out.toString()).isOneLineUsageError("convert", "parquet");
    }

    @Test
    void badInputToParquetLeavesNoFolderBehind() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.astrace"), "not a trace at all, just text");
        Path out = dir.resolve("never");
        CliRun.of("convert", bad.toString(), "--to", "parquet", out.toString()).isOneLineUsageError("convert", "bad.astrace");
        assertTrue(!Files.exists(out), "no folder made for a refused input");
        // a trace whose header is sound but whose chunks are all damaged: refused once the read began
        Path render = record("render", "--frames", "1");
        byte[] bytes = Files.readAllBytes(render);
        long[] chunks;
        try (AstraceReader r = AstraceReader.open(render)) {
            chunks = r.chunkOffsets();
        }
        assertTrue(chunks.length > 0);
        for (long at : chunks) {
            for (int i = 0; i < 32; i++) {
                bytes[(int) at + 32 + i] ^= 0x5a; // the chunk's checksum no longer holds
            }
        }
        Path broken = Files.write(dir.resolve("broken.astrace"), bytes);
        CliRun c = CliRun.of("convert", broken.toString(), "--to", "parquet", out.toString());
        assertEquals(2, c.code(), c.out());
        assertTrue(c.err().contains("broken.astrace"), c.err());
        assertTrue(!Files.exists(out), "no folder left by a failed export: " + c.err());
    }
}
