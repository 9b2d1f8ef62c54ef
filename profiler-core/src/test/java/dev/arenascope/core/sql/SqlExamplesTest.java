package dev.arenascope.core.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.store.EventStore;

/** Every worked question of the guide, run on a job of three ranks, the ones an analysis also answers checked against it. */
class SqlExamplesTest {
    static EventStore[] ranks;
    static TraceQuery job;
    static Map<String, SqlExamples.Example> examples;

    @BeforeAll
    static void load() throws Exception {
        ranks = new EventStore[] {TraceQueryTest.torch("cs336-a2-magma27.pickle"), TraceQueryTest.torch("cs336-a2-bcrafton.pickle"),
                TraceQueryTest.synthetic()};
        job = TraceQuery.open(List.of(new TraceInput("magma27.pickle", "", ranks[0]), new TraceInput("bcrafton.pickle", "", ranks[1]),
                new TraceInput("synthetic.astrace", "", ranks[2])), TraceQueryTest.SMALL);
        examples = SqlExamples.all().stream().collect(Collectors.toMap(SqlExamples.Example::name, Function.identity()));
    }

    @AfterAll
    static void close() {
        job.close();
    }

    static List<List<Object>> rows(String name) {
        SqlExamples.Example e = examples.get(name);
        assertTrue(e != null, "no example " + name);
        return job.query(e.sql(), null, 1_000_000).rows();
    }

    static long n(Object v) {
        return ((Number) v).longValue();
    }

    @Test
    void thereAreTenOrMoreAndEachAnswers() {
        List<SqlExamples.Example> all = SqlExamples.all();
        assertTrue(all.size() >= 10, "examples: " + all.size());
        for (SqlExamples.Example e : all) {
            assertFalse(e.question().isEmpty(), e.name() + " says what it answers");
            QueryResult r = job.query(e.sql(), null, 10);
            assertFalse(r.rows().isEmpty(), e.name() + " answers with rows");
        }
    }

    @Test
    void theGuideShowsEveryExampleWordForWord() throws Exception {
        String guide = Files.readString(guide());
        for (SqlExamples.Example e : SqlExamples.all()) {
            assertTrue(guide.contains("```sql\n" + e.sql() + ";\n```"), "docs/guide/sql.md lacks " + e.name() + " as written in examples.sql");
        }
    }

    @Test
    void theGuideDocumentsEveryTableAndColumn() throws Exception {
        String guide = Files.readString(guide());
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            int at = guide.indexOf("### `" + t.name() + "`");
            assertTrue(at >= 0, "docs/guide/sql.md has no section ### `" + t.name() + "`");
            int end = guide.indexOf("\n### ", at + 1);
            String section = guide.substring(at, end < 0 ? guide.length() : end);
            for (SqlSchema.Column c : t.columns()) {
                String unit = c.unit().isEmpty() ? "" : c.unit();
                assertTrue(section.contains("| `" + c.name() + "` | " + c.type().sql() + " | " + unit + " |"),
                        t.name() + "." + c.name() + " is not documented as | `" + c.name() + "` | " + c.type().sql() + " | " + unit + " |");
            }
        }
    }

    static Path guide() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path g = p.resolve("docs/guide/sql.md");
            if (Files.exists(g)) {
                return g;
            }
        }
        throw new AssertionError("docs/guide/sql.md not found above " + Path.of("").toAbsolutePath());
    }

    static void assertRowsAre(SiteBreakdown expected, List<List<Object>> got, int label, int bytes, int count) {
        assertEquals(expected.rows().size(), got.size());
        for (int i = 0; i < got.size(); i++) {
            SiteBreakdown.Row r = expected.rows().get(i);
            assertEquals(List.of(r.label(), r.bytes(), r.count()),
                    List.of(got.get(i).get(label), n(got.get(i).get(bytes)), n(got.get(i).get(count))), "row " + i);
        }
    }

    @Test
    void topSitesAtThePeakAreSitesAtPeak() {
        assertRowsAre(SiteAnalysis.of(ranks[0], "cuda:0", false).ask(new SiteQuestion.AtPeak()), rows("top-sites-at-peak"), 0, 1, 2);
    }

    @Test
    void leaksAreSitesLeaks() {
        List<List<Object>> got = rows("leaks").stream().filter(r -> n(r.get(0)) == 1).toList();
        assertRowsAre(SiteAnalysis.of(ranks[1], "cuda:0", false).ask(new SiteQuestion.Leaks()), got, 2, 3, 4);
    }

    @Test
    void temporariesAreSitesTemporaries() {
        SiteAnalysis sa = SiteAnalysis.of(ranks[0], "cuda:0", false);
        List<List<Object>> got = rows("temporaries").stream().filter(r -> n(r.get(0)) == 0).toList();
        SiteBreakdown expected = sa.ask(new SiteQuestion.Temporaries(0, sa.endNs(), SiteQuestion.DEFAULT_TEMPORARY_NS));
        assertEquals(expected.rows().size(), got.size());
        for (int i = 0; i < got.size(); i++) {
            assertEquals(List.of(expected.rows().get(i).label(), expected.rows().get(i).count(), expected.rows().get(i).bytes()),
                    List.of(got.get(i).get(2), n(got.get(i).get(3)), n(got.get(i).get(4))));
        }
    }

    @Test
    void thePeakAllocationTakesEachMemoryToItsPeak() {
        for (List<Object> r : rows("peak-allocation")) {
            EventStore s = ranks[(int) n(r.get(0))];
            MemoryInfo m = s.memories().stream().filter(x -> x.name().equals(r.get(1))).findFirst().orElseThrow();
            SiteAnalysis sa = SiteAnalysis.of(s, m, false);
            Event e = s.event(sa.peakEvent());
            assertEquals(e.b(), n(r.get(3)), "the allocation's bytes are the peak event's");
            assertEquals(sa.peakBytes(), n(r.get(2)));
        }
    }

    @Test
    void poolHitRatesCountTheHitFlags() {
        long requests = 0;
        long hits = 0;
        for (long i = 0; i < ranks[2].eventCount(); i++) {
            Event e = ranks[2].event(i);
            if (e.kind() == EventKind.POOL_REQUEST) {
                requests++;
                hits += e.has(Event.FLAG_HIT) ? 1 : 0;
            }
        }
        List<List<Object>> got = rows("pool-hit-rate-by-size");
        assertEquals(requests, got.stream().mapToLong(r -> n(r.get(4))).sum());
        assertEquals(hits, got.stream().mapToLong(r -> n(r.get(5))).sum());
    }

    @Test
    void liveAtAnInstantIsTheAllocationTable() {
        for (List<Object> r : rows("live-at-instant")) {
            EventStore s = ranks[(int) n(r.get(0))];
            long[] live = SiteAnalysis.of(s, (String) r.get(1), false).allocationTable().liveAt(100_000_000L);
            assertEquals(List.of(live[0], live[1]), List.of(n(r.get(2)), n(r.get(3))));
        }
    }

    @Test
    void rankImbalanceComparesEveryRanksPeak() {
        List<List<Object>> got = rows("rank-imbalance").stream().filter(r -> r.get(0).equals("cuda:0")).toList();
        assertEquals(2, got.size());
        long spread = Math.abs(ranks[0].peakUsed(0) - ranks[1].peakUsed(0));
        assertEquals(spread, n(got.get(0).get(4)));
    }
}
