package dev.arenascope.core.trace.codec;

import static dev.arenascope.core.trace.codec.Varints.HIGH_BITS;
import static dev.arenascope.core.trace.codec.Varints.LE;

import dev.arenascope.core.trace.TraceFormatException;

/**
 * Reading runs of LEB128 varints out of the event columns of a decompressed chunk: the decoder's
 * innermost loops. A column {@code k} spans {@code [start[k], start[k + 1])} of {@code buf}; positions
 * in {@code pos} advance as values are read. Every read stays inside its column: a varint that runs
 * past the column's end, or past 10 bytes, throws {@link TraceFormatException} at its source offset
 * ({@code base + position}). Static and thread-safe.
 */
final class ColumnReader {
    private ColumnReader() {
    }

    /**
     * The value of a varint whose bytes start {@code w} (little-endian), given {@code tz}, the bit
     * index of its last byte's high bit: the 7-bit groups gathered with three shift-and-mask steps.
     */
    private static long gather(long w, int tz) {
        long x = w & (-1L >>> (63 - tz));
        x = (x & 0x007f007f007f007fL) | (x >>> 1 & 0x3f803f803f803f80L);
        x = (x & 0x00003fff00003fffL) | (x >>> 2 & 0x0fffc0000fffc000L);
        return (x & 0x000000000fffffffL) | (x >>> 4 & 0x00fffffff0000000L);
    }

    /**
     * Reads {@code m} varints of each of the four columns {@code k0 .. k3}, from {@code pos[k]} (which
     * advance), into {@code d0 .. d3} from index {@code off}. A varint's length depends on where the
     * previous one ended, so one column decodes at the speed of that chain of loads; reading four
     * columns in one loop runs four chains side by side. Each value is gathered branch-free from an
     * 8-byte read; the loop stops short of each column's last 8 bytes (and at any varint longer than 8
     * bytes), and {@link #readColumn} finishes byte by byte. For columns whose values take several
     * bytes. {@code first} is the first value's event index, for messages.
     */
    static void readColumns(byte[] buf, int[] pos, int[] start, int k0, int k1, int k2, int k3,
                            long[] d0, long[] d1, long[] d2, long[] d3, int off, int m, int first,
                            String source, long base) throws TraceFormatException {
        int p0 = pos[k0];
        int p1 = pos[k1];
        int p2 = pos[k2];
        int p3 = pos[k3];
        int f0 = start[k0 + 1] - 8;
        int f1 = start[k1 + 1] - 8;
        int f2 = start[k2 + 1] - 8;
        int f3 = start[k3 + 1] - 8;
        int i = 0;
        for (; i < m && p0 <= f0 && p1 <= f1 && p2 <= f2 && p3 <= f3; i++) {
            long w0 = (long) LE.get(buf, p0);
            long s0 = ~w0 & HIGH_BITS;
            long w1 = (long) LE.get(buf, p1);
            long s1 = ~w1 & HIGH_BITS;
            long w2 = (long) LE.get(buf, p2);
            long s2 = ~w2 & HIGH_BITS;
            long w3 = (long) LE.get(buf, p3);
            long s3 = ~w3 & HIGH_BITS;
            if (s0 == 0 | s1 == 0 | s2 == 0 | s3 == 0) {
                break;
            }
            int t0 = Long.numberOfTrailingZeros(s0);
            int t1 = Long.numberOfTrailingZeros(s1);
            int t2 = Long.numberOfTrailingZeros(s2);
            int t3 = Long.numberOfTrailingZeros(s3);
            d0[off + i] = gather(w0, t0);
            d1[off + i] = gather(w1, t1);
            d2[off + i] = gather(w2, t2);
            d3[off + i] = gather(w3, t3);
            p0 += (t0 + 1) >>> 3;
            p1 += (t1 + 1) >>> 3;
            p2 += (t2 + 1) >>> 3;
            p3 += (t3 + 1) >>> 3;
        }
        pos[k0] = readColumn(buf, p0, start[k0 + 1], k0, d0, off, i, m, first, source, base);
        pos[k1] = readColumn(buf, p1, start[k1 + 1], k1, d1, off, i, m, first, source, base);
        pos[k2] = readColumn(buf, p2, start[k2 + 1], k2, d2, off, i, m, first, source, base);
        pos[k3] = readColumn(buf, p3, start[k3 + 1], k3, d3, off, i, m, first, source, base);
    }

    /** Reads {@code m} values of column {@code k} from {@code pos[k]} (which advances) into {@code dst} from {@code off}. */
    static void readColumn(byte[] buf, int[] pos, int[] start, int k, long[] dst, int off, int m, int first,
                           String source, long base) throws TraceFormatException {
        pos[k] = readColumn(buf, pos[k], start[k + 1], k, dst, off, 0, m, first, source, base);
    }

    /**
     * Reads values {@code [i, m)} of column {@code k} (which ends at {@code end}) from {@code p} into
     * {@code dst} from index {@code off + i}, and returns where it stopped. A value of one byte (what
     * most columns hold) takes a predicted branch; longer ones are gathered branch-free.
     */
    private static int readColumn(byte[] buf, int p, int end, int k, long[] dst, int off, int i, int m, int first,
                                  String source, long base) throws TraceFormatException {
        int fastEnd = end - 8;
        while (i < m) {
            if (p <= fastEnd) {
                long w = (long) LE.get(buf, p);
                if ((w & 0x80) == 0) {
                    dst[off + i++] = w & 0x7f; // most values of most columns: a single byte
                    p++;
                    continue;
                }
                long stop = ~w & HIGH_BITS;
                if (stop != 0) {
                    int tz = Long.numberOfTrailingZeros(stop);
                    dst[off + i++] = gather(w, tz);
                    p += (tz + 1) >>> 3;
                    continue;
                }
            }
            // near the column's end, or a varint of 9 or 10 bytes: byte by byte
            if (p >= end) {
                throw new TraceFormatException(source, base + p, "column " + k + ": truncated varint (event " + (first + i) + ")");
            }
            long x = buf[p++];
            if (x < 0) {
                x &= 0x7f;
                for (int shift = 7; ; shift += 7) {
                    if (shift > 63) {
                        throw new TraceFormatException(source, base + p, "column " + k + ": varint longer than 10 bytes");
                    }
                    if (p >= end) {
                        throw new TraceFormatException(source, base + p, "column " + k + ": truncated varint (event " + (first + i) + ")");
                    }
                    long y = buf[p++];
                    x |= (y & 0x7f) << shift;
                    if (y >= 0) {
                        break;
                    }
                }
            }
            dst[off + i++] = x;
        }
        return p;
    }

    /** Checks that every one of the first {@code columns} columns was read to its end. */
    static void checkEnds(int[] pos, int[] start, int columns, int n, String source, long base) throws TraceFormatException {
        for (int k = 0; k < columns; k++) {
            if (pos[k] != start[k + 1]) {
                throw new TraceFormatException(source, base + pos[k], "column " + k + " has " + (start[k + 1] - pos[k])
                        + " bytes left after " + n + " events");
            }
        }
    }

    /**
     * An error about value {@code i} of column {@code k}, at that value's byte offset (found by
     * rescanning; only values already read are rescanned, so they are well formed).
     */
    static TraceFormatException valueError(byte[] buf, int[] start, int k, int i, String source, long base, String what) {
        int p = start[k];
        for (int j = 0; j < i; j++) {
            while (buf[p++] < 0) {
                // skip the varint
            }
        }
        return new TraceFormatException(source, base + p, what);
    }
}
