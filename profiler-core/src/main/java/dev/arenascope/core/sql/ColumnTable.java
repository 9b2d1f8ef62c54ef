package dev.arenascope.core.sql;

import java.util.Arrays;

import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBWritableVector;

/**
 * The rows of one table of one rank, held as columns of primitives until the engine copies them in
 * (numbers and booleans as {@code long[]}, text as {@code String[]}). Rows are added a cell at a time
 * in column order: {@link #add(long)}, {@link #add(String)}, {@link #add(boolean)}, {@link #addNull()};
 * a row is complete when its last column is given.
 *
 * <p>Not thread-safe; filled by one thread, then only read.
 */
final class ColumnTable implements TableSource {
    /** A null number. */
    static final long NULL = Long.MIN_VALUE;

    final SqlSchema.Table table;
    private final int width;
    private final long[][] numbers;
    private final String[][] texts;
    private int rows;
    private int col;

    ColumnTable(SqlSchema.Table table, int rank) {
        this.table = table;
        width = table.columns().size();
        numbers = new long[width][];
        texts = new String[width][];
        for (int c = 0; c < width; c++) {
            if (table.columns().get(c).type() == SqlSchema.Type.VARCHAR) {
                texts[c] = new String[64];
            } else {
                numbers[c] = new long[64];
            }
        }
        add(rank); // every table's first column
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public int write(long from, int max, DuckDBDataChunkWriter out) {
        int start = (int) from;
        int n = (int) Math.min(max, rows - from);
        if (n <= 0) {
            return 0;
        }
        for (int c = 0; c < width; c++) {
            DuckDBWritableVector vec = out.vector(c);
            switch (type(c)) {
                case VARCHAR -> {
                    for (int r = 0; r < n; r++) {
                        String v = texts[c][start + r];
                        if (v == null) {
                            vec.setNull(r);
                        } else {
                            vec.setString(r, v);
                        }
                    }
                }
                case BOOLEAN -> VectorWrites.booleans(vec, numbers[c], start, n);
                case INTEGER -> VectorWrites.numbers(vec, false, numbers[c], start, n, NULL);
                case BIGINT -> VectorWrites.numbers(vec, true, numbers[c], start, n, NULL);
            }
        }
        return n;
    }

    SqlSchema.Type type(int c) {
        return table.columns().get(c).type();
    }

    long number(int c, int row) {
        return numbers[c][row];
    }

    /** Column {@code c}'s numbers (rows {@code 0 .. rows()-1} are the table's; the array may be longer). */
    long[] numbers(int c) {
        return numbers[c];
    }

    String text(int c, int row) {
        return texts[c][row];
    }

    ColumnTable add(long v) {
        if (numbers[col] == null) {
            throw new IllegalStateException(table.name() + "." + table.columns().get(col).name() + " is text, got a number");
        }
        ensure(numbers[col], col);
        numbers[col][rows] = v;
        return next();
    }

    /** A number, null when it is {@code -1} (an id that names nothing). */
    ColumnTable id(long v) {
        return add(v < 0 ? NULL : v);
    }

    ColumnTable add(boolean v) {
        return add(v ? 1L : 0L);
    }

    ColumnTable add(String v) {
        if (texts[col] == null) {
            throw new IllegalStateException(table.name() + "." + table.columns().get(col).name() + " is a number, got text");
        }
        if (rows == texts[col].length) {
            texts[col] = Arrays.copyOf(texts[col], rows * 2);
        }
        texts[col][rows] = v;
        return next();
    }

    ColumnTable addNull() {
        return texts[col] != null ? add((String) null) : add(NULL);
    }

    /** Overwrites a cell of a row already added (a scope's exit, a tensor's death). */
    void set(int row, int c, long v) {
        numbers[c][row] = v;
    }

    void set(int row, int c, String v) {
        texts[c][row] = v;
    }

    private void ensure(long[] column, int c) {
        if (rows == column.length) {
            numbers[c] = Arrays.copyOf(column, rows * 2);
        }
    }

    private ColumnTable next() {
        if (++col == width) {
            col = 0;
            rows++;
            if (rows > 0 && numbers[0] != null) {
                long rank = numbers[0][rows - 1];
                ensure(numbers[0], 0);
                numbers[0][rows] = rank; // the next row's rank, given once for the table
                col = 1;
            }
        }
        return this;
    }
}
