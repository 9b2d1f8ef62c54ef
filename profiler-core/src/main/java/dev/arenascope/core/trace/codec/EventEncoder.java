package dev.arenascope.core.trace.codec;

import static dev.arenascope.core.trace.codec.Predictor.A_NEXT;
import static dev.arenascope.core.trace.codec.Predictor.C_MASK;
import static dev.arenascope.core.trace.codec.Predictor.USED_SIGN;
import static dev.arenascope.core.trace.codec.Varints.uv;
import static dev.arenascope.core.trace.codec.Varints.zz;

import java.util.Arrays;

import dev.arenascope.core.trace.ByteWriter;
import dev.arenascope.core.trace.EventBatch;

/**
 * Encodes events into an events block of {@link EventLayout#CURRENT}: an "open chunk" that batches
 * are appended to ({@link #append}) without holding their events, then written whole
 * ({@link #finish}). Each column is written by its own small loop straight from the batch's arrays
 * (so the JIT compiles each on its own); the shape table is an open-addressing index over the chunk's
 * distinct (kind+flags, memory, thread) keys. Not thread-safe: one encoder per thread.
 */
final class EventEncoder {
    private static final int COLUMNS = EventLayout.CURRENT.columns();
    /** Columns every chunk has: time, shape, the seven values; the two site columns follow when present. */
    private static final int BASE_COLUMNS = COLUMNS - EventLayout.CURRENT.trailingColumns();

    private final Predictor predictor = new Predictor();
    // the open chunk: its columns so far, and what the next events are predicted from
    private final byte[][] openCols = new byte[COLUMNS][];
    private final int[] openLen = new int[COLUMNS];
    private int openEvents;
    private boolean openSites;
    private boolean sitesWritten = true;
    private long openPrevTime;
    private long openFirstTime;
    private long openLastTime;

    // the shape table of the open chunk: keys (packed kind/flags/memory << 32 | thread) in order of
    // first use, an open-addressing index over them, and each appended event's shape
    private long[] shapeKeys = new long[64];
    private int[] shapeSlots = new int[64];
    private long[] tableKeys = new long[128];
    private int[] tableVals = new int[128]; // shape + 1; 0 is empty
    private int[] shapeOf = new int[1024];
    private int shapeCount;

    /** Opens an empty chunk (forgetting any events appended since the last {@link #finish}). */
    void begin() {
        predictor.reset();
        clearShapes();
        Arrays.fill(openLen, 0);
        openEvents = 0;
        openSites = false;
        openPrevTime = 0;
        openFirstTime = 0;
        openLastTime = 0;
    }

    /**
     * Whether events' sites and categories are written (default: yes). A store that keeps them beside
     * its blocks turns this off, and its blocks then carry no site columns.
     */
    void writeSites(boolean on) {
        sitesWritten = on;
    }

    int openEvents() {
        return openEvents;
    }

    long openFirstTime() {
        return openFirstTime;
    }

    long openLastTime() {
        return openLastTime;
    }

