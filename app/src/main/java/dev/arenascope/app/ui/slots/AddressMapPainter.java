package dev.arenascope.app.ui.slots;

import java.util.Locale;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.core.format.Bytes;

/**
 * Paints an {@link AddressMapDrawList} in one pass: the rows with their byte labels, each block in its
 * colour (in use, pending frees, blocks a pool holds for reuse, rounding waste, free space inside
 * segments), each segment's first byte as a dark edge with its address, the block the last event made
 * or freed outlined, and the legend of what this kind of memory has. FX thread.
 */
final class AddressMapPainter {
    private static final Font SMALL = Font.font("System", 10);
    private static final Font LABEL = Font.font("System", 11);

    private AddressMapPainter() {}

    /** The colour of a legend key (and of what it names on the map). */
    static Color color(AddressMapDrawList.Key k, Palette p, boolean dark) {
        return switch (k) {
            case IN_USE, FORWARD -> p.forward();
            case BACKWARD -> p.backward();
            case PENDING_FREE -> pendingColor(dark);
            case HELD -> Palette.roleColor(2, dark);
            case ROUNDING -> dark ? Color.web("#d9822b") : Color.web("#e8913a");
            case FREE_IN_SEGMENT -> dark ? Color.web("#2b3a2f") : Color.web("#e4f3e6");
            case FREE -> p.laneBackground();
            case LAST_EVENT -> p.cursor();
        };
    }

    /** A pending free's colour: in use still, but on its way out (magenta, apart from in use, held, waste and the last event's red). */
    static Color pendingColor(boolean dark) {
        return dark ? Color.web("#e879f9") : Color.web("#c026d3");
    }

    static void paint(GraphicsContext g, AddressMapDrawList l, Palette p, boolean dark) {
        double bytesPerRow = l.bytesPerRow();
        boolean segmented = !l.segments().isEmpty();
        if (!l.title().isEmpty()) {
            g.setFont(LABEL);
            g.setFill(p.text());
            g.setTextAlign(TextAlignment.LEFT);
            g.setTextBaseline(VPos.TOP);
            g.fillText(l.title(), l.x0(), l.top() + 2);
        }
        g.setFont(SMALL);
        double top = l.rowsTop();
        for (int r = 0; r < l.rows(); r++) {
            double y = top + r * l.rowH();
            g.setFill(p.laneBackground());
            g.fillRect(l.x0(), y, l.rw(), l.rowH() - 4);
            g.setStroke(p.grid());
            g.setLineWidth(1);
            g.strokeRect(l.x0() + 0.5, y + 0.5, l.rw() - 1, l.rowH() - 5);
            g.setFill(p.mutedText());
            g.setTextAlign(TextAlignment.RIGHT);
            g.setTextBaseline(VPos.CENTER);
            g.fillText(Bytes.format((long) (r * bytesPerRow)), l.x0() - 4, y + l.rowH() / 2 - 2);
        }
        Color waste = color(AddressMapDrawList.Key.ROUNDING, p, dark);
        for (AddressMap.Block b : l.map().blocks()) {
            boolean seg = b.state() == AddressMap.State.RESERVED;
            Color c = switch (b.state()) {
                case FORWARD, IN_USE -> p.forward();
                case BACKWARD -> p.backward();
                case PENDING_FREE -> pendingColor(dark);
                case HELD -> Palette.roleColor(2, dark);
                case RESERVED -> color(AddressMapDrawList.Key.FREE_IN_SEGMENT, p, dark);
            };
            long from = l.packed(b.start());
            if (from < 0) {
                continue;
            }
            fill(g, l, from, from + b.bytes(), c, seg, p);
            if (!seg && b.requested() < b.bytes()) {
                fill(g, l, from + b.requested(), from + b.bytes(), waste, false, p);
            }
        }
        if (segmented) {
            // each segment's first byte: a dark edge and its address, where there is room
            g.setTextAlign(TextAlignment.LEFT);
            g.setTextBaseline(VPos.TOP);
            for (int k = 0; k < l.segments().size(); k++) {
                long at = l.packedStart()[k];
                int r = (int) Math.min(l.rows() - 1, at / bytesPerRow);
                double x = l.x0() + (at - r * bytesPerRow) / bytesPerRow * l.rw();
                double y = top + r * l.rowH();
                g.setStroke(p.text());
                g.setLineWidth(1.5);
                g.strokeLine(Math.floor(x) + 0.5, y, Math.floor(x) + 0.5, y + l.rowH() - 4);
                String address = String.format(Locale.ROOT, "0x%x", l.segments().get(k).start());
                double[] xy = segmentLabelAt(l.x0(), l.rw(), top, l.rowH(), l.rows(), at, bytesPerRow, l.segments().get(k).bytes(),
                        labelWidth(address));
                if (xy != null) {
                    g.setFill(p.mutedText());
                    g.fillText(address, xy[0], xy[1]);
                }
            }
        }
        AddressMap.Block last = l.map().lastBlock();
        if (last != null) {
            long from = l.packed(last.start());
            if (from >= 0) {
                outline(g, l, from, from + last.bytes(), p.cursor());
            }
        }
        legend(g, l, p, dark);
    }

