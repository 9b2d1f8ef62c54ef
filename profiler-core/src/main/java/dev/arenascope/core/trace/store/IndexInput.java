package dev.arenascope.core.trace.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads a saved store index (see {@link OutOfCoreStore#writeIndex}) from bytes whose checksum the
 * caller has already checked. Every count is checked against the bytes left before anything is
 * allocated, so a forged index cannot claim more than it holds; what does not fit throws
 * {@link DamagedIndexException}. Not thread-safe.
 */
final class IndexInput {
    private final ByteBuffer buf;

    IndexInput(byte[] bytes, int off, int len) {
        buf = ByteBuffer.wrap(bytes, off, len).slice().order(ByteOrder.BIG_ENDIAN);
    }

    long i64() {
        need(8);
        return buf.getLong();
    }

    int i32() {
        need(4);
        return buf.getInt();
    }

    boolean bool() {
        need(1);
        return buf.get() != 0;
    }

    /** A count of items of at least {@code bytesEach} bytes, checked against what is left. */
    int count(int bytesEach) {
        long n = i64();
        if (n < 0 || n > buf.remaining() / Math.max(1, bytesEach)) {
            throw new DamagedIndexException("a count of " + n + " at byte " + (buf.position() - 8) + " does not fit the " + buf.remaining() + " bytes left");
        }
        return (int) n;
    }

    /** {@code n} raw bytes. */
    byte[] bytes(int n) {
        need(n);
        byte[] b = new byte[n];
        buf.get(b);
        return b;
    }

    int remaining() {
        return buf.remaining();
    }

    private void need(int n) {
        if (buf.remaining() < n) {
            throw new DamagedIndexException("ends at byte " + buf.position() + " where " + n + " more bytes were expected");
        }
    }

    /** A saved index that does not read back as one (the caller rebuilds it from the trace). */
    static final class DamagedIndexException extends RuntimeException {
        DamagedIndexException(String what) {
            super(what);
        }
    }
}
