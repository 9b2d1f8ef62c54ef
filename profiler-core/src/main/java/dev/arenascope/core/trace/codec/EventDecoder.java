package dev.arenascope.core.trace.codec;

import static dev.arenascope.core.trace.codec.ColumnReader.readColumn;
import static dev.arenascope.core.trace.codec.ColumnReader.readColumns;
import static dev.arenascope.core.trace.codec.ColumnReader.valueError;
import static dev.arenascope.core.trace.codec.Predictor.A_NEXT;
import static dev.arenascope.core.trace.codec.Predictor.C_MASK;
import static dev.arenascope.core.trace.codec.Predictor.KNOWN_KIND;
import static dev.arenascope.core.trace.codec.Predictor.MAX_MEMORY_SLOT;
import static dev.arenascope.core.trace.codec.Predictor.USED_SIGN;
import static dev.arenascope.core.trace.codec.Varints.unzz;

import dev.arenascope.core.trace.ByteReader;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.TraceFormatException;

/**
 * Decodes an events block of any {@link EventLayout} into an {@link EventBatch}, with one loop for
 * all layouts. The block is read a slice of {@link #SLICE} events at a time, so what one pass writes
 * the next reads from the cache: first the varints of the time and value columns (straight into the
 * batch's arrays, four columns side by side where values take several bytes), then the layout's
 * identity step fills each event's packed kind/flags/memory word and thread, then one pass undoes the
 * deltas and predictions, which are the same for every layout.
 *
 * <p>Bad input: every count and length is checked against the bytes present before anything is
 * allocated (each event takes at least one byte in every column); a bad value throws
 * {@link TraceFormatException} at its byte offset. Not thread-safe: one decoder per thread (it reuses
 * its scratch arrays).
 */
final class EventDecoder {
    /** Events decoded a slice at a time: the slice's values stay in the cache between passes. */
    static final int SLICE = 2048;

    private final Predictor predictor = new Predictor();
    // per slice: the identity columns (up to 3) and ref, ref2, before they are checked to fit an int
    private final long[][] scratch = {new long[SLICE], new long[SLICE], new long[SLICE], new long[SLICE], new long[SLICE],
            new long[SLICE], new long[SLICE]};
    // the block's sites and categories (layouts with site columns), set on the batch after its events
    private int[] siteOf = new int[0];
    private int[] categoryOf = new int[0];
    // the shape table of the block being decoded (layouts with one)
    private int[] shapePacked = new int[64];
    private int[] shapeThread = new int[64];
    private int shapes;
    private int shapesMaxSlot;
    // layout 1's running memory slot and thread (zigzag deltas across the whole block)
    private long runningSlot;
    private long runningThread;

