package dev.arenascope.core.sql;

import java.util.List;

/**
 * A query's answer held in memory: column names and SQL types, and rows of plain Java values
 * ({@code Long}, {@code Integer}, {@code Double}, {@code String}, {@code Boolean}, {@code BigDecimal},
 * others as their text; {@code null} for SQL NULL). {@link #truncated()} says rows were left out past
 * the limit asked for.
 */
public record QueryResult(List<String> columns, List<String> types, List<List<Object>> rows, boolean truncated) {
    public QueryResult {
        columns = List.copyOf(columns);
        types = List.copyOf(types);
        rows = List.copyOf(rows);
    }
}
