package dev.arenascope.app.ui.slots;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;

/**
 * Draws an {@link AddressMap.Snapshot} and answers hover on it: rows of bytes, left to right, top to
 * bottom, to scale. An arena or plan arena spans its capacity. A memory with reserved segments (a
 * PyTorch caching allocator, a pool's device blocks) is drawn as its segments only, one after another
 * in address order with a dark edge and the address where each begins: the address space between
 * segments is not this memory and takes no room, so what is drawn free is free inside segments. Blocks
 * in use, pending frees (in use, their free requested and not yet completed), blocks a pool holds for
 * reuse, rounding waste (what a block holds beyond the bytes asked for) and free space each have their colour; the block the last event made or freed is outlined.
 * FX thread.
 */
final class AddressMapPainter {
    private static final Font SMALL = Font.font("System", 10);
    static final double MARGIN_LEFT = 104;

    private AddressMapPainter() {}

    /** Where each part of the map is drawn: the packed coordinate of every segment. */
    record Layout(AddressMap.Snapshot map, List<AddressMap.Block> segments, long[] packedStart, long span, int rows,
                  double rowH, double x0, double rw) {

        double bytesPerRow() {
            return span / (double) rows;
        }

        /** The packed position of {@code address}, or -1 when it lies in no segment (between segments). */
        long packed(long address) {
            if (segments.isEmpty()) {
                return address - map.base();
            }
            for (int k = 0; k < segments.size(); k++) {
                AddressMap.Block s = segments.get(k);
                if (address >= s.start() && address < s.end()) {
                    return packedStart[k] + (address - s.start());
                }
            }
            return -1;
        }

        /** The address at packed position {@code p}. */
        long address(long p) {
            if (segments.isEmpty()) {
                return map.base() + p;
            }
            for (int k = segments.size() - 1; k >= 0; k--) {
                if (p >= packedStart[k]) {
                    return segments.get(k).start() + (p - packedStart[k]);
                }
            }
            return map.base();
        }
    }

    static Layout layout(AddressMap.Snapshot s, double w, double h) {
        List<AddressMap.Block> segs = new ArrayList<>();
        for (AddressMap.Block b : s.blocks()) {
            if (b.state() == AddressMap.State.RESERVED) {
                segs.add(b);
            }
        }
        segs.sort((a, b) -> Long.compare(a.start(), b.start()));
        long[] starts = new long[segs.size()];
        long span = 0;
        for (int k = 0; k < segs.size(); k++) {
            starts[k] = span;
            span += segs.get(k).bytes();
        }
        if (segs.isEmpty()) {
            span = s.extent();
        }
        int rows = (int) Math.max(1, Math.min(32, (h - 34) / 26));
        return new Layout(s, segs, starts, Math.max(1, span), rows, (h - 34) / rows, MARGIN_LEFT, w - MARGIN_LEFT - 12);
    }

