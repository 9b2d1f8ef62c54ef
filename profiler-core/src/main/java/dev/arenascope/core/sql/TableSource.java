package dev.arenascope.core.sql;

import org.duckdb.DuckDBDataChunkWriter;

/**
 * The rows of one table of one rank, as the engine's table function copies them into DuckDB's vectors
 * a chunk at a time: {@link ColumnTable} (rows built in Java), {@link AllocationRows} (read straight
 * from the site analyses, never copied). The events come from the store itself ({@code DuckDbTraceQuery}).
 *
 * <p>A source is read by one thread at a time (its scan runs on one DuckDB thread).
 */
interface TableSource {

    /** Rows in all. */
    long rows();

    /**
     * Writes rows from {@code from} on, at most {@code max} ({@code out.capacity()} or less), into
     * {@code out}'s vectors 0, 1, … (one per column of the table, in order) and says how many it wrote:
     * at least one while {@code from < rows()}, 0 at the end.
     */
    int write(long from, int max, DuckDBDataChunkWriter out);
}
