package dev.arenascope.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.arenascope.core.sql.QueryResult;
import dev.arenascope.core.sql.TraceInput;
import dev.arenascope.core.sql.TraceQuery;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/**
 * The SQL engine's events scan, the hot path of {@code convert --to parquet} and of queries over the
 * {@code events} view: every one of the table's sixteen columns of 2 Mi synthetic events filled into
 * DuckDB's vectors from the store's decoded blocks, then summed by the engine (one engine thread, so
 * the figure is the scan's cost per event plus a small constant for the sums). Reported per event.
 *
 * <p>Run (the SQL engine is optional in core, so its jar joins the class path): {@code java -cp
 * "benchmarks/target/benchmarks.jar:app/target/lib/*" org.openjdk.jmh.Main SqlEventsScanBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Benchmark)
public class SqlEventsScanBenchmark {
    static final int EVENTS = 2 << 20;
    private static final String SUMS = "SELECT count(*), sum(rank), sum(event), sum(time_ns), sum(kind_code), sum(flags), "
            + "sum(memory), sum(thread), sum(a), sum(b), sum(c), sum(used), sum(aux), sum(ref), sum(ref2), sum(site), "
            + "sum(category_id) FROM arenascope_scan('events', 0, 1)";

    private TraceQuery query;

    @Setup(Level.Trial)
    public void setUp() {
        EventStore store = new EventStore("jmh-sql");
        SyntheticTrace.write(3, EVENTS, store);
        query = TraceQuery.open(List.of(new TraceInput("synthetic", "", store)),
                new TraceQuery.Options("1GB", 1, false, List.of()));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        query.close();
    }

    /** The sixteen columns of every event, through the engine's vectors. */
    @Benchmark
    public QueryResult scanAllColumns() {
        QueryResult r = query.query(SUMS, null, 1);
        if ((long) r.rows().getFirst().getFirst() != EVENTS) {
            throw new IllegalStateException("scanned " + r.rows().getFirst().getFirst() + " events");
        }
        return r;
    }
}