    /**
     * Reads an events block of {@code layout} and appends its events to {@code out}: varint event
     * count, the shape table (layouts with one), one varint length a column, the columns.
     */
    void decode(ByteReader r, EventBatch out, EventLayout layout) throws TraceFormatException {
        predictor.reset();
        int n = r.count(Math.min(ChunkCodec.MAX_EVENTS, r.remaining()), "event count");
        if (layout.hasShapeTable()) {
            readShapes(r, n);
        }
        int columns = layout.columns();
        boolean sites = false;
        if (layout.hasOptionalSites()) {
            long at = r.sourceOffset();
            int present = r.count(layout.trailingColumns(), "site column count");
            if (present != 0 && present != layout.trailingColumns()) {
                throw new TraceFormatException(r.source(), at, "site column count " + present + " (0 or " + layout.trailingColumns() + ")");
            }
            sites = present != 0;
            columns -= layout.trailingColumns() - present;
        }
        int[] colStart = new int[columns + 1];
        long total = 0;
        for (int k = 0; k < columns; k++) {
            int len = r.count(r.remaining(), "column length");
            colStart[k + 1] = len;
            total += len;
        }
        if (total > r.remaining()) {
            throw r.error("columns claim " + total + " bytes, " + r.remaining() + " left");
        }
        if (total < (long) n * columns) {
            throw r.error(n + " events need at least " + (long) n * columns + " column bytes, the columns hold " + total);
        }
        if (layout.hasShapeTable() && n > 0 && shapes == 0) {
            throw r.error(n + " events and no shapes");
        }
        byte[] buf = r.backing();
        long base = r.sourceOffset() - r.position(); // source offset of buf[0]
        colStart[0] = r.position();
        for (int k = 0; k < columns; k++) {
            colStart[k + 1] += colStart[k];
        }
        r.skip((int) total);
        String src = r.source();
        runningSlot = 0;
        runningThread = 0;

        EventBatch.Columns col = out.reserveColumns(n);
        int o = out.size();
        long[] ta = col.time();
        int[] pk = col.packed();
        int[] th = col.thread();
        long[] va = col.a();
        long[] vb = col.b();
        long[] vc = col.c();
        long[] vu = col.used();
        long[] vx = col.aux();
        int[] r1 = col.ref();
        int[] r2 = col.ref2();
        long[] v5 = scratch[3];
        long[] v6 = scratch[4];
        long[] vSite = scratch[5];
        long[] vCat = scratch[6];
        int ka = layout.valueColumn(0);
        int ks = ka + 7;
        if (sites && siteOf.length < n) {
            siteOf = new int[Math.max(n, Math.min(ChunkCodec.MAX_EVENTS, 2 * siteOf.length))];
            categoryOf = new int[siteOf.length];
        }
        int[] pos = colStart.clone();
        long t = 0;
        for (int first = 0; first < n; first += SLICE) {
            int m = Math.min(SLICE, n - first);
            int o0 = o + first;
            // the stored varints, before deltas and predictions: the columns of several bytes a value
            // four at a time, those of mostly one byte one by one; long columns straight into the batch
            readColumns(buf, pos, colStart, 0, ka, ka + 1, ka + 2, ta, va, vb, vc, o0, m, first, src, base);
            readColumn(buf, pos, colStart, ka + 3, vu, o0, m, first, src, base);
            readColumn(buf, pos, colStart, ka + 4, vx, o0, m, first, src, base);
            readColumn(buf, pos, colStart, ka + 5, v5, 0, m, first, src, base);
            readColumn(buf, pos, colStart, ka + 6, v6, 0, m, first, src, base);
            if (sites) {
                readColumn(buf, pos, colStart, ks, vSite, 0, m, first, src, base);
                readColumn(buf, pos, colStart, ks + 1, vCat, 0, m, first, src, base);
                for (int i = 0; i < m; i++) {
                    long st = unzz(vSite[i]);
                    long ct = unzz(vCat[i]);
                    if (st < -1 || st != (int) st || ct < -1 || ct != (int) ct) {
                        boolean bad = st < -1 || st != (int) st;
                        throw valueError(buf, colStart, bad ? ks : ks + 1, first + i, src, base,
                                "event " + (first + i) + ": " + (bad ? "site " + st : "category " + ct) + " out of range");
                    }
                    siteOf[first + i] = (int) st;
                    categoryOf[first + i] = (int) ct;
                }
            }
            int maxSlot = identities(layout, buf, pos, colStart, pk, th, o0, m, first, src, base);
            predictor.slot(maxSlot);
            long[] pA = predictor.prevA;
            long[] pU = predictor.prevUsed;
            long[] pX = predictor.prevAux;
            for (int i = 0; i < m; i++) {
                int j = o0 + i;
                t += unzz(ta[j]);
                ta[j] = t;
                int packed = pk[j];
                int s = packed >>> 16;
                int kind = packed & 0xff;
                long b = unzz(vb[j]);
                vb[j] = b;
                long a = pA[s] + unzz(va[j]);
                va[j] = a;
                pA[s] = a + (A_NEXT[packed & 0x1ff] & b);
                long c = unzz(vc[j]);
                vc[j] = c + (C_MASK[kind] & b);
                long u = pU[s] + USED_SIGN[kind] * b + unzz(vu[j]);
                vu[j] = u;
                pU[s] = u;
                long x = pX[s] + unzz(vx[j]);
                vx[j] = x;
                pX[s] = x;
                long x1 = unzz(v5[i]);
                long x2 = unzz(v6[i]);
                if (x1 != (int) x1 || x2 != (int) x2) {
                    throw valueError(buf, colStart, x1 != (int) x1 ? ka + 5 : ka + 6, first + i, src, base,
                            "event " + (first + i) + ": ref out of 32-bit range");
                }
                r1[j] = (int) x1;
                r2[j] = (int) x2;
            }
        }
        ColumnReader.checkEnds(pos, colStart, columns, n, src, base);
        out.extendTo(o + n);
        if (sites) {
            for (int i = 0; i < n; i++) {
                if (siteOf[i] != -1 || categoryOf[i] != -1) {
                    out.setSite(o + i, siteOf[i], categoryOf[i]);
                }
            }
        }
    }

