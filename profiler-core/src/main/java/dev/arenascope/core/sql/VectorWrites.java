package dev.arenascope.core.sql;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;

import org.duckdb.DuckDBWritableVector;

/**
 * Writes a run of numbers into a DuckDB vector at once. The driver's own setters check the row and the
 * type and take a lock on the validity mask for every value (about 0.2 µs a value on the 2-core build
 * machine: 8 s of CPU for the 49 M values of a million-allocation snapshot's tables); here a column's
 * chunk is one bulk copy into the vector's data buffer and its validity words are written 64 rows at a
 * time. The buffers are the driver's private fields, reached by reflection on the class path; where
 * that fails (a driver that changed them), every write falls back to the public setters, same result.
 *
 * <p>Only for the one thread that fills a chunk (DuckDB calls a table function's {@code apply} on one
 * thread at a time here: {@code setMaxThreads(1)}).
 */
final class VectorWrites {
    private VectorWrites() {}

    private static final Field DATA;
    private static final Field VALIDITY;

    static {
        Field data = null;
        Field validity = null;
        try {
            data = DuckDBWritableVector.class.getDeclaredField("data");
            validity = DuckDBWritableVector.class.getDeclaredField("validity");
            data.setAccessible(true);
            validity.setAccessible(true);
            if (data.getType() != ByteBuffer.class || validity.getType() != ByteBuffer.class) {
                data = null;
                validity = null;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            data = null;
            validity = null;
        }
        DATA = data;
        VALIDITY = validity;
    }

    /** Whether the bulk path is in use (false: the driver's setters). */
    static boolean bulk() {
        return DATA != null;
    }

    private static ByteBuffer buffer(Field f, DuckDBWritableVector v) {
        try {
            ByteBuffer b = (ByteBuffer) f.get(v);
            return b == null ? null : b.duplicate().order(ByteOrder.nativeOrder());
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    /**
     * Rows {@code 0 .. rows-1} of {@code v} (a BIGINT or INTEGER vector) from {@code values[from ..]},
     * a value equal to {@code nullValue} written as NULL.
     */
    static void numbers(DuckDBWritableVector v, boolean bigint, long[] values, int from, int rows, long nullValue) {
        ByteBuffer data = DATA == null ? null : buffer(DATA, v);
        ByteBuffer validity = data == null ? null : buffer(VALIDITY, v);
        if (data == null || validity == null || data.capacity() < rows * (bigint ? 8 : 4)) {
            for (int r = 0; r < rows; r++) {
                long x = values[from + r];
                if (x == nullValue) {
                    v.setNull(r);
                } else if (bigint) {
                    v.setLong(r, x);
                } else {
                    v.setInt(r, (int) x);
                }
            }
            return;
        }
        if (bigint) {
            data.asLongBuffer().put(values, from, rows);
        } else {
            IntBuffer ints = data.asIntBuffer();
            for (int r = 0; r < rows; r++) {
                ints.put(r, (int) values[from + r]);
            }
        }
        for (int w = 0; w * 64 < rows; w++) {
            long word = 0;
            for (int r = w * 64, end = Math.min(rows, r + 64); r < end; r++) {
                if (values[from + r] != nullValue) {
                    word |= 1L << (r - w * 64);
                }
            }
            validity.putLong(w * 8, word);
        }
    }

    /** Rows {@code 0 .. rows-1} of the BIGINT vector {@code v}: {@code values[from ..]}, none NULL; one bulk copy. */
    static void longs(DuckDBWritableVector v, long[] values, int from, int rows) {
        ByteBuffer data = DATA == null ? null : buffer(DATA, v);
        ByteBuffer validity = data == null ? null : buffer(VALIDITY, v);
        if (data == null || validity == null || data.capacity() < rows * 8) {
            for (int r = 0; r < rows; r++) {
                v.setLong(r, values[from + r]);
            }
            return;
        }
        data.asLongBuffer().put(values, from, rows);
        allValid(validity, rows);
    }

    /**
     * Rows {@code 0 .. rows-1} of the INTEGER vector {@code v}: {@code values[from ..]}, a negative value
     * written as NULL where {@code negativeIsNull}; {@code values} null: every row NULL.
     */
    static void ints(DuckDBWritableVector v, int[] values, int from, int rows, boolean negativeIsNull) {
        ByteBuffer data = DATA == null ? null : buffer(DATA, v);
        ByteBuffer validity = data == null ? null : buffer(VALIDITY, v);
        if (data == null || validity == null || data.capacity() < rows * 4) {
            for (int r = 0; r < rows; r++) {
                if (values == null || negativeIsNull && values[from + r] < 0) {
                    v.setNull(r);
                } else {
                    v.setInt(r, values[from + r]);
                }
            }
            return;
        }
        if (values == null) {
            for (int w = 0; w * 64 < rows; w++) {
                validity.putLong(w * 8, 0L);
            }
            return;
        }
        data.asIntBuffer().put(values, from, rows);
        if (!negativeIsNull) {
            allValid(validity, rows);
            return;
        }
        for (int w = 0; w * 64 < rows; w++) {
            long word = 0;
            for (int r = w * 64, end = Math.min(rows, r + 64); r < end; r++) {
                // bit r%64 set when the value is not negative: its sign bit, flipped, moved there
                word |= ((long) (~values[from + r] >>> 31)) << (r - w * 64);
            }
            validity.putLong(w * 8, word);
        }
    }

    /** Rows {@code 0 .. rows-1} of the INTEGER vector {@code v}, each {@code value}. */
    static void constant(DuckDBWritableVector v, int value, int rows, int[] scratch) {
        java.util.Arrays.fill(scratch, 0, rows, value);
        ints(v, scratch, 0, rows, false);
    }

    /** Rows {@code 0 .. rows-1} of the BIGINT vector {@code v}: {@code first, first + 1, ...}. */
    static void sequence(DuckDBWritableVector v, long first, int rows, long[] scratch) {
        for (int r = 0; r < rows; r++) {
            scratch[r] = first + r;
        }
        longs(v, scratch, 0, rows);
    }

    /** Sets the validity bits of rows {@code 0 .. rows-1}. */
    private static void allValid(ByteBuffer validity, int rows) {
        for (int w = 0; w * 64 < rows; w++) {
            int n = Math.min(64, rows - w * 64);
            validity.putLong(w * 8, n == 64 ? -1L : (1L << n) - 1);
        }
    }

    /** Rows {@code 0 .. rows-1} of the BOOLEAN vector {@code v}: {@code values[from + r] != 0}. */
    static void booleans(DuckDBWritableVector v, long[] values, int from, int rows) {
        ByteBuffer data = DATA == null ? null : buffer(DATA, v);
        ByteBuffer validity = data == null ? null : buffer(VALIDITY, v);
        if (data == null || validity == null || data.capacity() < rows) {
            for (int r = 0; r < rows; r++) {
                v.setBoolean(r, values[from + r] != 0);
            }
            return;
        }
        for (int r = 0; r < rows; r++) {
            data.put(r, values[from + r] != 0 ? (byte) 1 : (byte) 0);
        }
        for (int w = 0; w * 64 < rows; w++) {
            int n = Math.min(64, rows - w * 64);
            validity.putLong(w * 8, n == 64 ? -1L : (1L << n) - 1);
        }
    }

    /**
     * Rows {@code 0 .. rows-1} of the VARCHAR vector {@code v}: {@code utf8[r]}, NULL where it is null. One
     * call into the driver for the chunk rather than one a value.
     */
    static void texts(DuckDBWritableVector v, byte[][] utf8, int rows) {
        byte[][] batch = utf8.length == rows ? utf8 : java.util.Arrays.copyOf(utf8, rows);
        v.setStringUtf8Batch(0, batch);
    }
}
