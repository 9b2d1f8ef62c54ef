package dev.arenascope.core.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.GeneratedTrace;
import dev.arenascope.core.trace.store.EventStore;

/**
 * {@code convert --to parquet}'s streamed export against the live query: every table of the Parquet,
 * read back by DuckDB, holds the rows the live {@code query} over the store holds (compared whole: the
 * row count and an order-free digest of every column of every row), for an arena trace, a pool trace, a
 * plan trace, a mixed trace, a PyTorch snapshot and a job of two ranks.
 */
class TraceParquetTest {
    @TempDir
    static Path dir;
    /** The generated trace: arena 0, pool 1, plan arena 2, two segmented memories with sites, markers. */
    static Path mixed;

    @BeforeAll
    static void generate() throws IOException {
        mixed = GeneratedTrace.write(dir.resolve("mixed.astrace"), 120_000, 11, null);
    }

    /** {@code mixed}'s events of one memory (and those of none: markers), as a trace of its own. */
    static Path oneMemory(int memory, String name) throws IOException {
        Path out = dir.resolve(name + ".astrace");
        if (!Files.exists(out)) {
            try (AstraceWriter w = new AstraceWriter(out)) {
                AstraceReader.read(mixed, new OneMemory(memory, w));
            }
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"arena", "pool", "plan", "mixed"})
    void theStreamedParquetOfAnAstraceHoldsWhatTheLiveQueryHolds(String shape) throws Exception {
        Path file = switch (shape) {
            case "arena" -> oneMemory(0, "arena");
            case "pool" -> oneMemory(1, "pool");
            case "plan" -> oneMemory(2, "plan");
            default -> mixed;
        };
        EventStore store = (EventStore) AstraceReader.loadInMemory(file, null).store();
        assertTrue(store.eventCount() > 1_000, shape + ": " + store.eventCount() + " events");
        Path out = dir.resolve("out-" + shape);
        List<?> reports = TraceQuery.exportParquet(List.of(TraceSource.astrace(file.getFileName().toString(), file)), out);
        assertEquals(1, reports.size());
        assertSameTables(List.of(new TraceInput(file.getFileName().toString(), file.toString(), store)), out);
    }

    @Test
    void theParquetOfAPyTorchSnapshotHoldsWhatTheLiveQueryHolds() throws Exception {
        EventStore store = TraceQueryTest.torch("cs336-a2-magma27.pickle");
        Path out = dir.resolve("out-torch");
        TraceQuery.exportParquet(List.of(new TraceInput("a.pickle", "", store)), TraceQueryTest.SMALL, out);
        assertSameTables(List.of(new TraceInput("a.pickle", "", store)), out);
    }

    @Test
    void aJobOfTwoRanksIsPartitionedByRank() throws Exception {
        Path arena = oneMemory(0, "arena");
        Path pool = oneMemory(1, "pool");
        EventStore a = (EventStore) AstraceReader.loadInMemory(arena, null).store();
        EventStore p = (EventStore) AstraceReader.loadInMemory(pool, null).store();
        Path out = dir.resolve("out-job");
        TraceQuery.exportParquet(List.of(TraceSource.astrace("arena.astrace", arena), TraceSource.astrace("pool.astrace", pool)), out);
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            for (int r = 0; r < 2; r++) {
                assertTrue(Files.exists(out.resolve(t.name()).resolve("rank=" + r).resolve("data_0.parquet")), t.name() + " rank " + r);
            }
        }
        assertSameTables(List.of(new TraceInput("arena.astrace", arena.toString(), a), new TraceInput("pool.astrace", pool.toString(), p)),
                out);
    }

    @Test
    void aTableFolderAlreadyThereIsNotOverwritten() throws Exception {
        Path out = dir.resolve("taken");
        Files.createDirectories(out.resolve("events"));
        assertThrows(IllegalArgumentException.class, () -> TraceQuery.exportParquet(List.of(TraceSource.astrace("m", mixed)), out));
        assertFalse(Files.exists(out.resolve("allocations")), "nothing written");
    }

    @Test
    void aFileThatIsNoTraceFailsInOneLine() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.astrace"), "not a trace at all, just text");
        QueryException e = assertThrows(QueryException.class,
                () -> TraceQuery.exportParquet(List.of(TraceSource.astrace("bad", bad)), dir.resolve("out-bad")));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().contains("bad.astrace"), e.getMessage());
    }

    /**
     * Every table of the Parquet under {@code out} against the live query over {@code ranks}: the same row
     * count, and the same digest of every column of every row (order free: the streamed tables' rows come
     * in the order they closed).
     */
    static void assertSameTables(List<TraceInput> ranks, Path out) {
        List<String> live = new ArrayList<>();
        try (TraceQuery q = TraceQuery.open(ranks, TraceQueryTest.SMALL)) {
            for (SqlSchema.Table t : SqlSchema.TABLES) {
                live.add(q.rowCount(t.name()) + " " + q.query(digest(t, t.name()), null, 1).rows());
            }
        }
        try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("empty", "", new EventStore("empty"))),
                TraceQueryTest.SMALL.withAllowedDirectories(List.of(out)))) {
            for (int i = 0; i < SqlSchema.TABLES.size(); i++) {
                SqlSchema.Table t = SqlSchema.TABLES.get(i);
                String files = "read_parquet('" + out.resolve(t.name()) + "/*/*.parquet', hive_partitioning = true)";
                long rows = (Long) q.query("SELECT count(*) FROM " + files, null, 1).rows().getFirst().getFirst();
                String back = rows + " " + q.query(digest(t, files), null, 1).rows();
                assertEquals(live.get(i), back, t.name() + " of " + out);
            }
        }
    }

    /** Rows, and three order-free sums over a hash of every column of each row (the rank as a BIGINT on both sides). */
    private static String digest(SqlSchema.Table t, String from) {
        String cols = t.columns().stream().map(c -> c.name().equals("rank") ? "rank::BIGINT" : "\"" + c.name() + "\"")
                .collect(Collectors.joining(", "));
        return "SELECT count(*), bit_xor(h), sum(h >> 32), sum(h & 4294967295) FROM (SELECT hash(" + cols + ") AS h FROM " + from + ")";
    }

    /** Forwards the metadata and the events of one memory (and those of none). */
    private record OneMemory(int memory, EventSink to) implements EventSink {
        @Override
        public void onSession(SessionInfo info) {
            to.onSession(info);
        }

        @Override
        public void onMemory(MemoryInfo m) {
            if (m.id() == memory) {
                to.onMemory(m);
            }
        }

        @Override
        public void onString(int id, String value) {
            to.onString(id, value);
        }

        @Override
        public void onThread(int id, String name) {
            to.onThread(id, name);
        }

        @Override
        public void onFrame(StackFrame frame) {
            to.onFrame(frame);
        }

        @Override
        public void onStack(StackNode node) {
            to.onStack(node);
        }

        @Override
        public void onEvents(EventBatch b) {
            EventBatch kept = new EventBatch(b.size());
            for (int k = 0; k < b.size(); k++) {
                if (b.memory(k) == memory || b.memory(k) < 0) {
                    kept.addFrom(b, k);
                }
            }
            if (!kept.isEmpty()) {
                to.onEvents(kept);
            }
        }
    }
}
