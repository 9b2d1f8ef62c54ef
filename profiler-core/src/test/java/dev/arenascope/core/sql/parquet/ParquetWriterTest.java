package dev.arenascope.core.sql.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files of {@link ParquetWriter}, read back by DuckDB: every value, null and type as written. */
class ParquetWriterTest {
    private static final List<ParquetWriter.Column> COLUMNS = List.of(
            new ParquetWriter.Column("i", ParquetWriter.Type.INT64, false),
            new ParquetWriter.Column("rising", ParquetWriter.Type.INT64, false),
            new ParquetWriter.Column("wild", ParquetWriter.Type.INT64, true),
            new ParquetWriter.Column("small", ParquetWriter.Type.INT32, false),
            new ParquetWriter.Column("wild32", ParquetWriter.Type.INT32, true),
            new ParquetWriter.Column("flag", ParquetWriter.Type.BOOLEAN, false),
            new ParquetWriter.Column("name", ParquetWriter.Type.STRING, true));

    private static final String[] NAMES = {"ALLOC", "FREE", "", "schön ✓", "x".repeat(10_000)};

    /** Row {@code i}'s values, a null as null: one source for what is written and what is expected. */
    private static Object[] row(long i, SplittableRandom r) {
        long wild = switch ((int) (i % 7)) {
            case 0 -> Long.MIN_VALUE;
            case 1 -> Long.MAX_VALUE;
            case 2 -> r.nextLong();
            case 3 -> -1;
            default -> r.nextLong(1L << 40);
        };
        int wild32 = switch ((int) (i % 5)) {
            case 0 -> Integer.MIN_VALUE;
            case 1 -> Integer.MAX_VALUE;
            default -> r.nextInt();
        };
        return new Object[] {
                i,
                1_000_000L + i * 37 + (i % 3),
                i % 11 == 0 ? null : wild,
                (int) (i % 13) - 6,
                i % 3 == 0 ? null : wild32,
                i % 4 == 1,
                // long runs of one name, then single ones, then nulls: RLE runs and bit-packed groups both
                i % 100_000 < 40_000 ? NAMES[0] : i % 17 == 0 ? null : NAMES[(int) (i % NAMES.length)]};
    }

    private static void write(Path file, long rows, int rowGroup) throws Exception {
        SplittableRandom r = new SplittableRandom(11);
        try (ParquetWriter w = new ParquetWriter(file, COLUMNS, Map.of("arenascope_schema_version", "1"), rowGroup)) {
            for (long i = 0; i < rows; i++) {
                Object[] v = row(i, r);
                for (int c = 0; c < v.length; c++) {
                    ColumnWriter col = w.column(c);
                    switch (v[c]) {
                        case null -> col.putNull();
                        case Long l -> col.put(l);
                        case Integer n -> col.put(n);
                        case Boolean b -> col.put(b);
                        case String s -> col.put(s);
                        default -> throw new AssertionError(v[c]);
                    }
                }
                w.endRows(1);
            }
        }
    }

    private static Connection duckdb() throws SQLException {
        return DriverManager.getConnection("jdbc:duckdb:");
    }

