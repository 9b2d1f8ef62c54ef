package dev.arenascope.core.sql.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growable byte buffer with the writes Parquet's encodings need: little-endian fixed widths, ULEB128
 * varints and zigzag varints (the Thrift compact protocol's and the delta encoding's). Not thread-safe.
 */
final class ByteSink {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf;
    private int size;

    ByteSink(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    int size() {
        return size;
    }

    void clear() {
        size = 0;
    }

    /** Room for {@code more} bytes past the end. */
    void ensure(int more) {
        if (size + more > buf.length) {
            long cap = Math.max((long) buf.length * 2, (long) size + more);
            if (cap > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a Parquet page or column chunk passed 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) cap);
        }
    }

    void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    void write(ByteSink other) {
        write(other.buf, 0, other.size);
    }

    void intLE(int v) {
        ensure(4);
        INT_LE.set(buf, size, v);
        size += 4;
    }

    /** Overwrites the four bytes at {@code at} (a length written before its content). */
    void intLEAt(int at, int v) {
        INT_LE.set(buf, at, v);
    }

    void longLE(long v) {
        ensure(8);
        LONG_LE.set(buf, size, v);
        size += 8;
    }

    /** The low {@code bytes} bytes of {@code v}, little-endian. */
    void bytesLE(long v, int bytes) {
        ensure(bytes);
        for (int i = 0; i < bytes; i++) {
            buf[size++] = (byte) (v >>> (8 * i));
        }
    }

    /** ULEB128 of {@code v} taken as unsigned. */
    void varint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    void zigzag(long v) {
        varint((v << 1) ^ (v >> 63));
    }

    /**
     * {@code count} values of {@code values[from ..]} (each taken as unsigned, at most {@code width}
     * bits), bit-packed least significant bit first, as Parquet packs them; {@code count * width} must
     * be a multiple of 8.
     */
    void bitPack(long[] values, int from, int count, int width) {
        if (width == 0) {
            return;
        }
        ensure(count * width / 8 + 8);
        long acc = 0;
        int bits = 0;
        long mask = width == 64 ? -1L : (1L << width) - 1;
        for (int i = 0; i < count; i++) {
            long x = values[from + i] & mask;
            acc |= x << bits;
            int used = 64 - bits;
            if (width >= used) {
                LONG_LE.set(buf, size, acc);
                size += 8;
                acc = used == 64 ? 0 : x >>> used;
                bits = width - used;
            } else {
                bits += width;
            }
        }
        while (bits > 0) {
            buf[size++] = (byte) acc;
            acc >>>= 8;
            bits -= 8;
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    void writeTo(OutputStream out) throws IOException {
        out.write(buf, 0, size);
    }
}
