package dev.arenascope.core.trace.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Writing LEB128 varints into a plain {@code byte[]} at speed, and zigzag mapping: the primitives of
 * the event columns ({@link EventEncoder} writes them, {@link ColumnReader} reads them back). All
 * methods are static and thread-safe; the caller guarantees room (8 bytes from the write position,
 * 10 a value in all).
 */
final class Varints {
    /** Little-endian 8-byte view of a {@code byte[]}: the branch-free writers and readers use it. */
    static final VarHandle LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** The continuation bit of each byte of a little-endian 8-byte word. */
    static final long HIGH_BITS = 0x8080808080808080L;

    /** Bytes of a varint by the bit length of its value (0..64). */
    private static final int[] VARINT_BYTES = new int[65];

    static {
        for (int bits = 0; bits <= 64; bits++) {
            VARINT_BYTES[bits] = Math.max(1, (bits + 6) / 7);
        }
    }

    private Varints() {
    }

    /**
     * Writes {@code v} as an unsigned LEB128 varint at {@code p} and returns the position after it.
     * Values below 2^56 (all but the rarest) take a branch-free path: the seven-bit groups are spread
     * to bytes with three shift-and-mask steps, the continuation bits come from the length, and one
     * 8-byte store writes it, so {@code b} must have 8 bytes of room from {@code p} (the encoder keeps
     * 10 a value).
     */
    static int uv(byte[] b, int p, long v) {
        if ((v & ~0x7FL) == 0) {
            b[p] = (byte) v; // most values of most columns: a single byte
            return p + 1;
        }
        if (v >>> 56 != 0) {
            return uvLong(b, p, v);
        }
        // spread 28-bit halves to 32-bit lanes, then 14-bit quarters to 16-bit lanes, then 7-bit groups to bytes
        long x = (v & 0x0fffffffL) | (v << 4 & 0x0fffffff00000000L);
        x = (x & 0x00003fff00003fffL) | (x << 2 & 0x3fff00003fff0000L);
        x = (x & 0x007f007f007f007fL) | (x << 1 & 0x7f007f007f007f00L);
        int nb = VARINT_BYTES[64 - Long.numberOfLeadingZeros(v)];
        LE.set(b, p, x | (HIGH_BITS & ((1L << ((nb - 1) << 3)) - 1)));
        return p + nb;
    }

    private static int uvLong(byte[] b, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    /** Writes {@code v} zigzag-mapped (small magnitudes, either sign, take few bytes). */
    static int zz(byte[] b, int p, long v) {
        return uv(b, p, (v << 1) ^ (v >> 63));
    }

    /** The inverse of the zigzag mapping of {@link #zz}. */
    static long unzz(long v) {
        return (v >>> 1) ^ -(v & 1);
    }
}
