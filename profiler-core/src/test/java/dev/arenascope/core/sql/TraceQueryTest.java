package dev.arenascope.core.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.Fixtures;

class TraceQueryTest {
    static final TraceQuery.Options SMALL = new TraceQuery.Options("512MB", 2, true, List.of());

    static EventStore torch(String name) throws Exception {
        return (EventStore) TraceFormats.load(Fixtures.torch(name)).store(); // a snapshot is read into memory
    }

    private static EventStore synthetic;

    /** An arena, a pool and a plan arena (50,000 events), made once: queries never change a store. */
    static synchronized EventStore synthetic() {
        if (synthetic == null) {
            synthetic = new EventStore("synthetic");
            SyntheticTrace.write(7, 50_000, synthetic);
        }
        return synthetic;
    }

    /** What each table should hold, counted from the store and the site analysis. */
    static void assertCountsMatch(TraceQuery q, EventStore s, int ranks) {
        long kinds[] = new long[EventKind.maxCode() + 1];
        for (long i = 0; i < s.eventCount(); i++) {
            Event e = s.event(i);
            kinds[e.kind().code()]++;
        }
        long allocations = 0;
        long sites = 0;
        for (MemoryInfo m : s.memories()) {
            SiteAnalysis sa = SiteAnalysis.of(s, m, false);
            allocations += sa.allocations();
            sites += sa.pathCount();
        }
        assertEquals(ranks, q.rowCount("ranks"));
        assertEquals(ranks * s.eventCount(), q.rowCount("events"));
        assertEquals(ranks * s.memories().size(), q.rowCount("memories"));
        assertEquals(ranks * allocations, q.rowCount("allocations"));
        assertEquals(ranks * sites, q.rowCount("sites"));
        assertEquals(ranks * (long) s.frameCount(), q.rowCount("frames"));
        assertEquals(ranks * (long) s.stackNodeCount(), q.rowCount("stacks"));
        assertEquals(ranks * kinds[EventKind.SCOPE_ENTER.code()], q.rowCount("scopes"));
        assertEquals(ranks * kinds[EventKind.SCOPE_PARAM.code()], q.rowCount("scope_params"));
        assertEquals(ranks * kinds[EventKind.MARKER.code()], q.rowCount("markers"));
        assertEquals(ranks * kinds[EventKind.POOL_REQUEST.code()], q.rowCount("pool_requests"));
        assertEquals(ranks * kinds[EventKind.TENSOR_LIVE.code()], q.rowCount("plan_tensors"));
        assertEquals(ranks * (long) s.threads().size(), q.rowCount("threads"));
        assertEquals(ranks * (long) s.strings().size(), q.rowCount("strings"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"cs336-a2-magma27.pickle", "cs336-a2-bcrafton.pickle"})
    void everyTableOfATorchSnapshotHoldsWhatTheStoreHolds(String fixture) throws Exception {
        EventStore s = torch(fixture);
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput(fixture, "", s)), SMALL)) {
            assertCountsMatch(q, s, 1);
            // the event table's gauges are the store's
            QueryResult r = q.query("SELECT max(used) FROM events WHERE memory = 0", null, 10);
            assertEquals(s.peakUsed(0), r.rows().getFirst().getFirst());
        }
    }

    @Test
    void everyTableOfAnArenaPoolAndPlanTraceHoldsWhatTheStoreHolds() {
        EventStore s = synthetic();
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("synthetic", "", s)), SMALL)) {
            assertCountsMatch(q, s, 1);
            assertTrue(q.rowCount("pool_requests") > 0 && q.rowCount("plan_tensors") > 0 && q.rowCount("scopes") > 0);
            // pool hits agree with the flags
            long hits = 0;
            for (long i = 0; i < s.eventCount(); i++) {
                Event e = s.event(i);
                if (e.kind() == EventKind.POOL_REQUEST && e.has(Event.FLAG_HIT)) {
                    hits++;
                }
            }
            assertEquals(hits, q.query("SELECT count(*) FROM pool_requests WHERE hit", null, 1).rows().getFirst().getFirst());
        }
    }

    /** The SQL of the guide's first question, as SiteAnalysis orders its rows. */
    static final String TOP_AT_PEAK = """
            SELECT coalesce(s.label, '(no site)') AS label, sum(p.bytes) AS bytes, count(*) AS n
            FROM peak_of('%s') p LEFT JOIN sites s ON s.rank = p.rank AND s.memory = p.memory AND s.site = p.site
            GROUP BY p.site, s.label ORDER BY bytes DESC, n DESC, label""";

    @ParameterizedTest
    @ValueSource(strings = {"cs336-a2-magma27.pickle", "cs336-a2-bcrafton.pickle"})
    void topSitesAtThePeakAreTheSiteAnalysisRows(String fixture) throws Exception {
        EventStore s = torch(fixture);
        MemoryInfo m = s.memories().getFirst();
        SiteBreakdown expected = SiteAnalysis.of(s, m, false).ask(new SiteQuestion.AtPeak());
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput(fixture, "", s)), SMALL)) {
            QueryResult r = q.query(TOP_AT_PEAK.formatted(m.name()), null, 100_000);
            assertEquals(expected.rows().size(), r.rows().size());
            for (int i = 0; i < r.rows().size(); i++) {
                SiteBreakdown.Row row = expected.rows().get(i);
                assertEquals(List.of(row.label(), row.bytes(), row.count()), List.of(r.rows().get(i).get(0),
                        ((Number) r.rows().get(i).get(1)).longValue(), ((Number) r.rows().get(i).get(2)).longValue()), "row " + i);
            }
        }
    }

    @Test
    void severalTracesAreSeveralRanks() throws Exception {
        EventStore a = torch("cs336-a2-magma27.pickle");
        EventStore b = torch("cs336-a2-magma27.pickle");
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("r0.pickle", "", a), new TraceInput("r1.pickle", "", b)), SMALL)) {
            assertCountsMatch(q, a, 2);
            QueryResult r = q.query("SELECT rank, name, events FROM ranks ORDER BY rank", null, 10);
            assertEquals(List.of(List.of(0, "r0.pickle", a.eventCount()), List.of(1, "r1.pickle", b.eventCount())), r.rows());
            QueryResult peaks = q.query("SELECT rank, sum(bytes) FROM peak_of('cuda:0') GROUP BY rank ORDER BY rank", null, 10);
            assertEquals(a.peakUsed(0), ((Number) peaks.rows().get(0).get(1)).longValue());
            assertEquals(b.peakUsed(0), ((Number) peaks.rows().get(1).get(1)).longValue());
        }
    }

    @Test
    void aBadQueryGivesTheEnginesMessageOnOneLine() {
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("synthetic", "", synthetic())), SMALL)) {
            QueryException e = assertThrows(QueryException.class, () -> q.query("SELEC 1", null, 1));
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getMessage().contains("syntax error"), e.getMessage());
            QueryException col = assertThrows(QueryException.class, () -> q.query("SELECT nope FROM events", null, 1));
            assertTrue(col.getMessage().contains("nope"), col.getMessage());
            assertFalse(col.timedOut());
        }
    }

    @Test
    void aQueryPastItsTimeoutIsCancelled() {
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("synthetic", "", synthetic())), SMALL)) {
            // hours of work: only the cancel ends it
            QueryException e = assertThrows(QueryException.class,
                    () -> q.query("SELECT count(*) FROM range(1000000000000) a WHERE a.range % 7 = 3", Duration.ofMillis(200), 1));
            assertTrue(e.timedOut(), e.getMessage());
            assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
            // and the engine answers the next query
            assertEquals(1, q.query("SELECT 1", null, 1).rows().size());
        }
    }

    @Test
    void queriesReadAndWriteNoFilesButUnderTheDirectoriesGiven(@TempDir Path dir) throws Exception {
        Path allowed = Files.createDirectories(dir.resolve("out"));
        Path elsewhere = dir.resolve("elsewhere.csv");
        Path secret = Files.writeString(dir.resolve("secret.csv"), "a\n1\n");
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("synthetic", "", synthetic())),
                SMALL.withAllowedDirectories(List.of(allowed)))) {
            assertThrows(QueryException.class, () -> q.query("COPY (SELECT 1) TO '" + elsewhere + "'", null, 1));
            assertFalse(Files.exists(elsewhere));
            assertThrows(QueryException.class, () -> q.query("SELECT * FROM read_csv('" + secret + "')", null, 1));
            assertThrows(QueryException.class, () -> q.query("ATTACH '" + dir.resolve("x.db") + "' AS x", null, 1));
            assertThrows(QueryException.class, () -> q.query("SET enable_external_access = true", null, 1));
            assertThrows(QueryException.class, () -> q.query("SET memory_limit = '100GB'", null, 1));
            Path ok = allowed.resolve("markers.csv");
            q.query("COPY (SELECT kind, count(*) FROM events GROUP BY kind) TO '" + ok + "'", null, 1);
            assertTrue(Files.size(ok) > 0);
            assertThrows(IllegalStateException.class, () -> q.save(dir.resolve("late.duckdb")));
        }
    }

    @Test
    void theEngineRunsWithTheMemoryLimitAndThreadsAsked() {
        assertTrue(VectorWrites.bulk(), "columns are copied into the vectors in bulk, not value by value");
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("synthetic", "", synthetic())), SMALL)) {
            var settings = ((DuckDbTraceQuery) q).settings();
            assertEquals("2", settings.get("threads"));
            assertTrue(settings.get("memory_limit").startsWith("488") || settings.get("memory_limit").startsWith("512"),
                    settings.toString());
        }
    }

    @Test
    void parquetReadBackGivesTheLiveAnswers(@TempDir Path dir) throws Exception {
        EventStore a = torch("cs336-a2-magma27.pickle");
        EventStore b = synthetic();
        List<TraceInput> in = List.of(new TraceInput("a.pickle", "", a), new TraceInput("b", "", b));
        Path loaded = dir.resolve("parquet");
        Path streamed = dir.resolve("streamed");
        String[] questions = {
                "SELECT rank, kind, count(*), sum(b) FROM events GROUP BY ALL ORDER BY ALL",
                "SELECT rank, count(*), count(DISTINCT event), min(event), max(event), sum(time_ns) FROM events GROUP BY ALL ORDER BY ALL",
                "SELECT rank, memory, count(*), sum(bytes), count(free_ns) FROM allocations GROUP BY ALL ORDER BY ALL",
                "SELECT rank, name, peak_bytes, peak_event FROM memories ORDER BY ALL",
                "SELECT rank, bin, count(*), sum(hit::INT) FROM pool_requests GROUP BY ALL ORDER BY ALL",
                // every column of events, NULLs counted apart (count(x) skips them)
                "SELECT rank, memory, count(*), sum(flags), sum(thread), sum(a), sum(c), sum(used), sum(aux), sum(ref), sum(ref2), "
                        + "count(site), sum(site), count(category_id), sum(category_id) FROM events GROUP BY ALL ORDER BY ALL",
                // every column of allocations, memory by memory (the streamed export makes one memory's analysis at a time)
                "SELECT rank, memory, count(*), sum(allocation), sum(alloc_event), sum(free_event), sum(alloc_ns), sum(lifetime_ns), "
                        + "sum(requested_bytes), sum(address), count(descriptor), count(DISTINCT descriptor), count(site), sum(site), "
                        + "sum(stack), count(DISTINCT category), sum(scope), sum(freed::INT) FROM allocations GROUP BY ALL ORDER BY ALL",
                "SELECT rank, memory, site, label, function, file, line, depth, stack, source FROM sites ORDER BY ALL",
                // who held each memory at its peak, by site: the rows of allocations, memories and sites joined
                "SELECT a.rank, m.name, s.stack, sum(a.bytes), count(*) FROM allocations a"
                        + " JOIN (SELECT * FROM memories ) m ON a.rank = m.rank AND a.memory = m.memory"
                        + " LEFT JOIN (SELECT * FROM sites ) s ON s.rank = a.rank AND s.memory = a.memory AND s.site = a.site"
                        + " WHERE a.alloc_event <= m.peak_event AND (a.free_event IS NULL OR a.free_event > m.peak_event)"
                        + " GROUP BY ALL ORDER BY ALL",
        };
        List<QueryResult> live = new ArrayList<>();
        try (TraceQuery q = TraceQuery.open(in, SMALL.withEventsTable(false))) {
            q.exportParquet(loaded); // from the loaded tables
        }
        TraceQuery.exportParquet(in, SMALL, streamed); // nothing loaded: as convert --to parquet writes it
        assertThrows(IllegalArgumentException.class, () -> TraceQuery.exportParquet(in, SMALL, streamed), "not overwritten");
        try (TraceQuery q = TraceQuery.open(in, SMALL)) {
            for (String sql : questions) {
                live.add(q.query(sql, null, 100_000));
            }
        }
        for (Path out : List.of(loaded, streamed)) {
            assertTrue(Files.exists(out.resolve("events").resolve("rank=1").resolve("data_0.parquet")), "partitioned by rank");
            assertParquetAnswers(out, questions, live);
        }
    }

    @Test
    void anEmptyTraceExportsEveryTableEmpty(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("empty");
        TraceQuery.exportParquet(List.of(new TraceInput("empty", "", new EventStore("empty"))), SMALL, out);
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("x", "", new EventStore("x"))),
                SMALL.withAllowedDirectories(List.of(out)))) {
            for (SqlSchema.Table t : SqlSchema.TABLES) {
                QueryResult r = q.query("SELECT count(*) FROM read_parquet('" + out.resolve(t.name()) + "/*/*.parquet')", null, 1);
                assertEquals(t == SqlSchema.RANKS ? 1L : 0L, r.rows().getFirst().getFirst(), t.name());
                QueryResult cols = q.query("SELECT name FROM parquet_schema('" + out.resolve(t.name()) + "/rank=0/data_0.parquet')"
                        + " WHERE num_children IS NULL", null, 100);
                assertEquals(t.columns().stream().map(SqlSchema.Column::name).filter(c -> !c.equals("rank")).toList(),
                        cols.rows().stream().map(row -> row.getFirst()).toList(), t.name() + ": the schema's columns, in order");
            }
        }
    }

    private static void assertParquetAnswers(Path out, String[] questions, List<QueryResult> live) {
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("empty", "", new EventStore("empty"))),
                SMALL.withAllowedDirectories(List.of(out)))) {
            for (int i = 0; i < questions.length; i++) {
                String sql = questions[i];
                for (String t : List.of("events", "allocations", "memories", "pool_requests", "sites")) {
                    sql = sql.replace("FROM " + t + " ", "FROM read_parquet('" + out.resolve(t) + "/*/*.parquet', hive_partitioning = true) ");
                }
                QueryResult back = q.query(sql, null, 100_000);
                assertEquals(live.get(i).rows().toString(), back.rows().toString(), out + ": " + sql);
            }
            QueryResult kv = q.query("SELECT DISTINCT decode(value) FROM parquet_kv_metadata('" + out.resolve("allocations")
                    + "/*/*.parquet') WHERE decode(key) = '" + SqlSchema.VERSION_KEY + "'", null, 10);
            assertEquals(List.of(List.of(Integer.toString(SqlSchema.VERSION))), kv.rows());
        }
    }
}
