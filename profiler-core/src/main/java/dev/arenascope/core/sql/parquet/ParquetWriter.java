package dev.arenascope.core.sql.parquet;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A streaming Parquet writer for flat tables of integers, booleans and text, with no dependency: rows go
 * in column by column ({@link ColumnWriter}), a row group of {@code rowGroupRows} rows is written as it
 * fills, so memory is one row group's encoded pages whatever the table's size.
 *
 * <h2>What the file holds</h2>
 * Format version 1 (data pages v1, no compression): INT32 and INT64 columns DELTA_BINARY_PACKED
 * (times, event numbers and offsets rise by small steps, so most deltas take a few bits), BOOLEAN
 * PLAIN, text (BYTE_ARRAY, UTF8) RLE_DICTIONARY; optional columns with RLE definition levels, required
 * ones with none. Converted types INT_32 / INT_64 / UTF8, as DuckDB writes them, so a reader sees the
 * same SQL types; every column chunk carries its null count and, for integers, its min and max (a
 * reader skips row groups by them). The key-value metadata given is written in the footer.
 *
 * <p>Not thread-safe. A writer that fails leaves a partial file its caller deletes.
 */
public final class ParquetWriter implements Closeable {
    /** The physical and logical type of a column. */
    public enum Type {
        INT32(1, 17), INT64(2, 18), BOOLEAN(0, -1), STRING(6, 0);

        final int physical;
        final int converted;

        Type(int physical, int converted) {
            this.physical = physical;
            this.converted = converted;
        }
    }

    /** A column: its name, type and whether it may hold nulls. */
    public record Column(String name, Type type, boolean optional) {}

    private static final byte[] MAGIC = {'P', 'A', 'R', '1'};
    /** What the footer names as the writer. */
    public static final String CREATED_BY = "ArenaScope parquet writer";

    private final List<ColumnWriter> columns = new ArrayList<>();
    private final Map<String, String> metadata;
    private final int rowGroupRows;
    private final OutputStream out;
    private long position;
    private long rowsInGroup;
    private long rows;
    private final ByteSink staging = new ByteSink(1 << 16);
    private final List<byte[]> rowGroups = new ArrayList<>();
    private boolean closed;

