package dev.arenascope.app.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.app.aot.LeanJvm;
import dev.arenascope.core.sql.QueryResult;
import dev.arenascope.core.sql.SqlExamples;
import dev.arenascope.core.sql.TraceInput;
import dev.arenascope.core.sql.TraceQuery;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.GeneratedTrace;
import dev.arenascope.core.trace.store.EventStore;

/**
 * SQL over a trace ({@code core.sql}):
 * <ul>
 * <li>{@code sql.load_s}: {@link TraceQuery#open} of the sites bench's snapshot-like store (1,000,000
 *     allocations, 2,000,000 events, 2,000 sites): every table built and loaded into DuckDB, events
 *     included;</li>
 * <li>{@code sql.query_ms}: then the guide's first question (top sites at the peak) on it;</li>
 * <li>{@code sql.parquet_events_per_s}: the synthetic arena/pool/plan stream ({@code sql.parquet_events}
 *     events, 4 Mi) written as Parquet by {@code convert --to parquet}'s path
 *     ({@link TraceQuery#exportParquet(List, TraceQuery.Options, Path)}: nothing loaded, events streamed
 *     from the store);</li>
 * <li>{@code sql.rss_mb}: the process's peak resident memory at the end (Java heap and DuckDB's native
 *     memory; Linux only, else absent).</li>
 * <li>{@code sql.parquet_20m_s}, {@code sql.parquet_20m_cpu_s}, {@code sql.parquet_peak_rss_mb}: {@code convert
 *     FILE --to parquet DIR} in a fresh JVM (the CLI's batch options) of a {@code generate}d trace of
 *     {@code sql.parquet_20m_events} events (20 M; {@code ARENASCOPE_SQL_PARQUET_EVENTS} sets another
 *     count; 1 M with {@code --quick}): wall including the JVM's start, CPU seconds and peak RSS (CPU and
 *     RSS need {@code /usr/bin/time}, else absent);</li>
 * <li>{@code sql.parquet_groupby_s}: then DuckDB's group-by over that folder's events
 *     ({@code SELECT memory, kind, count(*), sum(b) ... GROUP BY ALL}, hive partitions), and
 *     {@code sql.parquet_sites_groupby_s} the allocations' bytes by memory and site, each the median of
 *     three after one warm-up.</li>
 * </ul>
 * Medians of rounds; quick runs use 100,000 allocations and 1 Mi events.
 */
final class SqlBench implements BenchSuite {

