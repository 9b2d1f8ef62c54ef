package dev.arenascope.core.sql.parquet;

/**
 * Parquet's value encodings as this writer uses them: the RLE / bit-packed hybrid (definition levels and
 * dictionary indexes) and DELTA_BINARY_PACKED (every integer column). Stateless; the scratch arrays are
 * the caller's.
 */
final class Encodings {
    private Encodings() {}

    /** Values in a delta block, in a miniblock, and miniblocks a block. */
    static final int BLOCK = 128;
    static final int MINIBLOCK = 32;
    static final int MINIBLOCKS = BLOCK / MINIBLOCK;

    /** Bits needed for {@code v} taken as unsigned (0 for 0). */
    static int bits(long v) {
        return 64 - Long.numberOfLeadingZeros(v);
    }

    /**
     * {@code values[0 .. n)}, each below {@code 2^width}, in the RLE / bit-packed hybrid: a run of at
     * least eight equal values as one RLE run, the rest in bit-packed groups of eight (the last group
     * padded with zeros, which a reader knowing {@code n} ignores). {@code scratch} holds at least 8 longs.
     */
    static void rleHybrid(int[] values, int n, int width, ByteSink out, long[] scratch) {
        int valueBytes = (width + 7) / 8;
        int i = 0;
        while (i < n) {
            int run = runAt(values, i, n, Integer.MAX_VALUE);
            if (run >= 8) {
                out.varint((long) run << 1);
                out.bytesLE(values[i], valueBytes);
                i += run;
                continue;
            }
            // bit-packed groups of eight until a run of eight or more begins at a group's start
            int start = i;
            int groups = 0;
            while (i < n && groups < 63) {
                if (groups > 0 && runAt(values, i, n, 8) >= 8) {
                    break;
                }
                i += 8;
                groups++;
            }
            out.varint((long) groups << 1 | 1);
            for (int g = 0; g < groups; g++) {
                for (int k = 0; k < 8; k++) {
                    int at = start + g * 8 + k;
                    scratch[k] = at < n ? values[at] & 0xffffffffL : 0;
                }
                out.bitPack(scratch, 0, 8, width);
            }
            i = Math.min(i, n);
        }
    }

    /** How many values from {@code i} on equal {@code values[i]}, counting at most {@code max}. */
    private static int runAt(int[] values, int i, int n, int max) {
        int v = values[i];
        int j = i + 1;
        int end = (int) Math.min(n, (long) i + max);
        while (j < end && values[j] == v) {
            j++;
        }
        return j - i;
    }

    /**
     * {@code values[0 .. n)} in DELTA_BINARY_PACKED: blocks of 128 deltas in four miniblocks of 32, each
     * miniblock packed at the width of its largest delta over the block's smallest. {@code int32}: the
     * deltas wrap at 32 bits, as a reader of an INT32 column adds them. {@code deltas} is scratch of at
     * least {@value #BLOCK} longs. A miniblock past the last value has width 0 and no bytes.
     */
    static void deltaBinaryPacked(long[] values, int n, boolean int32, ByteSink out, long[] deltas) {
        out.varint(BLOCK);
        out.varint(MINIBLOCKS);
        out.varint(n);
        out.zigzag(n == 0 ? 0 : values[0]);
        for (int at = 1; at < n; at += BLOCK) {
            int m = Math.min(BLOCK, n - at);
            long min = Long.MAX_VALUE;
            for (int k = 0; k < m; k++) {
                long d = values[at + k] - values[at + k - 1];
                if (int32) {
                    d = (int) d;
                }
                deltas[k] = d;
                if (d < min) {
                    min = d;
                }
            }
            out.zigzag(min);
            int[] widths = new int[MINIBLOCKS];
            for (int k = 0; k < m; k++) {
                long x = deltas[k] - min;
                if (int32) {
                    x &= 0xffffffffL;
                }
                deltas[k] = x;
            }
            for (int b = 0; b < MINIBLOCKS; b++) {
                long or = 0;
                for (int k = b * MINIBLOCK, end = Math.min(m, k + MINIBLOCK); k < end; k++) {
                    or |= deltas[k];
                }
                widths[b] = bits(or);
                out.write(widths[b]);
            }
            for (int k = m; k < BLOCK; k++) {
                deltas[k] = 0;
            }
            for (int b = 0; b * MINIBLOCK < m; b++) {
                out.bitPack(deltas, b * MINIBLOCK, MINIBLOCK, widths[b]);
            }
        }
    }
}