    /**
     * Opens {@code file} (created or truncated) for a table of {@code columns}.
     *
     * @param metadata     the footer's key-value metadata
     * @param rowGroupRows rows a row group holds (the last may hold fewer)
     */
    public ParquetWriter(Path file, List<Column> columns, Map<String, String> metadata, int rowGroupRows) throws IOException {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a Parquet file needs a column");
        }
        if (rowGroupRows < 1) {
            throw new IllegalArgumentException("a row group holds at least one row, got " + rowGroupRows);
        }
        for (Column c : columns) {
            this.columns.add(new ColumnWriter(c));
        }
        this.metadata = new LinkedHashMap<>(metadata);
        this.rowGroupRows = rowGroupRows;
        out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20);
        out.write(MAGIC);
        position = MAGIC.length;
    }

    /** Column {@code i}, in the order given. */
    public ColumnWriter column(int i) {
        return columns.get(i);
    }

    /** Rows written so far, counted by {@link #endRows}. */
    public long rows() {
        return rows;
    }

    /**
     * Counts {@code n} rows just added to every column; writes the row group when it is full.
     *
     * @throws IllegalStateException when a column was given another number of rows
     */
    public void endRows(int n) throws IOException {
        rowsInGroup += n;
        rows += n;
        if (rowsInGroup >= rowGroupRows) {
            writeRowGroup();
        }
    }

    private void writeRowGroup() throws IOException {
        if (rowsInGroup == 0) {
            return;
        }
        for (ColumnWriter c : columns) {
            if (c.rows() != rowsInGroup) {
                throw new IllegalStateException("column " + c.spec.name() + " has " + c.rows() + " rows of the row group, the table "
                        + rowsInGroup);
            }
            c.flushPage();
        }
        ByteSink group = new ByteSink(256 + 128 * columns.size());
        ThriftCompact g = new ThriftCompact(group).beginStruct().list(1, ThriftCompact.STRUCT, columns.size());
        long groupStart = position;
        long groupBytes = 0;
        for (ColumnWriter c : columns) {
            long chunkStart = position;
            long dictionaryOffset = -1;
            if (c.dictionaryUsed()) {
                staging.clear();
                c.dictionaryPage(staging);
                dictionaryOffset = position;
                staging.writeTo(out);
                position += staging.size();
                c.encodings.add(ColumnWriter.PLAIN);
            }
            long dataOffset = position;
            c.chunk.writeTo(out);
            position += c.chunk.size();
            long bytes = position - chunkStart;
            groupBytes += bytes;
            g.beginStruct().i64(2, chunkStart).struct(3)
                    .i32(1, c.spec.type().physical)
                    .list(2, ThriftCompact.I32, c.encodings.size());
            for (int e : c.encodings) {
                g.element(e);
            }
            g.list(3, ThriftCompact.BINARY, 1).element(c.spec.name())
                    .i32(4, 0) // UNCOMPRESSED
                    .i64(5, c.chunkRows)
                    .i64(6, bytes)
                    .i64(7, bytes)
                    .i64(9, dataOffset);
            if (dictionaryOffset >= 0) {
                g.i64(11, dictionaryOffset);
            }
            g.struct(12).i64(3, c.chunkNulls);
            boolean integer = c.spec.type() == Type.INT32 || c.spec.type() == Type.INT64;
            if (integer && c.min <= c.max) {
                int width = c.spec.type() == Type.INT32 ? 4 : 8;
                g.binary(5, le(c.max, width)).binary(6, le(c.min, width));
            }
            g.endStruct(); // statistics
            g.endStruct(); // meta_data
            g.endStruct(); // column chunk
            c.resetChunk();
        }
        g.i64(2, groupBytes).i64(3, rowsInGroup).i64(5, groupStart).i64(6, groupBytes).endStruct();
        rowGroups.add(group.toByteArray());
        rowsInGroup = 0;
    }

    private static byte[] le(long v, int width) {
        byte[] b = new byte[width];
        for (int i = 0; i < width; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    /** Writes the last row group and the footer, and closes the file. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            writeRowGroup();
            ByteSink footer = new ByteSink(1024 + 64 * columns.size() + 16 * rowGroups.size());
            ThriftCompact f = new ThriftCompact(footer).beginStruct()
                    .i32(1, 1)
                    .list(2, ThriftCompact.STRUCT, columns.size() + 1);
            f.beginStruct().string(4, "arenascope").i32(5, columns.size()).endStruct();
            for (ColumnWriter c : columns) {
                Type t = c.spec.type();
                f.beginStruct().i32(1, t.physical).i32(3, c.spec.optional() ? 1 : 0).string(4, c.spec.name());
                if (t.converted >= 0) {
                    f.i32(6, t.converted);
                }
                f.endStruct();
            }
            f.i64(3, rows).list(4, ThriftCompact.STRUCT, rowGroups.size());
            for (byte[] g : rowGroups) {
                footer.write(g, 0, g.length);
            }
            f.list(5, ThriftCompact.STRUCT, metadata.size());
            for (Map.Entry<String, String> e : metadata.entrySet()) {
                f.beginStruct().string(1, e.getKey()).string(2, e.getValue()).endStruct();
            }
            f.string(6, CREATED_BY);
            f.list(7, ThriftCompact.STRUCT, columns.size());
            for (int i = 0; i < columns.size(); i++) {
                f.beginStruct().struct(1).endStruct().endStruct(); // TYPE_ORDER
            }
            f.endStruct();
            footer.writeTo(out);
            byte[] len = le(footer.size(), 4);
            out.write(len);
            out.write(MAGIC);
        } finally {
            out.close();
        }
    }
}