    private static void assertReadsBack(Path file, long rows) throws Exception {
        SplittableRandom r = new SplittableRandom(11);
        try (Connection c = duckdb(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM read_parquet('" + file + "') ORDER BY i")) {
            long n = 0;
            while (rs.next()) {
                Object[] want = row(n, r);
                for (int k = 0; k < want.length; k++) {
                    Object got = rs.getObject(k + 1);
                    assertEquals(want[k], got, "row " + n + " column " + COLUMNS.get(k).name());
                }
                n++;
            }
            assertEquals(rows, n);
        }
    }

    @Test
    void everyValueReadsBackAcrossPagesAndRowGroups(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("t.parquet");
        // pages cut inside row groups and row groups inside pages; a run of one name across both
        long rows = Math.max(120_000, 3L * ColumnWriter.PAGE_ROWS + 12_345);
        int rowGroup = ColumnWriter.PAGE_ROWS + 5_003;
        write(f, rows, rowGroup);
        assertReadsBack(f, rows);
        try (Connection c = duckdb(); Statement s = c.createStatement()) {
            ResultSet rs = s.executeQuery("SELECT name, type, repetition_type, converted_type FROM parquet_schema('" + f
                    + "') WHERE name <> 'arenascope' ORDER BY name");
            List<String> schema = new ArrayList<>();
            while (rs.next()) {
                schema.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getString(4));
            }
            assertEquals(List.of("flag BOOLEAN REQUIRED null", "i INT64 REQUIRED INT_64", "name BYTE_ARRAY OPTIONAL UTF8",
                    "rising INT64 REQUIRED INT_64", "small INT32 REQUIRED INT_32", "wild INT64 OPTIONAL INT_64",
                    "wild32 INT32 OPTIONAL INT_32"), schema);
            rs = s.executeQuery("SELECT count(*), sum(row_group_num_rows) FROM (SELECT DISTINCT row_group_id, row_group_num_rows"
                    + " FROM parquet_metadata('" + f + "'))");
            rs.next();
            assertEquals((rows + rowGroup - 1) / rowGroup, rs.getInt(1), "row groups of " + rowGroup + " rows");
            assertEquals(rows, rs.getLong(2));
            rs = s.executeQuery("SELECT decode(value) FROM parquet_kv_metadata('" + f + "') WHERE decode(key) = 'arenascope_schema_version'");
            rs.next();
            assertEquals("1", rs.getString(1));
            // the statistics a reader prunes row groups with: a range past every row group reads none
            rs = s.executeQuery("SELECT min(rising), max(rising), count(wild), count(*) FILTER (WHERE rising > 1e15) FROM '" + f + "'");
            rs.next();
            assertEquals(1_000_000L, rs.getLong(1));
            assertEquals(1_000_000L + (rows - 1) * 37 + (rows - 1) % 3, rs.getLong(2));
            assertEquals(0, rs.getLong(4));
        }
    }

    @Test
    void oneRowAndNoRowAreTables(@TempDir Path dir) throws Exception {
        Path one = dir.resolve("one.parquet");
        write(one, 1, 1_000_000);
        assertReadsBack(one, 1);
        Path none = dir.resolve("none.parquet");
        write(none, 0, 1_000_000);
        assertReadsBack(none, 0);
        try (Connection c = duckdb(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), sum(i), count(name) FROM '" + none + "'")) {
            rs.next();
            assertEquals(0, rs.getLong(1));
            assertNull(rs.getObject(2));
        }
    }

    @Test
    void aColumnOfMostlyDistinctTextsLeavesItsDictionary(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("texts.parquet");
        int rows = ColumnWriter.MAX_DICTIONARY * 2 + 5;
        List<ParquetWriter.Column> cols = List.of(new ParquetWriter.Column("n", ParquetWriter.Type.INT32, false),
                new ParquetWriter.Column("s", ParquetWriter.Type.STRING, true));
        try (ParquetWriter w = new ParquetWriter(f, cols, Map.of(), 40_000)) {
            for (int i = 0; i < rows; i++) {
                w.column(0).put(i);
                w.column(1).put(i % 9 == 0 ? null : "text-" + i);
                w.endRows(1);
            }
        }
        try (Connection c = duckdb(); Statement s = c.createStatement()) {
            ResultSet rs = s.executeQuery("SELECT count(*), count(s), count(DISTINCT s), sum(n), "
                    + "count(*) FILTER (WHERE s <> 'text-' || n) FROM '" + f + "'");
            rs.next();
            assertEquals(rows, rs.getLong(1));
            long nulls = (rows + 8) / 9;
            assertEquals(rows - nulls, rs.getLong(2));
            assertEquals(rows - nulls, rs.getLong(3));
            assertEquals((long) rows * (rows - 1) / 2, rs.getLong(4));
            assertEquals(0, rs.getLong(5));
            rs = s.executeQuery("SELECT DISTINCT encodings FROM parquet_metadata('" + f + "') WHERE path_in_schema = 's' ORDER BY 1");
            List<String> encodings = new ArrayList<>();
            while (rs.next()) {
                encodings.add(rs.getString(1));
            }
            assertEquals(2, encodings.size(), "dictionary row groups, then plain ones: " + encodings);
        }
    }

    @Test
    void aRowGroupWithColumnsOfUnequalLengthsIsRefused(@TempDir Path dir) throws Exception {
        ParquetWriter w = new ParquetWriter(dir.resolve("bad.parquet"), COLUMNS.subList(0, 2), Map.of(), 2);
        w.column(0).put(1);
        w.column(0).put(2);
        w.column(1).put(1);
        assertThrows(IllegalStateException.class, () -> w.endRows(2));
        assertThrows(IllegalStateException.class, () -> w.column(0).putNull(), "a required column takes no null");
    }
}
