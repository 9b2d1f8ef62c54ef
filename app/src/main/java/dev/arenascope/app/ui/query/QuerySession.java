package dev.arenascope.app.ui.query;

import java.time.Duration;
import java.util.List;

import dev.arenascope.core.sql.QueryResult;
import dev.arenascope.core.sql.TraceInput;
import dev.arenascope.core.sql.TraceQuery;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.util.Progress;

/**
 * The Query view's engine: the window's trace loaded into a {@link TraceQuery} on the first query
 * (again when the trace changed, or a live trace grew since), then asked. Plain Java, run off the FX
 * thread, one query at a time (the view runs it on a one-thread runner). {@link #close()} frees the engine.
 */
final class QuerySession implements AutoCloseable {
    /** Rows a result keeps for the table. */
    static final int MAX_ROWS = 10_000;
    /** A query's time limit in the window. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private TraceView loadedView;
    private long loadedEvents = -1;
    private TraceQuery query;

    /** The phase a query is in while the engine loads the trace (the first query of a trace, and after it grew). */
    static final String LOADING = "Loading the trace into the SQL engine";
    /** The phase a query is in while the engine answers it. */
    static final String RUNNING = "Running the query";

    /**
     * Runs {@code sql} over {@code view} (rank 0, named {@code name}), telling {@code progress} which
     * phase it is in ({@link #LOADING}, {@link #RUNNING}).
     */
    synchronized QueryResult run(TraceView view, String name, String sql, Progress progress) {
        if (view == null) {
            throw new IllegalStateException("no trace is open");
        }
        if (query == null || loadedView != view || loadedEvents != view.eventCount()) {
            progress.update(0, -1, LOADING);
            close();
            long events = view.eventCount();
            query = TraceQuery.open(List.of(new TraceInput(name == null || name.isEmpty() ? "trace" : name, "", view)),
                    TraceQuery.Options.defaults().withMemoryLimit("1GB"));
            loadedView = view;
            loadedEvents = events;
        }
        progress.update(0, -1, RUNNING);
        return query.query(sql, TIMEOUT, MAX_ROWS);
    }

    /**
     * The time range of the result's {@code _ns} columns (the least and the most value in them), or null
     * when it has none or they hold no value: what the view selects on the timeline.
     */
    static long[] timeRange(QueryResult r) {
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        for (int c = 0; c < r.columns().size(); c++) {
            if (!r.columns().get(c).endsWith("_ns") || r.columns().get(c).equals("duration_ns") || r.columns().get(c).equals("lifetime_ns")) {
                continue;
            }
            for (List<Object> row : r.rows()) {
                if (row.get(c) instanceof Number n) {
                    lo = Math.min(lo, n.longValue());
                    hi = Math.max(hi, n.longValue());
                }
            }
        }
        return lo > hi ? null : new long[] {lo, hi};
    }

    @Override
    public synchronized void close() {
        if (query != null) {
            query.close();
            query = null;
            loadedView = null;
            loadedEvents = -1;
        }
    }
}