    @Override
    public String group() {
        return "sql";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        int allocations = quick ? 100_000 : 1_000_000;
        EventStore store = SitesBench.store(allocations);
        List<TraceInput> in = List.of(new TraceInput("sites-bench", "", store));
        TraceQuery.Options options = TraceQuery.Options.defaults().withMemoryLimit("1GB");
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("sql.load_s", Medians.medianOf(quick ? 0 : 1, quick ? 1 : 3, () -> {
            long t0 = System.nanoTime();
            try (TraceQuery q = TraceQuery.open(in, options)) {
                return (System.nanoTime() - t0) / 1e9;
            }
        }));
        String sql = SqlExamples.all().getFirst().sql();
        try (TraceQuery q = TraceQuery.open(in, options)) {
            long rows = q.rowCount("allocations");
            if (rows != allocations) {
                throw new IllegalStateException("the allocations table holds " + rows + " rows, not " + allocations);
            }
            f.put("sql.query_ms", Medians.medianOf(2, quick ? 5 : 11, () -> {
                long t0 = System.nanoTime();
                QueryResult r = q.query(sql, null, 100_000);
                double ms = (System.nanoTime() - t0) / 1e6;
                if (r.rows().isEmpty()) {
                    throw new IllegalStateException("no site at the peak");
                }
                return ms;
            }));
        }
        int events = quick ? 1 << 20 : 4 << 20;
        EventStore synthetic = new EventStore("synthetic");
        SyntheticTrace.write(3, events, synthetic);
        List<TraceInput> big = List.of(new TraceInput("synthetic", "", synthetic));
        f.put("sql.parquet_events_per_s", Medians.medianOf(0, quick ? 1 : 3, () -> {
            Path dir = Files.createTempDirectory("arenascope-sql-bench-");
            try {
                long t0 = System.nanoTime();
                TraceQuery.exportParquet(big, options, dir.resolve("out"));
                return events / ((System.nanoTime() - t0) / 1e9);
            } finally {
                try (var paths = Files.walk(dir)) {
                    paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }));
        f.put("sql.parquet_events", (double) events);
        f.put("sql.allocations", (double) allocations);
        bigTrace(f, quick);
        double rss = peakRssMb();
        if (rss > 0) {
            f.put("sql.rss_mb", rss);
        }
        return f;
    }

    /** The {@code convert --to parquet} of a generated trace in a child JVM, then group-bys over its Parquet. */
    private static void bigTrace(Map<String, Double> f, boolean quick) throws Exception {
        String env = System.getenv("ARENASCOPE_SQL_PARQUET_EVENTS");
        long n = env != null && !env.isBlank() ? Long.parseLong(env.strip()) : quick ? 1_000_000 : 20_000_000;
        Path dir = Files.createTempDirectory("arenascope-sql-bench-big-");
        try {
            Path trace = dir.resolve("big.astrace");
            GeneratedTrace.write(trace, n, 1, null);
            Path out = dir.resolve("parquet");
            ChildRun r = ChildRun.cli(LeanJvm.BATCH_OPTIONS, "convert", trace.toString(), "--to", "parquet", out.toString());
            f.put("sql.parquet_20m_events", (double) n);
            f.put("sql.parquet_20m_s", r.wallS());
            if (!Double.isNaN(r.cpuS())) {
                f.put("sql.parquet_20m_cpu_s", r.cpuS());
            }
            if (!Double.isNaN(r.rssMb())) {
                f.put("sql.parquet_peak_rss_mb", r.rssMb());
            }
            TraceQuery.Options o = TraceQuery.Options.defaults().withAllowedDirectories(List.of(out));
            try (TraceQuery q = TraceQuery.open(List.of(new TraceInput("empty", "", new EventStore("empty"))), o)) {
                String events = "read_parquet('" + out.resolve("events") + "/*/*.parquet', hive_partitioning = true)";
                String allocs = "read_parquet('" + out.resolve("allocations") + "/*/*.parquet', hive_partitioning = true)";
                f.put("sql.parquet_groupby_s", Medians.medianOf(1, 3, () -> groupBy(q,
                        "SELECT memory, kind, count(*) AS n, sum(b) AS bytes FROM " + events + " GROUP BY ALL", n)));
                f.put("sql.parquet_sites_groupby_s", Medians.medianOf(1, 3, () -> groupBy(q,
                        "SELECT memory, site, count(*) AS n, sum(bytes) AS bytes FROM " + allocs + " GROUP BY ALL", -1)));
            }
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Seconds {@code sql} takes; with {@code events >= 0}, checks its counts add up to that. */
    private static double groupBy(TraceQuery q, String sql, long events) {
        long t0 = System.nanoTime();
        QueryResult r = q.query(sql, null, 1_000_000);
        double s = (System.nanoTime() - t0) / 1e9;
        if (r.rows().isEmpty()) {
            throw new IllegalStateException("bench: no rows from " + sql);
        }
        if (events >= 0) {
            int at = r.columns().indexOf("n");
            long sum = 0;
            for (List<Object> row : r.rows()) {
                sum += ((Number) row.get(at)).longValue();
            }
            if (sum != events) {
                throw new IllegalStateException("bench: the Parquet holds " + sum + " events, not " + events);
            }
        }
        return s;
    }

    /** VmHWM of /proc/self/status in MiB, 0 where there is none. */
    static double peakRssMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("\\D+", "")) / 1024.0;
                }
            }
        } catch (Exception ignored) {
            // not Linux
        }
        return 0;
    }
}