    /** Reads a shape table: varint count, then per shape varint kind+flags, zigzag memory id, zigzag thread. */
    private void readShapes(ByteReader r, int n) throws TraceFormatException {
        // a shape takes at least 3 bytes and is used by some event
        int count = r.count(Math.min(n, r.remaining() / 3), "shape count");
        if (shapePacked.length < count) {
            shapePacked = new int[Math.max(count, 2 * shapePacked.length)];
            shapeThread = new int[shapePacked.length];
        }
        int maxSlot = 0;
        for (int s = 0; s < count; s++) {
            long at = r.sourceOffset();
            long kf = r.varint();
            if (kf < 0 || kf > 0xffff || !KNOWN_KIND[(int) kf & 0xff]) {
                throw new TraceFormatException(r.source(), at, "shape " + s + ": unknown kind code " + (kf & 0xff));
            }
            at = r.sourceOffset();
            long mem = r.svarint();
            if (mem < -1 || mem > EventBatch.MAX_MEMORY_ID) {
                throw new TraceFormatException(r.source(), at, "shape " + s + ": memory id " + mem + " out of range");
            }
            int thread = r.svarint32("shape " + s + ": thread id");
            shapePacked[s] = (int) kf | (int) (mem + 1) << 16;
            shapeThread[s] = thread;
            maxSlot = Math.max(maxSlot, (int) (mem + 1));
        }
        shapes = count;
        shapesMaxSlot = maxSlot;
    }

    /**
     * The layout's identity step for events {@code [first, first + m)}: reads its identity columns and
     * fills {@code pk} and {@code th} from {@code o0}. Returns the largest memory slot used.
     */
    private int identities(EventLayout layout, byte[] buf, int[] pos, int[] colStart, int[] pk, int[] th,
                           int o0, int m, int first, String src, long base) throws TraceFormatException {
        return switch (layout) {
            case V1 -> identitiesV1(buf, pos, colStart, pk, th, o0, m, first, src, base);
            case V2, V3 -> identitiesByShape(buf, pos, colStart, pk, th, o0, m, first, src, base);
        };
    }

    /** Layout 2: column 1 holds each event's shape index. */
    private int identitiesByShape(byte[] buf, int[] pos, int[] colStart, int[] pk, int[] th,
                                  int o0, int m, int first, String src, long base) throws TraceFormatException {
        long[] vs = scratch[0];
        readColumn(buf, pos, colStart, 1, vs, 0, m, first, src, base);
        int[] sp = shapePacked;
        int[] st = shapeThread;
        int count = shapes;
        for (int i = 0; i < m; i++) {
            long shape = vs[i];
            if (shape < 0 || shape >= count) {
                throw valueError(buf, colStart, 1, first + i, src, base, "event " + (first + i) + ": shape " + shape + " of " + count);
            }
            pk[o0 + i] = sp[(int) shape];
            th[o0 + i] = st[(int) shape];
        }
        return shapesMaxSlot;
    }

    /** Layout 1: columns 1 to 3 hold kind+flags, then memory slot and thread as zigzag deltas. */
    private int identitiesV1(byte[] buf, int[] pos, int[] colStart, int[] pk, int[] th,
                             int o0, int m, int first, String src, long base) throws TraceFormatException {
        long[] vk = scratch[0];
        long[] vm = scratch[1];
        long[] vt = scratch[2];
        readColumn(buf, pos, colStart, 1, vk, 0, m, first, src, base);
        readColumn(buf, pos, colStart, 2, vm, 0, m, first, src, base);
        readColumn(buf, pos, colStart, 3, vt, 0, m, first, src, base);
        long sl = runningSlot;
        long tv = runningThread;
        int maxSlot = 0;
        for (int i = 0; i < m; i++) {
            int e = first + i;
            long kf = vk[i];
            if ((kf & ~0xffffL) != 0 || !KNOWN_KIND[(int) kf & 0xff]) {
                throw valueError(buf, colStart, 1, e, src, base, "event " + e + ": unknown kind code " + (kf & 0xff));
            }
            sl += unzz(vm[i]);
            if (sl < 0 || sl > MAX_MEMORY_SLOT) {
                throw valueError(buf, colStart, 2, e, src, base, "event " + e + ": memory id " + (sl - 1) + " out of range");
            }
            tv += unzz(vt[i]);
            if (tv != (int) tv) {
                throw valueError(buf, colStart, 3, e, src, base, "event " + e + ": thread id " + tv + " out of range");
            }
            maxSlot = Math.max(maxSlot, (int) sl);
            pk[o0 + i] = (int) kf | (int) sl << 16;
            th[o0 + i] = (int) tv;
        }
        runningSlot = sl;
        runningThread = tv;
        return maxSlot;
    }
}