    /** Encodes events {@code [from, to)} of {@code batch} onto the open chunk's columns. */
    void append(EventBatch batch, int from, int to) {
        int m = to - from;
        if (m < 0 || from < 0 || to > batch.size()) {
            throw new IndexOutOfBoundsException("events [" + from + ", " + to + ") of " + batch.size());
        }
        if ((long) openEvents + m > ChunkCodec.MAX_EVENTS) {
            throw new IllegalArgumentException("a chunk holds at most " + ChunkCodec.MAX_EVENTS + " events");
        }
        if (m == 0) {
            return;
        }
        EventBatch.Columns col = batch.columns();
        int[] pk = col.packed();
        long[] ta = col.time();
        appendShapes(pk, col.thread(), from, to);
        int maxSlot = 0;
        long last = openEvents == 0 ? ta[from] : openLastTime;
        for (int i = from; i < to; i++) {
            maxSlot = Math.max(maxSlot, pk[i] >>> 16);
            last = Math.max(last, ta[i]);
        }
        if (openEvents == 0) {
            openFirstTime = ta[from];
        }
        openLastTime = last;
        predictor.slot(maxSlot);
        if (!openSites && sitesWritten && batch.hasSites()) {
            startSiteColumns();
        }
        long[] pA = predictor.prevA;
        long[] pU = predictor.prevUsed;
        long[] pX = predictor.prevAux;
        long[] vb = col.b();
        int columns = openSites ? COLUMNS : BASE_COLUMNS;
        for (int k = 0; k < columns; k++) {
            // every value takes at most 10 bytes, and the branch-free writer stores 8 at a time
            byte[] buf = openCols[k];
            int p = openLen[k];
            long need = (long) p + 10L * m + 16;
            if (buf == null || need > buf.length) {
                if (need > Integer.MAX_VALUE - 16) {
                    throw new IllegalArgumentException("chunk column too large to encode");
                }
                long cap = Math.max(need, buf == null ? 1 << 14 : Math.min(Integer.MAX_VALUE - 16, 2L * buf.length));
                buf = openCols[k] = buf == null ? new byte[(int) cap] : Arrays.copyOf(buf, (int) cap);
            }
            openLen[k] = switch (k) {
                case 0 -> deltas(buf, p, ta, from, to, openPrevTime);
                case 1 -> shapeIndexes(buf, p, shapeOf, m);
                case 2 -> predictedA(buf, p, col.a(), vb, pk, pA, from, to);
                case 3 -> plain(buf, p, vb, from, to);
                case 4 -> requested(buf, p, col.c(), vb, pk, from, to);
                case 5 -> predictedUsed(buf, p, col.used(), vb, pk, pU, from, to);
                case 6 -> perMemoryDeltas(buf, p, col.aux(), pk, pX, from, to);
                case 7 -> plain(buf, p, col.ref(), from, to);
                case 8 -> plain(buf, p, col.ref2(), from, to);
                case 9 -> siteColumn(buf, p, batch, from, to, false);
                default -> siteColumn(buf, p, batch, from, to, true);
            };
        }
        openPrevTime = ta[to - 1];
        openEvents += m;
    }

    /** Writes the open chunk's events block to {@code out} and opens an empty chunk. */
    void finish(ByteWriter out) {
        out.varint(openEvents);
        out.varint(shapeCount);
        for (int s = 0; s < shapeCount; s++) {
            long key = shapeKeys[s];
            int packed = (int) (key >>> 32);
            out.varint(packed & 0xffff);
            out.svarint((packed >>> 16) - 1);
            out.svarint((int) key);
        }
        int columns = openSites ? COLUMNS : BASE_COLUMNS;
        out.varint(columns - BASE_COLUMNS);
        for (int k = 0; k < columns; k++) {
            out.varint(openLen[k]);
        }
        for (int k = 0; k < columns; k++) {
            if (openLen[k] > 0) {
                out.bytes(openCols[k], 0, openLen[k]);
            }
        }
        begin();
    }

    /**
     * Adds the site and category columns to the open chunk when its first event with a site arrives:
     * the events before it carry none (-1, one byte each).
     */
    private void startSiteColumns() {
        for (int k = BASE_COLUMNS; k < COLUMNS; k++) {
            byte[] buf = openCols[k];
            long need = (long) openEvents + 16;
            if (buf == null || need > buf.length) {
                buf = openCols[k] = new byte[(int) Math.max(need, 1 << 14)];
            }
            Arrays.fill(buf, 0, openEvents, (byte) 1); // zigzag(-1)
            openLen[k] = openEvents;
        }
        openSites = true;
    }

    /** Forgets the open chunk's shapes: only the table slots they took are emptied. */
    private void clearShapes() {
        for (int s = 0; s < shapeCount; s++) {
            tableVals[shapeSlots[s]] = 0;
        }
        shapeCount = 0;
    }

