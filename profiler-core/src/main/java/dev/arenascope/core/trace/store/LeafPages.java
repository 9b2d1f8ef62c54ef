package dev.arenascope.core.trace.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The leaf codec of a {@link GaugeIndex}: full leaves bit-packed into 64 KiB pages, and a
 * {@link Cursor} that reads any event of a packed leaf with one shift and mask.
 *
 * <p>A packed leaf is three width bytes, then each event's time less the leaf's first time, used
 * less the leaf's used minimum and aux less the leaf's aux minimum (all unsigned), each column
 * bit-packed at its own width (0..56 bits, or 64, so one 8-byte read holds any value). A leaf never
 * straddles two pages; the first page starts small and doubles, so a memory with few events costs
 * little. Not thread-safe: written under the store's write lock, read under its read lock.
 */
final class LeafPages {
    private static final int PAGE_SHIFT = 16;
    private static final int PAGE = 1 << PAGE_SHIFT;
    /** A packed leaf's most bytes: widths, three columns of 8 bytes a value, 8 bytes of read slack. */
    private static final int LEAF_MAX_BYTES = 3 + 3 * 8 * GaugeIndex.LEAF_EVENTS + 8;
    private static final VarHandle LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final LongColumn byteOff = new LongColumn(); // per packed leaf: where it starts
    private byte[][] pages = new byte[4][];
    private long bytePos;

    /**
     * Packs the next leaf: events {@code [0, n)} of the three columns, stored against {@code t0},
     * {@code uMin} and {@code xMin} (which the caller keeps and passes back to {@link Cursor#select}).
     */
    void pack(long[] t, long[] u, long[] x, int n, long t0, long uMin, long xMin) {
        long orT = 0;
        long orU = 0;
        long orX = 0;
        for (int k = 0; k < n; k++) {
            orT |= t[k] - t0;
            orU |= u[k] - uMin;
            orX |= x[k] - xMin;
        }
        int wt = width(orT);
        int wu = width(orU);
        int wx = width(orX);
        int page = (int) (bytePos >>> PAGE_SHIFT);
        int within = (int) (bytePos & (PAGE - 1));
        if (page < pages.length && pages[page] != null && PAGE - within < LEAF_MAX_BYTES) {
            page++;
            within = 0;
            bytePos = (long) page << PAGE_SHIFT;
        }
        if (page >= pages.length) {
            pages = Arrays.copyOf(pages, Math.max(page + 1, pages.length * 2));
        }
        if (pages[page] == null) {
            pages[page] = new byte[page == 0 ? 2 * LEAF_MAX_BYTES : PAGE];
        }
        if (pages[page].length < within + LEAF_MAX_BYTES) {
            pages[page] = Arrays.copyOf(pages[page], Math.min(PAGE, Math.max(pages[page].length * 2, within + LEAF_MAX_BYTES)));
        }
        byte[] p = pages[page];
        byteOff.add(bytePos);
        p[within] = (byte) wt;
        p[within + 1] = (byte) wu;
        p[within + 2] = (byte) wx;
        int at = within + 3;
        at = putBits(p, at, wt, t, t0, n);
        at = putBits(p, at, wu, u, uMin, n);
        at = putBits(p, at, wx, x, xMin, n);
        bytePos = ((long) page << PAGE_SHIFT) + at;
    }

    /** Bits to hold every value OR-ed into {@code or}: 0..56, or 64 (so one 8-byte read holds any value). */
    private static int width(long or) {
        int w = 64 - Long.numberOfLeadingZeros(or);
        return w > 56 ? 64 : w;
    }

    /**
     * Packs {@code v[k] - base} for {@code k < n}, {@code w} bits each, from byte {@code at}, least
     * significant bits first. Bits gather in a register and go out eight bytes at a time; the last word
     * may write up to seven zero bytes past the column's end, which the next column then overwrites
     * (and {@link #LEAF_MAX_BYTES} leaves room for after the last).
     *
     * @return the byte just past the column ({@code at + ceil(n·w / 8)})
     */
    private static int putBits(byte[] p, int at, int w, long[] v, long base, int n) {
        if (w == 0) {
            return at;
        }
        long acc = 0;
        int bits = 0;
        int out = at;
        for (int k = 0; k < n; k++) {
            long x = v[k] - base;
            acc |= x << bits;
            bits += w;
            if (bits >= 64) {
                LE.set(p, out, acc);
                out += 8;
                bits -= 64;
                acc = bits == 0 ? 0 : x >>> (w - bits);
            }
        }
        if (bits > 0) {
            LE.set(p, out, acc);
        }
        return at + (int) (((long) n * w + 7) >>> 3);
    }

    /** Bytes the pages and offsets take. */
    long bytes() {
        long n = byteOff.bytes() + 16 + pages.length * 8L;
        for (byte[] p : pages) {
            if (p != null) {
                n += 16 + p.length;
            }
        }
        return n;
    }

    /** Reads the events of one packed leaf at a time. Not thread-safe (one per query). */
    final class Cursor {
        private byte[] sp;
        private int colT;
        private int colU;
        private int colX;
        private int wT;
        private int wU;
        private int wX;
        private long mT;
        private long mU;
        private long mX;
        private long baseT;
        private long baseU;
        private long baseX;

        /** Selects packed leaf {@code leaf} of {@code n} events, packed against these bases. */
        void select(long leaf, int n, long t0, long uMin, long xMin) {
            long off = byteOff.get(leaf);
            sp = pages[(int) (off >>> PAGE_SHIFT)];
            int at = (int) (off & (PAGE - 1));
            wT = sp[at];
            wU = sp[at + 1];
            wX = sp[at + 2];
            colT = at + 3;
            colU = colT + (int) (((long) n * wT + 7) >>> 3);
            colX = colU + (int) (((long) n * wU + 7) >>> 3);
            mT = mask(wT);
            mU = mask(wU);
            mX = mask(wX);
            baseT = t0;
            baseU = uMin;
            baseX = xMin;
        }

        private static long mask(int w) {
            return w == 64 ? -1L : (1L << w) - 1;
        }

        private static long field(byte[] p, int col, int w, long mask, int k) {
            long bit = (long) k * w;
            return ((long) LE.get(p, col + (int) (bit >>> 3)) >>> (bit & 7)) & mask;
        }

        long time(int k) {
            return baseT + field(sp, colT, wT, mT, k);
        }

        long used(int k) {
            return baseU + field(sp, colU, wU, mU, k);
        }

        long aux(int k) {
            return baseX + field(sp, colX, wX, mX, k);
        }
    }
}
