package dev.arenascope.core.trace;

import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked reads over a byte range, the counterpart of {@link ByteWriter}. Every read that would
 * run past the range, every varint longer than 10 bytes and every length larger than what remains
 * throws {@link TraceFormatException} naming the offset, so forged input can neither over-read nor
 * make a caller allocate more than the input holds. Not thread-safe.
 */
public final class ByteReader {
    private final byte[] buf;
    private final int end;
    private final long baseOffset;
    private final String source;
    private int pos;

    /**
     * @param buf        the bytes
     * @param off        first byte to read
     * @param len        bytes readable
     * @param source     what the bytes are (a file name), for messages
     * @param baseOffset the offset of {@code buf[off]} in that source, for messages
     */
    public ByteReader(byte[] buf, int off, int len, String source, long baseOffset) {
        if (off < 0 || len < 0 || off + len > buf.length) {
            throw new IllegalArgumentException("range " + off + "+" + len + " outside " + buf.length + " bytes");
        }
        this.buf = buf;
        this.pos = off;
        this.end = off + len;
        this.source = source;
        this.baseOffset = baseOffset - off;
    }

    /** The array read from (positions index it). */
    public byte[] backing() {
        return buf;
    }

    /** What the bytes are (a file name), as given. */
    public String source() {
        return source;
    }

    public int position() {
        return pos;
    }

    public int remaining() {
        return end - pos;
    }

    /** The offset of the next byte in the source (for messages). */
    public long sourceOffset() {
        return baseOffset + pos;
    }

    public TraceFormatException error(String what) {
        return new TraceFormatException(source, sourceOffset(), what);
    }

    private void need(int n) throws TraceFormatException {
        if (end - pos < n) {
            throw error("truncated: needs " + n + " bytes, " + (end - pos) + " left");
        }
    }

    public int u8() throws TraceFormatException {
        need(1);
        return buf[pos++] & 0xff;
    }

    public int u32() throws TraceFormatException {
        need(4);
        int v = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16 | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        return v;
    }

    public long i64() throws TraceFormatException {
        long lo = u32() & 0xffffffffL;
        long hi = u32() & 0xffffffffL;
        return lo | hi << 32;
    }

    public long varint() throws TraceFormatException {
        long v = 0;
        int shift = 0;
        while (true) {
            if (pos >= end) {
                throw error("truncated varint");
            }
            int b = buf[pos++];
            v |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return v;
            }
            shift += 7;
            if (shift > 63) {
                throw error("varint longer than 10 bytes");
            }
        }
    }

    public long svarint() throws TraceFormatException {
        long v = varint();
        return (v >>> 1) ^ -(v & 1);
    }

    /** A varint that must lie in {@code [0, max]}; {@code what} names it in the error. */
    public int count(long max, String what) throws TraceFormatException {
        long start = sourceOffset();
        long v = varint();
        if (v < 0 || v > max) {
            throw new TraceFormatException(source, start, what + " " + Long.toUnsignedString(v) + " out of range (at most " + max + ")");
        }
        return (int) v;
    }

    /** A varint that must be an int; {@code what} names it in the error. */
    public int svarint32(String what) throws TraceFormatException {
        long start = sourceOffset();
        long v = svarint();
        if (v != (int) v) {
            throw new TraceFormatException(source, start, what + " " + v + " is not a 32-bit value");
        }
        return (int) v;
    }

    /** A string written by {@link ByteWriter#string}: varint length + 1 (0 for null), then UTF-8 bytes. */
    public String string() throws TraceFormatException {
        return string(Integer.MAX_VALUE - 1);
    }

    /** As {@link #string()}, refusing a string longer than {@code maxBytes} UTF-8 bytes at its offset. */
    public String string(int maxBytes) throws TraceFormatException {
        long at = sourceOffset();
        int n = count(Integer.MAX_VALUE, "string length");
        if (n == 0) {
            return null;
        }
        if (n - 1 > maxBytes) {
            throw new TraceFormatException(source, at, "string of " + (n - 1) + " bytes (at most " + maxBytes + ")");
        }
        if (n - 1 > remaining()) {
            throw new TraceFormatException(source, at, "string length " + (n - 1) + " exceeds the " + remaining() + " bytes left");
        }
        String s = new String(buf, pos, n - 1, StandardCharsets.UTF_8);
        pos += n - 1;
        return s;
    }

    /** Skips {@code n} bytes. */
    public void skip(int n) throws TraceFormatException {
        need(n);
        pos += n;
    }

    /** A reader over the next {@code n} bytes, advancing past them. */
    public ByteReader slice(int n) throws TraceFormatException {
        need(n);
        ByteReader r = new ByteReader(buf, pos, n, source, baseOffset + pos);
        pos += n;
        return r;
    }
}