    /**
     * Fills {@link #shapeOf} from index 0 with the shape of events {@code [from, to)}, adding the new
     * ones to the open chunk's table.
     */
    private void appendShapes(int[] pk, int[] th, int from, int to) {
        int n = to - from;
        if (shapeOf.length < n) {
            shapeOf = new int[Math.max(n, 2 * shapeOf.length)];
        }
        int[] sOf = shapeOf;
        long[] tk = tableKeys;
        int[] tv = tableVals;
        int mask = tv.length - 1;
        int shift = 64 - Integer.numberOfTrailingZeros(tv.length);
        int count = shapeCount;
        long lastKey = 0;
        int last = -1;
        for (int i = 0; i < n; i++) {
            long key = (long) pk[from + i] << 32 | (th[from + i] & 0xffffffffL);
            if (key != lastKey || last < 0) {
                int h = (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
                while (true) {
                    int v = tv[h];
                    if (v == 0) {
                        if (count == shapeKeys.length) {
                            shapeKeys = Arrays.copyOf(shapeKeys, count * 2);
                            shapeSlots = Arrays.copyOf(shapeSlots, count * 2);
                        }
                        shapeKeys[count] = key;
                        shapeSlots[count] = h;
                        last = count++;
                        tk[h] = key;
                        tv[h] = count;
                        if (2 * count > tv.length) {
                            growShapeTable(count);
                            tk = tableKeys;
                            tv = tableVals;
                            mask = tv.length - 1;
                            shift = 64 - Integer.numberOfTrailingZeros(tv.length);
                        }
                        break;
                    }
                    if (tk[h] == key) {
                        last = v - 1;
                        break;
                    }
                    h = (h + 1) & mask;
                }
                lastKey = key;
            }
            sOf[i] = last;
        }
        shapeCount = count;
    }

    private void growShapeTable(int count) {
        int cap = tableVals.length * 2;
        long[] tk = new long[cap];
        int[] tv = new int[cap];
        int shift = 64 - Integer.numberOfTrailingZeros(cap);
        for (int s = 0; s < count; s++) {
            int h = (int) ((shapeKeys[s] * 0x9E3779B97F4A7C15L) >>> shift);
            while (tv[h] != 0) {
                h = (h + 1) & (cap - 1);
            }
            tk[h] = shapeKeys[s];
            tv[h] = s + 1;
            shapeSlots[s] = h;
        }
        tableKeys = tk;
        tableVals = tv;
    }

    // one loop a column, each small enough for the JIT to compile on its own

    private static int shapeIndexes(byte[] buf, int p, int[] sOf, int n) {
        for (int i = 0; i < n; i++) {
            p = uv(buf, p, sOf[i]);
        }
        return p;
    }

    private static int deltas(byte[] buf, int p, long[] v, int from, int to, long prev) {
        for (int i = from; i < to; i++) {
            long x = v[i];
            p = zz(buf, p, x - prev);
            prev = x;
        }
        return p;
    }

    private static int plain(byte[] buf, int p, long[] v, int from, int to) {
        for (int i = from; i < to; i++) {
            p = zz(buf, p, v[i]);
        }
        return p;
    }

    private static int plain(byte[] buf, int p, int[] v, int from, int to) {
        for (int i = from; i < to; i++) {
            p = zz(buf, p, v[i]);
        }
        return p;
    }

    /** The site column (or, with {@code categories}, the category column) of events {@code [from, to)}. */
    private static int siteColumn(byte[] buf, int p, EventBatch batch, int from, int to, boolean categories) {
        if (!batch.hasSites()) {
            Arrays.fill(buf, p, p + (to - from), (byte) 1); // zigzag(-1): none
            return p + (to - from);
        }
        for (int i = from; i < to; i++) {
            p = zz(buf, p, categories ? batch.category(i) : batch.site(i));
        }
        return p;
    }

    private static int predictedA(byte[] buf, int p, long[] va, long[] vb, int[] pk, long[] pA, int from, int to) {
        for (int i = from; i < to; i++) {
            int packed = pk[i];
            int sl = packed >>> 16;
            long a = va[i];
            p = zz(buf, p, a - pA[sl]);
            pA[sl] = a + (A_NEXT[packed & 0x1ff] & vb[i]);
        }
        return p;
    }

    private static int requested(byte[] buf, int p, long[] vc, long[] vb, int[] pk, int from, int to) {
        for (int i = from; i < to; i++) {
            long c = vc[i];
            p = zz(buf, p, c - (C_MASK[pk[i] & 0xff] & vb[i]));
        }
        return p;
    }

    private static int predictedUsed(byte[] buf, int p, long[] vu, long[] vb, int[] pk, long[] pU, int from, int to) {
        for (int i = from; i < to; i++) {
            int packed = pk[i];
            int sl = packed >>> 16;
            long u = vu[i];
            p = zz(buf, p, u - pU[sl] - USED_SIGN[packed & 0xff] * vb[i]);
            pU[sl] = u;
        }
        return p;
    }

    private static int perMemoryDeltas(byte[] buf, int p, long[] vx, int[] pk, long[] pX, int from, int to) {
        for (int i = from; i < to; i++) {
            int sl = pk[i] >>> 16;
            long x = vx[i];
            p = zz(buf, p, x - pX[sl]);
            pX[sl] = x;
        }
        return p;
    }
}