    static void paint(GraphicsContext g, Palette p, boolean dark, AddressMap.Snapshot s, double w, double h) {
        Layout l = layout(s, w, h);
        double bytesPerRow = l.bytesPerRow();
        g.setFont(SMALL);
        boolean segmented = !l.segments().isEmpty();
        Color free = dark ? Color.web("#2b3a2f") : Color.web("#e4f3e6");
        for (int r = 0; r < l.rows(); r++) {
            double y = 10 + r * l.rowH();
            g.setFill(p.laneBackground());
            g.fillRect(l.x0(), y, l.rw(), l.rowH() - 4);
            g.setStroke(p.grid());
            g.strokeRect(l.x0() + 0.5, y + 0.5, l.rw() - 1, l.rowH() - 5);
            g.setFill(p.mutedText());
            g.setTextAlign(TextAlignment.RIGHT);
            g.setTextBaseline(VPos.CENTER);
            g.fillText(Bytes.format((long) (r * bytesPerRow)), l.x0() - 4, y + l.rowH() / 2 - 2);
        }
        Color waste = dark ? Color.web("#d9822b") : Color.web("#e8913a");
        Color pending = pendingColor(dark);
        boolean anyPending = false;
        for (AddressMap.Block b : s.blocks()) {
            boolean seg = b.state() == AddressMap.State.RESERVED;
            Color c = switch (b.state()) {
                case FORWARD, IN_USE -> p.forward();
                case BACKWARD -> p.backward();
                case PENDING_FREE -> pending;
                case HELD -> Palette.roleColor(2, dark);
                case RESERVED -> free;
            };
            long from = l.packed(b.start());
            if (from < 0) {
                continue;
            }
            anyPending |= b.state() == AddressMap.State.PENDING_FREE;
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
                double y = 10 + r * l.rowH();
                g.setStroke(p.text());
                g.setLineWidth(1.5);
                g.strokeLine(Math.floor(x) + 0.5, y, Math.floor(x) + 0.5, y + l.rowH() - 4);
                double segW = l.segments().get(k).bytes() / bytesPerRow * l.rw();
                if (segW > 70) {
                    g.setFill(p.mutedText());
                    g.fillText(String.format(Locale.ROOT, "0x%x", l.segments().get(k).start()), x + 3, y + 1);
                }
            }
        }
        AddressMap.Block last = s.lastBlock();
        if (last != null) {
            long from = l.packed(last.start());
            if (from >= 0) {
                outline(g, l, from, from + last.bytes(), p.cursor());
            }
        }
        // the legend
        double lx = l.x0();
        double ly = h - 8;
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        List<String> names = new ArrayList<>(List.of("in use / forward", "backward", "held for reuse", "rounding waste"));
        List<Color> colors = new ArrayList<>(List.of(p.forward(), p.backward(), Palette.roleColor(2, dark), waste));
        if (segmented || anyPending) {
            names.add(1, "pending free");
            colors.add(1, pending);
        }
        if (segmented) {
            names.add("free in a segment");
            colors.add(free);
            names.add("last event");
            colors.add(p.cursor());
        } else {
            names.add("free");
            colors.add(p.laneBackground());
        }
        for (int k = 0; k < names.size(); k++) {
            g.setFill(colors.get(k));
            g.fillRect(lx, ly - 4, 10, 8);
            g.setStroke(p.grid());
            g.setLineWidth(1);
            g.strokeRect(lx + 0.5, ly - 3.5, 9, 7);
            g.setFill(p.mutedText());
            g.fillText(names.get(k), lx + 14, ly);
            lx += 24 + names.get(k).length() * 5.6;
        }
        if (segmented) {
            g.fillText("segments only, in address order: the address space between them is not this memory", lx + 6, ly);
        }
    }

    /** A pending free's colour: in use still, but on its way out (magenta, apart from in use, held, waste and the last event's red). */
    static Color pendingColor(boolean dark) {
        return dark ? Color.web("#e879f9") : Color.web("#c026d3");
    }

    private static void fill(GraphicsContext g, Layout l, long from, long to, Color c, boolean full, Palette p) {
        double bytesPerRow = l.bytesPerRow();
        int r0 = (int) Math.max(0, Math.floor(from / bytesPerRow));
        int r1 = (int) Math.min(l.rows() - 1, Math.floor((to - 1) / bytesPerRow));
        for (int r = r0; r <= r1; r++) {
            double rs = Math.max(from, r * bytesPerRow);
            double re = Math.min(to, (r + 1) * bytesPerRow);
            double bx = l.x0() + (rs - r * bytesPerRow) / bytesPerRow * l.rw();
            double bw = Math.max(1, (re - rs) / bytesPerRow * l.rw());
            double y = 10 + r * l.rowH();
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

    private static void outline(GraphicsContext g, Layout l, long from, long to, Color c) {
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
            double y = 10 + r * l.rowH();
            g.strokeRect(bx + 1, y + 2, bw - 2, l.rowH() - 8);
        }
    }

    /** What the hover card says at canvas {@code (x, y)} over the map drawn {@code w × h}. */
    static String describe(AddressMap.Snapshot s, double w, double h, double x, double y) {
        Layout l = layout(s, w, h);
        if (x < l.x0() || x >= l.x0() + l.rw()) {
            return "";
        }
        int r = (int) ((y - 10) / l.rowH());
        if (r < 0 || r >= l.rows()) {
            return "";
        }
        long p = (long) ((r + (x - l.x0()) / l.rw()) * l.bytesPerRow());
        if (p >= l.span()) {
            return "";
        }
        long addr = l.address(p);
        AddressMap.Block best = null;
        AddressMap.Block segment = null;
        for (AddressMap.Block b : s.blocks()) {
            if (addr >= b.start() && addr < b.end()) {
                if (b.state() == AddressMap.State.RESERVED) {
                    segment = b;
                } else {
                    best = b;
                }
            }
        }
        String seg = segment == null ? "" : String.format(Locale.ROOT, "%nin the segment 0x%x – 0x%x (%s)", segment.start(), segment.end(),
                Bytes.format(segment.bytes()));
        if (best == null) {
            return (segment != null ? "free in a segment at " : "free at ") + String.format(Locale.ROOT, "0x%x", addr) + seg;
        }
        StringBuilder sb = new StringBuilder();
        sb.append(best.state() == AddressMap.State.HELD ? "held for reuse" : best.state().name().toLowerCase(Locale.ROOT).replace('_', ' '))
                .append(best.label().isEmpty() ? "" : " " + shortLabel(best.label())).append('\n')
                .append(String.format(Locale.ROOT, "0x%x – 0x%x", best.start(), best.end())).append('\n')
                .append(Bytes.format(best.bytes())).append(String.format(Locale.ROOT, " (%,d B)", best.bytes()));
        if (best.requested() < best.bytes()) {
            sb.append(String.format(Locale.ROOT, "%n%s asked for, %s lost to rounding", Bytes.format(best.requested()),
                    Bytes.format(best.bytes() - best.requested())));
        }
        TimeAxis time = TimeAxis.of(s.memory().attributes());
        sb.append("\nsince ").append(time.at(best.sinceNs()));
        if (best.state() == AddressMap.State.PENDING_FREE) {
            sb.append("\nfree requested at ").append(time.at(best.freeRequestedNs()))
                    .append(": in use until the free completes (its stream's work is done)");
        }
        sb.append(seg);
        return sb.toString();
    }

    /**
     * A block's label as the card's first line: its first line, at most 100 characters (a snapshot's
     * descriptor can be a whole C++ stack, which made the card a wall over the map).
     */
    static String shortLabel(String label) {
        String first = label.strip().lines().findFirst().orElse("");
        return first.length() <= 100 ? first : first.substring(0, 99) + "…";
    }
}
