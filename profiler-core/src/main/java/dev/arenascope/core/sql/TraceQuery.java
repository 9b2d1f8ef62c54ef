package dev.arenascope.core.sql;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.arenascope.core.trace.file.ReadReport;

/**
 * SQL over traces: the tables of {@link SqlSchema} loaded from one or more traces (one rank each) into
 * an embedded engine (DuckDB, in-process), then asked any number of queries. The only door to the
 * engine: nothing else in the project sees JDBC.
 *
 * <h2>Life</h2>
 * {@link #open} loads the tables, column by column from the stores (no SQL inserts). {@link #save} and
 * {@link #exportParquet} may follow; the first {@link #query} then closes the engine off from the file
 * system, for good: a query reads and writes no file except under
 * one of {@link Options#allowedDirectories()}, and cannot change the engine's settings. The tables
 * are the engine's copy: a query may make temporary tables or views of its own, never touches a trace
 * file.
 *
 * <h2>Resources</h2>
 * The engine's memory is native, outside the Java heap, capped by {@link Options#memoryLimit()} (what
 * does not fit spills to a temporary directory); it runs on {@link Options#threads()} threads. One
 * query at a time; {@link #close()} frees everything. Not thread-safe, except that a running query may
 * be cancelled from any thread by its timeout.
 */
public interface TraceQuery extends AutoCloseable {

    /**
     * How the engine runs.
     *
     * @param memoryLimit         DuckDB's {@code memory_limit}, e.g. {@code 2GB}
     * @param threads             worker threads
     * @param eventsTable         true: the {@code events} table is loaded like the others (queries over it
     *                            are fast); false: it is a view that reads the stores each time it is
     *                            scanned (nothing held: for a one-time export of a large trace)
     * @param allowedDirectories where a query may read and write files ({@code COPY ... TO}, {@code read_parquet}); none: nowhere
     */
    record Options(String memoryLimit, int threads, boolean eventsTable, List<Path> allowedDirectories) {
        public Options {
            if (memoryLimit == null || !memoryLimit.matches("\\d+(\\.\\d+)?\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)")) {
                throw new IllegalArgumentException("memory limit must be a size like 2GB, got '" + memoryLimit + "'");
            }
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, got " + threads);
            }
            allowedDirectories = allowedDirectories == null ? List.of() : List.copyOf(allowedDirectories);
        }

        /** 2 GB, 2 threads, the events table loaded, no writable directory. */
        public static Options defaults() {
            return new Options("2GB", 2, true, List.of());
        }

        public Options withAllowedDirectories(List<Path> dirs) {
            return new Options(memoryLimit, threads, eventsTable, dirs);
        }

        public Options withEventsTable(boolean table) {
            return new Options(memoryLimit, threads, table, allowedDirectories);
        }

        public Options withMemoryLimit(String limit) {
            return new Options(limit, threads, eventsTable, allowedDirectories);
        }
    }

    /**
     * Loads {@code ranks} (rank = position in the list) into a fresh in-memory engine.
     *
     * @throws QueryException when the engine cannot start or refuses a table
     * @throws IllegalArgumentException when {@code ranks} is empty
     */
    static TraceQuery open(List<TraceInput> ranks, Options options) {
        return new DuckDbTraceQuery(ranks, options);
    }

    /**
     * Writes the tables of {@code ranks} as Parquet under {@code dir}, laid out as
     * {@link #exportParquet(Path)} lays them out, with the same columns and types, without an engine:
     * the project's own Parquet writer, fed by one read of each rank's trace ({@link TraceSource#feed()}:
     * an {@code .astrace} file decoded straight into the writers, no store built), the events table
     * written on a thread of its own and every other table on the reader's, each allocation's row written
     * as it ends, a scope's as it exits, a plan tensor's as it dies; so memory is the rank's metadata and
     * what is open at a time, not the trace. {@code events} rows are in event order; {@code allocations},
     * {@code scopes} and {@code plan_tensors} rows in the order they closed (the open ones last). What
     * {@code convert --to parquet} runs; the files are described in {@code docs/guide/sql.md}.
     *
     * @return what each rank's read reported (a damaged file's recovery), null for a sound one
     * @throws QueryException when a file cannot be written or a trace cannot be read
     * @throws IllegalArgumentException when {@code ranks} is empty or {@code dir} holds a table's folder
     */
    static List<ReadReport> exportParquet(List<TraceSource> ranks, Path dir) {
        return TraceParquet.export(ranks, dir);
    }

    /**
     * {@link #exportParquet(List, Path)} of traces already in stores, each replayed from its store.
     * {@code options} is not used (no engine runs).
     */
    static void exportParquet(List<TraceInput> ranks, Options options, Path dir) {
        TraceParquet.export(ranks.stream().map(TraceSource::of).toList(), dir);
    }

    /** The rows of {@code table} (one of {@link SqlSchema#TABLES}). */
    long rowCount(String table);

    /**
     * Runs {@code sql} (one statement, or several separated by {@code ;}: the last one's answer is
     * returned) and streams its answer into {@code sink}.
     *
     * @param timeout null or zero for none; past it the query is cancelled
     * @throws QueryException the engine's message on one line, or a timeout
     */
    void query(String sql, Duration timeout, RowSink sink);

    /** {@link #query(String, Duration, RowSink)} into memory, keeping at most {@code maxRows} rows. */
    QueryResult query(String sql, Duration timeout, int maxRows);

    /**
     * Writes the tables into a DuckDB database file (which must not exist), for {@code duckdb FILE} or a
     * later {@code ATTACH}. Only before the first query.
     */
    void save(Path databaseFile);

    /**
     * Writes every table as Parquet under {@code dir}: {@code dir/TABLE/rank=N/data_0.parquet} (hive
     * partitions by rank, which Spark, Trino, pandas, polars and DuckDB read as the {@code rank} column),
     * each file carrying {@link SqlSchema#VERSION_KEY} in its key-value metadata. Only before the first
     * query.
     */
    void exportParquet(Path dir);

    @Override
    void close();
}
