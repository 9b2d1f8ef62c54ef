package dev.arenascope.app.ui.slots;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A segment's address label on the allocator map stays inside the map and on the segment (it ran off the right edge). */
class SegmentLabelTest {
    private static final double X0 = 60;
    private static final double RW = 800;
    private static final double TOP = 30;
    private static final double ROW_H = 24;
    private static final int ROWS = 16;
    private static final double BPR = 1 << 20; // bytes a row

    @Test
    void everyLabelLiesInsideTheMapAndOnItsSegment() {
        String address = "0x7f3a2c000000";
        double w = AddressMapPainter.labelWidth(address);
        int placed = 0;
        for (long at = 0; at < ROWS * (long) BPR; at += 37_123) {
            for (long seg : new long[] {2L << 10, 64L << 10, 200L << 10, 2L << 20}) {
                if (at + seg > ROWS * (long) BPR) {
                    continue;
                }
                double[] xy = AddressMapPainter.segmentLabelAt(X0, RW, TOP, ROW_H, ROWS, at, BPR, seg, w);
                if (xy == null) {
                    continue;
                }
                placed++;
                assertTrue(xy[0] >= X0 && xy[0] + w <= X0 + RW, "inside the map: segment at " + at + ", label from " + xy[0]);
                int row = (int) ((xy[1] - TOP) / ROW_H);
                // on the segment's own bytes in that row
                double from = Math.max(at, row * BPR);
                double to = Math.min(at + seg, (row + 1) * BPR);
                double sx = X0 + (from - row * BPR) / BPR * RW;
                double ex = X0 + (to - row * BPR) / BPR * RW;
                assertTrue(xy[0] >= sx && xy[0] + w <= ex + 0.001, "on its segment: " + at + "+" + seg + " row " + row);
            }
        }
        assertTrue(placed > 500, "most segments wide enough are labelled: " + placed);
    }

    @Test
    void aSegmentStartingNearARowsEndIsLabelledWhereItGoesOn() {
        double w = AddressMapPainter.labelWidth("0x7f3a2c000000");
        long at = (long) (BPR * 0.98); // 16 px before the row's end, 200 KiB long: most of it on the next row
        assertArrayEquals(new double[] {X0 + 3, TOP + ROW_H + 1}, AddressMapPainter.segmentLabelAt(X0, RW, TOP, ROW_H, ROWS, at, BPR, 200 << 10, w));
        // in the last row there is no next one
        long last = (long) (BPR * (ROWS - 1) + BPR * 0.98);
        assertNull(AddressMapPainter.segmentLabelAt(X0, RW, TOP, ROW_H, ROWS, last, BPR, (long) (BPR * 0.02), w));
        // a segment where it starts with room: just after its first byte
        assertArrayEquals(new double[] {X0 + 3, TOP + 1}, AddressMapPainter.segmentLabelAt(X0, RW, TOP, ROW_H, ROWS, 0, BPR, 1 << 19, w));
    }
}
