package dev.arenascope.core.sql.parquet;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * One column of a {@link ParquetWriter}: its values of the row group being written, encoded a page at
 * a time as they come. Integers are DELTA_BINARY_PACKED, booleans PLAIN, text RLE_DICTIONARY over a
 * dictionary kept for the whole file (a text is {@link #intern interned} once, then given by its id:
 * no hashing per row); an optional column's nulls are definition levels, RLE / bit-packed.
 *
 * <p>Rows are added with {@link #put(long)}, {@link #putNull()} and the bulk forms, the same number to
 * every column of the file, then counted with {@link ParquetWriter#endRows(int)}. Not thread-safe.
 */
public final class ColumnWriter {
    /** Rows a data page holds. */
    static final int PAGE_ROWS = 1 << 13;
    /**
     * Distinct texts past which a text column stops using its dictionary: the rest of the file is PLAIN
     * (a dictionary page is repeated in every row group, so a column of mostly distinct texts would
     * otherwise be written again and again).
     */
    static final int MAX_DICTIONARY = 1 << 16;

    static final int PLAIN = 0;
    static final int RLE = 3;
    static final int DELTA_BINARY_PACKED = 5;
    static final int RLE_DICTIONARY = 8;

    final ParquetWriter.Column spec;
    private final boolean optional;
    private final ParquetWriter.Type type;

    // the page being filled
    private final long[] values = new long[PAGE_ROWS];
    private final int[] levels;
    private int pageRows;
    private int pageValues;

    // the row group's column chunk: its data pages, encoded
    final ByteSink chunk = new ByteSink(1 << 16);
    private final ByteSink body = new ByteSink(1 << 16);
    private final ByteSink header = new ByteSink(64);
    private final long[] scratch = new long[Encodings.BLOCK];
    private final int[] ids = new int[PAGE_ROWS];
    long chunkRows;
    long chunkNulls;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    /** Bytes of the chunk's data pages before encoding: the same as after (no codec), headers included. */
    final TreeSet<Integer> encodings = new TreeSet<>();
    private boolean dictionaryUsed;

    // text: the file's dictionary
    private final Map<String, Integer> dictionaryIds = new HashMap<>();
    private byte[][] dictionary = new byte[16][];
    private int dictionarySize;
    /** Past {@link #MAX_DICTIONARY}: texts go in as their bytes (held a page at a time), no longer interned. */
    private boolean plainText;
    private byte[][] texts;

    ColumnWriter(ParquetWriter.Column spec) {
        this.spec = spec;
        this.optional = spec.optional();
        this.type = spec.type();
        levels = optional ? new int[PAGE_ROWS] : null;
    }

    /** Rows added since the last row group was written. */
    long rows() {
        return chunkRows + pageRows;
    }

    /** A number (INT32, INT64), a boolean as 0 or 1, or a text's {@link #intern} id. */
    public void put(long v) {
        if (optional) {
            levels[pageRows] = 1;
        }
        values[pageValues++] = v;
        if (++pageRows == PAGE_ROWS) {
            flushPage();
        }
    }

    /** A null, in an optional column. */
    public void putNull() {
        if (!optional) {
            throw new IllegalStateException("column " + spec.name() + " is required: no null");
        }
        levels[pageRows] = 0;
        chunkNulls++;
        if (++pageRows == PAGE_ROWS) {
            flushPage();
        }
    }

    public void put(boolean v) {
        put(v ? 1 : 0);
    }

    /** {@code v}, or null where it equals {@code nullValue}. */
    public void putOrNull(long v, long nullValue) {
        if (v == nullValue) {
            putNull();
        } else {
            put(v);
        }
    }

    /** {@code src[off .. off+n)}, none null. */
    public void putAll(long[] src, int off, int n) {
        while (n > 0) {
            int k = Math.min(n, PAGE_ROWS - pageRows);
            System.arraycopy(src, off, values, pageValues, k);
            if (optional) {
                Arrays.fill(levels, pageRows, pageRows + k, 1);
            }
            pageValues += k;
            pageRows += k;
            off += k;
            n -= k;
            if (pageRows == PAGE_ROWS) {
                flushPage();
            }
        }
    }

    /** {@code src[off .. off+n)}, a negative value null where {@code negativeIsNull} (the column optional). */
    public void putAll(int[] src, int off, int n, boolean negativeIsNull) {
        if (negativeIsNull && !optional) {
            throw new IllegalStateException("column " + spec.name() + " is required: no null");
        }
        while (n > 0) {
            int k = Math.min(n, PAGE_ROWS - pageRows);
            for (int r = 0; r < k; r++) {
                int v = src[off + r];
                if (negativeIsNull && v < 0) {
                    levels[pageRows + r] = 0;
                    chunkNulls++;
                } else {
                    if (optional) {
                        levels[pageRows + r] = 1;
                    }
                    values[pageValues++] = v;
                }
            }
            pageRows += k;
            off += k;
            n -= k;
            if (pageRows == PAGE_ROWS) {
                flushPage();
            }
        }
    }

    /** {@code n} times {@code v}. */
    public void putRepeated(long v, int n) {
        for (int r = 0; r < n; r++) {
            put(v);
        }
    }

    /** The id of text {@code s} in this (text) column's dictionary, made on first sight; -1 for null. */
    public int intern(String s) {
        if (s == null) {
            return -1;
        }
        Integer id = dictionaryIds.get(s);
        if (id != null) {
            return id;
        }
        if (dictionarySize == dictionary.length) {
            dictionary = Arrays.copyOf(dictionary, dictionarySize * 2);
        }
        dictionary[dictionarySize] = s.getBytes(StandardCharsets.UTF_8);
        dictionaryIds.put(s, dictionarySize);
        return dictionarySize++;
    }

    /** A text (null for a null), through the dictionary while the column keeps one. */
    public void put(String s) {
        if (s == null) {
            putNull();
        } else if (plainText) {
            putText(s.getBytes(StandardCharsets.UTF_8));
        } else {
            put(intern(s));
        }
    }

    /** A text by its {@link #intern} id, -1 for null. */
    public void putId(int id) {
        if (id < 0) {
            putNull();
        } else if (plainText) {
            putText(dictionary[id]);
        } else {
            put(id);
        }
    }

    private void putText(byte[] utf8) {
        if (texts == null) {
            texts = new byte[PAGE_ROWS][];
        }
        texts[pageValues] = utf8;
        put(0);
    }

    /** Encodes the page being filled into the chunk. */
    void flushPage() {
        if (pageRows == 0) {
            return;
        }
        body.clear();
        if (optional) {
            int at = body.size();
            body.intLE(0);
            Encodings.rleHybrid(levels, pageRows, 1, body, scratch);
            body.intLEAt(at, body.size() - at - 4);
        }
        int encoding = PLAIN;
        switch (type) {
            case INT32, INT64 -> {
                for (int i = 0; i < pageValues; i++) {
                    long v = values[i];
                    if (v < min) {
                        min = v;
                    }
                    if (v > max) {
                        max = v;
                    }
                }
                if (pageValues > 0) {
                    encoding = DELTA_BINARY_PACKED;
                    Encodings.deltaBinaryPacked(values, pageValues, type == ParquetWriter.Type.INT32, body, scratch);
                }
            }
            case BOOLEAN -> {
                body.ensure(pageValues / 8 + 1);
                int acc = 0;
                for (int i = 0; i < pageValues; i++) {
                    acc |= (int) (values[i] & 1) << (i & 7);
                    if ((i & 7) == 7) {
                        body.write(acc);
                        acc = 0;
                    }
                }
                if ((pageValues & 7) != 0) {
                    body.write(acc);
                }
            }
            case STRING -> {
                if (pageValues > 0 && !plainText) {
                    encoding = RLE_DICTIONARY;
                    dictionaryUsed = true;
                    int width = Math.max(1, Encodings.bits(dictionarySize - 1));
                    for (int i = 0; i < pageValues; i++) {
                        ids[i] = (int) values[i];
                    }
                    body.write(width);
                    Encodings.rleHybrid(ids, pageValues, width, body, scratch);
                } else {
                    for (int i = 0; i < pageValues; i++) {
                        byte[] b = texts[i];
                        texts[i] = null;
                        body.intLE(b.length);
                        body.write(b, 0, b.length);
                    }
                }
                if (!plainText && dictionarySize > MAX_DICTIONARY) {
                    plainText = true; // from the next page on
                }
            }
        }
        encodings.add(encoding);
        if (optional) {
            encodings.add(RLE);
        }
        header.clear();
        new ThriftCompact(header).beginStruct()
                .i32(1, 0) // DATA_PAGE
                .i32(2, body.size())
                .i32(3, body.size())
                .struct(5)
                .i32(1, pageRows)
                .i32(2, encoding)
                .i32(3, RLE)
                .i32(4, RLE)
                .endStruct()
                .endStruct();
        chunk.write(header);
        chunk.write(body);
        chunkRows += pageRows;
        pageRows = 0;
        pageValues = 0;
    }

    /** Whether the chunk being written has pages coded through the dictionary (then it needs its dictionary page). */
    boolean dictionaryUsed() {
        return dictionaryUsed;
    }

    /** The dictionary page (header and PLAIN body) of every text interned so far, into {@code out}. */
    void dictionaryPage(ByteSink out) {
        body.clear();
        for (int i = 0; i < dictionarySize; i++) {
            byte[] b = dictionary[i];
            body.intLE(b.length);
            body.write(b, 0, b.length);
        }
        header.clear();
        new ThriftCompact(header).beginStruct()
                .i32(1, 2) // DICTIONARY_PAGE
                .i32(2, body.size())
                .i32(3, body.size())
                .struct(7)
                .i32(1, dictionarySize)
                .i32(2, PLAIN)
                .endStruct()
                .endStruct();
        out.write(header);
        out.write(body);
    }

    /** Starts the next row group's chunk. */
    void resetChunk() {
        chunk.clear();
        chunkRows = 0;
        chunkNulls = 0;
        min = Long.MAX_VALUE;
        max = Long.MIN_VALUE;
        encodings.clear();
        dictionaryUsed = false;
    }
}
