package dev.arenascope.core.sql;

import java.util.List;

import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBWritableVector;

import dev.arenascope.core.trace.EventBatch;

/**
 * The {@code events} table's sixteen columns ({@link SqlSchema#EVENTS}, the kind as its code), each
 * one accessor that writes a run of a decoded {@link EventBatch} into its DuckDB vector in one bulk
 * write ({@link VectorWrites}): the batch's own arrays copied as they are where the store holds what
 * the table wants (times, sizes, ids), decoded only where the batch packs them (kind, flags, memory).
 * The events scan is then one loop over the columns, the hot path of queries over the {@code events}
 * view and of {@code convert --to parquet}.
 *
 * <p>Not thread-safe: each scan thread has its own {@link Run}.
 */
final class EventVectors {
    private EventVectors() {}

    /** Writes one column's rows of a run into {@code v}. */
    @FunctionalInterface
    private interface Column {
        void write(DuckDBWritableVector v, Run run);
    }

    /**
     * Rows {@code [off, off + rows)} of a batch, the first of them event {@code firstEvent} of rank
     * {@code rank}; {@code ints} and {@code longs} are scratch of at least {@code rows}.
     */
    static final class Run {
        EventBatch.Columns columns;
        int[] sites;
        int[] categories;
        int off;
        int rows;
        long firstEvent;
        int rank;
        final int[] ints;
        final long[] longs;

        Run(int capacity) {
            ints = new int[capacity];
            longs = new long[capacity];
        }

        /** {@code (packed >>> shift & mask) - minus} of every row, in {@link #ints}. */
        int[] unpacked(int shift, int mask, int minus) {
            int[] p = columns.packed();
            for (int r = 0; r < rows; r++) {
                ints[r] = (p[off + r] >>> shift & mask) - minus;
            }
            return ints;
        }
    }

    /** In the scan's column order: rank, event, time_ns, kind_code, flags, memory, thread, a .. aux, ref, ref2, site, category_id. */
    private static final List<Column> COLUMNS = List.of(
            (v, r) -> VectorWrites.constant(v, r.rank, r.rows, r.ints),
            (v, r) -> VectorWrites.sequence(v, r.firstEvent, r.rows, r.longs),
            (v, r) -> VectorWrites.longs(v, r.columns.time(), r.off, r.rows),
            (v, r) -> VectorWrites.ints(v, r.unpacked(0, 0xff, 0), 0, r.rows, false),
            (v, r) -> VectorWrites.ints(v, r.unpacked(8, 0xff, 0), 0, r.rows, false),
            (v, r) -> VectorWrites.ints(v, r.unpacked(16, 0xffff, 1), 0, r.rows, true),
            (v, r) -> VectorWrites.ints(v, r.columns.thread(), r.off, r.rows, false),
            (v, r) -> VectorWrites.longs(v, r.columns.a(), r.off, r.rows),
            (v, r) -> VectorWrites.longs(v, r.columns.b(), r.off, r.rows),
            (v, r) -> VectorWrites.longs(v, r.columns.c(), r.off, r.rows),
            (v, r) -> VectorWrites.longs(v, r.columns.used(), r.off, r.rows),
            (v, r) -> VectorWrites.longs(v, r.columns.aux(), r.off, r.rows),
            (v, r) -> VectorWrites.ints(v, r.columns.ref(), r.off, r.rows, false),
            (v, r) -> VectorWrites.ints(v, r.columns.ref2(), r.off, r.rows, false),
            (v, r) -> VectorWrites.ints(v, r.sites, r.off, r.rows, true),
            (v, r) -> VectorWrites.ints(v, r.categories, r.off, r.rows, true));

    /** The number of columns a scan of events declares, in {@link #COLUMNS}' order. */
    static int count() {
        return COLUMNS.size();
    }

    /**
     * Writes rows {@code [off, off + rows)} of {@code b}, the first being event {@code firstEvent} of
     * rank {@code rank}, into vectors {@code 0 .. 15} of {@code out}.
     */
    static void write(EventBatch b, int off, int rows, long firstEvent, int rank, DuckDBDataChunkWriter out, Run run) {
        run.columns = b.columns();
        run.sites = b.siteColumn();
        run.categories = b.categoryColumn();
        run.off = off;
        run.rows = rows;
        run.firstEvent = firstEvent;
        run.rank = rank;
        for (int k = 0; k < COLUMNS.size(); k++) {
            COLUMNS.get(k).write(out.vector(k), run);
        }
    }
}
