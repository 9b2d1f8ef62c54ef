package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SqlBenchTest {

    @Test
    void quickRunReportsEveryFigureUnderItsStableName() throws Exception {
        SqlBench bench = new SqlBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "sql");
        assertTrue(f.keySet().containsAll(List.of("sql.load_s", "sql.query_ms", "sql.parquet_events_per_s",
                "sql.parquet_events", "sql.allocations")), f.toString());
        assertTrue(f.get("sql.load_s") > 0 && f.get("sql.query_ms") > 0 && f.get("sql.parquet_events_per_s") > 0, f.toString());
        assertEquals(100_000, f.get("sql.allocations"));
        // the convert of a generated trace in a child JVM, and the group-bys over its Parquet (which check
        // that the files hold every event)
        assertEquals(1_000_000, f.get("sql.parquet_20m_events"));
        assertTrue(f.get("sql.parquet_20m_s") > 0 && f.get("sql.parquet_groupby_s") > 0 && f.get("sql.parquet_sites_groupby_s") > 0,
                f.toString());
    }
}
