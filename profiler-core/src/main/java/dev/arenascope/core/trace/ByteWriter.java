package dev.arenascope.core.trace;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable little-endian byte buffer with LEB128 varints and zigzag signed varints, the building
 * block of the trace encodings. Not thread-safe; reuse it with {@link #clear()}.
 */
public final class ByteWriter {
    private byte[] buf;
    private int size;

    public ByteWriter() {
        this(256);
    }

    public ByteWriter(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    public int size() {
        return size;
    }

    public void clear() {
        size = 0;
    }

    /** The backing array; bytes {@code 0 .. size()-1} are valid until the next write. */
    public byte[] array() {
        return buf;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    /** Makes room for {@code total} bytes in all (the size is unchanged). */
    public void ensureCapacity(int total) {
        if (total > buf.length) {
            ensure(total - size);
        }
    }

    /** Sets the size after bytes were written directly into {@link #array()}. */
    public void setSize(int newSize) {
        if (newSize < 0 || newSize > buf.length) {
            throw new IllegalArgumentException("size " + newSize + " outside capacity " + buf.length);
        }
        size = newSize;
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            long want = Math.max((long) buf.length * 2, (long) size + more);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("byte buffer past 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) want);
        }
    }

    public void u8(int v) {
        ensure(1);
        buf[size++] = (byte) v;
    }

    public void u32(int v) {
        ensure(4);
        buf[size] = (byte) v;
        buf[size + 1] = (byte) (v >>> 8);
        buf[size + 2] = (byte) (v >>> 16);
        buf[size + 3] = (byte) (v >>> 24);
        size += 4;
    }

    public void i64(long v) {
        u32((int) v);
        u32((int) (v >>> 32));
    }

    /** An unsigned LEB128 varint (1 to 10 bytes). */
    public void varint(long v) {
        ensure(10);
        byte[] b = buf;
        int p = size;
        while ((v & ~0x7FL) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        size = p;
    }

    /** A signed value as a zigzag varint: small magnitudes of either sign take few bytes. */
    public void svarint(long v) {
        varint((v << 1) ^ (v >> 63));
    }

    public void bytes(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, buf, size, len);
        size += len;
    }

    /** A UTF-8 string as a varint byte length then the bytes; null is written as length 0 with flag. */
    public void string(String s) {
        if (s == null) {
            varint(0);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        varint(b.length + 1L);
        bytes(b, 0, b.length);
    }

    /** Overwrites 4 bytes at {@code pos} (for lengths patched after the fact). */
    public void putU32(int pos, int v) {
        buf[pos] = (byte) v;
        buf[pos + 1] = (byte) (v >>> 8);
        buf[pos + 2] = (byte) (v >>> 16);
        buf[pos + 3] = (byte) (v >>> 24);
    }
}