    /** A width no address label of {@link #SMALL} exceeds: 6.5 px a character (hex digits are about 6 px at 10 px). */
    static double labelWidth(String text) {
        return text.length() * 6.5;
    }

    /**
     * Where a segment's address label goes, inside the map and on the segment's own bytes: just after its
     * first byte when the segment's part of that row holds it; else at the start of the next row, where
     * the segment goes on, when its part there holds it; else nowhere (null). The label ran past the map's
     * right edge when the segment began near a row's end.
     *
     * @param at     the segment's first byte in the packed address order
     * @param labelW the label's width in px
     * @return {x, y} of the label's top left, or null
     */
    static double[] segmentLabelAt(double x0, double rw, double rowsTop, double rowH, int rows, long at, double bytesPerRow, long segBytes,
                                   double labelW) {
        int r = (int) Math.min(rows - 1, at / bytesPerRow);
        double x = x0 + (at - r * bytesPerRow) / bytesPerRow * rw;
        double here = Math.min(x0 + rw - x, segBytes / bytesPerRow * rw);
        if (labelW + 6 <= here) {
            return new double[] {x + 3, rowsTop + r * rowH + 1};
        }
        double rest = at + segBytes - (r + 1) * bytesPerRow; // the segment's bytes past this row
        if (r + 1 < rows && rest > 0 && labelW + 6 <= Math.min(rw, rest / bytesPerRow * rw)) {
            return new double[] {x0 + 3, rowsTop + (r + 1) * rowH + 1};
        }
        return null;
    }

    private static void legend(GraphicsContext g, AddressMapDrawList l, Palette p, boolean dark) {
        double lx = l.x0();
        double ly = l.legendY();
        g.setFont(SMALL);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        for (AddressMapDrawList.Key k : l.legend()) {
            g.setFill(color(k, p, dark));
            g.fillRect(lx, ly - 4, 10, 8);
            g.setStroke(k == AddressMapDrawList.Key.LAST_EVENT ? p.cursor() : p.grid());
            g.setLineWidth(1);
            g.strokeRect(lx + 0.5, ly - 3.5, 9, 7);
            g.setFill(p.mutedText());
            g.fillText(k.text, lx + 14, ly);
            lx += 24 + k.text.length() * 5.6;
        }
        if (!l.segments().isEmpty() && lx + 420 < l.x0() + l.rw()) {
            g.fillText("segments only, in address order: the address space between them is not this memory", lx + 6, ly);
        }
    }

    private static void fill(GraphicsContext g, AddressMapDrawList l, long from, long to, Color c, boolean full, Palette p) {
        double bytesPerRow = l.bytesPerRow();
        int r0 = (int) Math.max(0, Math.floor(from / bytesPerRow));
        int r1 = (int) Math.min(l.rows() - 1, Math.floor((to - 1) / bytesPerRow));
        for (int r = r0; r <= r1; r++) {
            double rs = Math.max(from, r * bytesPerRow);
            double re = Math.min(to, (r + 1) * bytesPerRow);
            double bx = l.x0() + (rs - r * bytesPerRow) / bytesPerRow * l.rw();
            double bw = Math.max(1, (re - rs) / bytesPerRow * l.rw());
            double y = l.rowsTop() + r * l.rowH();
            g.setFill(c);
            g.fillRect(bx, full ? y : y + 3, bw, full ? l.rowH() - 4 : l.rowH() - 10);
            if (!full && rs == from && bw >= 3) {
                // a border at each block's start, so neighbouring blocks do not merge into one
                g.setStroke(p.background());
                g.setLineWidth(1);
                g.strokeLine(Math.floor(bx) + 0.5, y + 3, Math.floor(bx) + 0.5, y + l.rowH() - 7);
            }
        }
    }

    private static void outline(GraphicsContext g, AddressMapDrawList l, long from, long to, Color c) {
        double bytesPerRow = l.bytesPerRow();
        int r0 = (int) Math.max(0, Math.floor(from / bytesPerRow));
        int r1 = (int) Math.min(l.rows() - 1, Math.floor((Math.max(from + 1, to) - 1) / bytesPerRow));
        g.setStroke(c);
        g.setLineWidth(2);
        for (int r = r0; r <= r1; r++) {
            double rs = Math.max(from, r * bytesPerRow);
            double re = Math.min(Math.max(from + 1, to), (r + 1) * bytesPerRow);
            double bx = l.x0() + (rs - r * bytesPerRow) / bytesPerRow * l.rw();
            double bw = Math.max(2, (re - rs) / bytesPerRow * l.rw());
            double y = l.rowsTop() + r * l.rowH();
            g.strokeRect(bx + 1, y + 2, bw - 2, l.rowH() - 8);
        }
    }
}
