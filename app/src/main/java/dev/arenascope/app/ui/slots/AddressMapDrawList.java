package dev.arenascope.app.ui.slots;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.StackFrame;

/**
 * One frame of an {@link AddressMap.Snapshot}, ready to paint: where each byte of the memory goes in
 * a box of rows (left to right, top to bottom, to scale), and the legend's keys. A memory with reserved
 * segments (a caching allocator, a pool's device blocks) is laid out as its segments only, one after
 * another in address order: the address space between them is not this memory and takes no room.
 * Built by {@link #build}, painted by {@link AddressMapPainter}, asked what lies under the pointer
 * ({@link #describeAt}). Immutable.
 *
 * @param map        the snapshot drawn
 * @param title      the box's title line (empty: none; the what-if's and the recorded map's when both are shown)
 * @param top        y of the box's top
 * @param height     the box's height (rows, title and legend)
 * @param segments   the reserved segments in address order, empty for a memory without
 * @param packedStart per segment, its first byte's packed position
 * @param span       bytes laid out
 * @param rows       rows drawn
 * @param rowH       a row's height in px
 * @param x0         x of the rows' left edge (the byte labels stand left of it)
 * @param rw         the rows' width in px
 * @param legend     the keys the legend shows: only what this kind of memory has
 */
public record AddressMapDrawList(AddressMap.Snapshot map, String title, double top, double height, List<AddressMap.Block> segments,
                                 long[] packedStart, long span, int rows, double rowH, double x0, double rw, List<Key> legend) {
    static final double MARGIN_LEFT = 104;
    /** Height of the legend line under the rows. */
    static final double LEGEND = 26;
    static final double TITLE = 16;

    /** A legend key: what a colour means. */
    public enum Key {
        IN_USE("in use"), FORWARD("forward"), BACKWARD("backward"), PENDING_FREE("pending free"), HELD("held for reuse"),
        ROUNDING("rounding waste"), FREE_IN_SEGMENT("free in a segment"), FREE("free"), LAST_EVENT("last event");

        public final String text;

        Key(String text) {
            this.text = text;
        }
    }

    /** The whole canvas {@code w × h} for {@code s}, untitled. */
    static AddressMapDrawList build(AddressMap.Snapshot s, double w, double h) {
        return build(s, "", 0, w, h);
    }

    /** The box {@code [top, top + h)} of a canvas {@code w} wide for {@code s}, under {@code title} (empty: none). */
    static AddressMapDrawList build(AddressMap.Snapshot s, String title, double top, double w, double h) {
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
        double head = title.isEmpty() ? 0 : TITLE;
        double body = Math.max(30, h - head - LEGEND - 8);
        int rows = (int) Math.max(1, Math.min(32, body / 26));
        return new AddressMapDrawList(s, title, top, h, List.copyOf(segs), starts, Math.max(1, span), rows, body / rows, MARGIN_LEFT,
                w - MARGIN_LEFT - 12, legend(s, !segs.isEmpty()));
    }

    /** The keys for {@code s}: an arena's two ends, a pool's held blocks, an allocator's segments and pending frees. */
    static List<Key> legend(AddressMap.Snapshot s, boolean segmented) {
        MemoryKind kind = s.memory().kind();
        List<Key> keys = new ArrayList<>();
        if (kind.twoPointer()) {
            keys.add(Key.FORWARD);
            keys.add(Key.BACKWARD);
        } else {
            keys.add(Key.IN_USE);
        }
        boolean pending = s.blocks().stream().anyMatch(b -> b.state() == AddressMap.State.PENDING_FREE);
        if (kind == MemoryKind.SEGMENTED || pending) {
            keys.add(Key.PENDING_FREE);
        }
        if (kind == MemoryKind.POOL || s.blocks().stream().anyMatch(b -> b.state() == AddressMap.State.HELD)) {
            keys.add(Key.HELD);
        }
        if (s.wasteBytes() > 0 || kind == MemoryKind.POOL) {
            keys.add(Key.ROUNDING);
        }
        keys.add(segmented ? Key.FREE_IN_SEGMENT : Key.FREE);
        keys.add(Key.LAST_EVENT);
        return List.copyOf(keys);
    }

    /** y of the first row's top. */
    double rowsTop() {
        return top + (title.isEmpty() ? 0 : TITLE) + 10;
    }

    /** y of the legend line's centre. */
    double legendY() {
        return rowsTop() + rows * rowH + LEGEND / 2 - 4;
    }

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

    /** The map's origin on the canvas: the first row's left edge, where byte 0 is drawn. */
    double[] origin() {
        return new double[] {x0, rowsTop()};
    }

    /** The address under canvas {@code (x, y)}, or -1 outside the rows. */
    long addressAt(double x, double y) {
        if (x < x0 || x >= x0 + rw) {
            return -1;
        }
        int r = (int) Math.floor((y - rowsTop()) / rowH);
        if (r < 0 || r >= rows) {
            return -1;
        }
        long p = (long) ((r + (x - x0) / rw) * bytesPerRow());
        return p >= span ? -1 : address(p);
    }

    /** The canvas point where {@code address}'s byte is drawn (the middle of its row), or null when it is not drawn. */
    double[] pointOf(long address) {
        long p = packed(address);
        if (p < 0 || p >= span) {
            return null;
        }
        int r = (int) Math.min(rows - 1, p / bytesPerRow());
        return new double[] {x0 + (p - r * bytesPerRow()) / bytesPerRow() * rw, rowsTop() + r * rowH + rowH / 2 - 2};
    }

    /** Frames a hover card lists before it says how many more there are. */
    static final int MAX_FRAMES = 10;

    /**
     * What the hover card says at canvas {@code (x, y)}: the block's state and name, its address range,
     * size, requested size, since when, its segment, then its stack as the timeline's stripe card gives it
     * (the program's frames, innermost first, and "+ N internal frames folded"); empty off the rows.
     *
     * @param stacks a site's frames ({@link dev.arenascope.core.trace.TraceView#stack}), or null
     */
    String describeAt(double x, double y, IntFunction<List<StackFrame>> stacks) {
        long addr = addressAt(x, y);
        if (addr < 0) {
            return "";
        }
        AddressMap.Block best = null;
        AddressMap.Block segment = null;
        for (AddressMap.Block b : map.blocks()) {
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
        sb.append(stateName(best.state())).append(best.label().isEmpty() ? "" : " " + shortLabel(best.label())).append('\n')
                .append(String.format(Locale.ROOT, "0x%x – 0x%x", best.start(), best.end())).append('\n')
                .append("size ").append(Bytes.format(best.bytes())).append(String.format(Locale.ROOT, " (%,d B)", best.bytes())).append('\n')
                .append("requested ").append(Bytes.format(best.requested())).append(String.format(Locale.ROOT, " (%,d B)", best.requested()));
        if (best.requested() < best.bytes()) {
            sb.append(", ").append(Bytes.format(best.bytes() - best.requested())).append(" lost to rounding");
        }
        TimeAxis time = TimeAxis.of(map.memory().attributes());
        if (best.sinceNs() == AddressMap.Block.BEFORE_RECORDING) {
            sb.append('\n').append(Event.BEFORE_RECORDING); // not "since 0 ns": the file does not say when
        } else if (best.sinceNs() >= 0) {
            sb.append("\nsince ").append(time.at(best.sinceNs()));
        }
        if (best.state() == AddressMap.State.PENDING_FREE) {
            sb.append("\nfree requested at ").append(time.at(best.freeRequestedNs()))
                    .append(": in use until the free completes (its stream's work is done)");
        }
        sb.append(seg);
        if (stacks != null && best.site() >= 0) {
            frames(sb, stacks.apply(best.site()));
        }
        return sb.toString();
    }

    private static void frames(StringBuilder sb, List<StackFrame> stack) {
        int internal = 0;
        int shown = 0;
        for (StackFrame f : stack) {
            if (f.internal()) {
                internal++;
                continue;
            }
            if (shown < MAX_FRAMES) {
                sb.append("\n  ").append(shortLabel(f.label()));
            }
            shown++;
        }
        if (shown > MAX_FRAMES) {
            sb.append(String.format(Locale.ROOT, "%n  … %,d more frames", shown - MAX_FRAMES));
        }
        if (internal > 0) {
            sb.append(String.format(Locale.ROOT, "%n  + %s folded (runtime, C++)", Counts.of(internal, "internal frame")));
        }
    }

    static String stateName(AddressMap.State s) {
        return switch (s) {
            case HELD -> "held for reuse";
            case IN_USE -> "in use";
            default -> s.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        };
    }

    /**
     * A label or frame as one line of a card: its first line, at most 100 characters (a snapshot's
     * descriptor can be a whole C++ stack, which made the card a wall over the map).
     */
    static String shortLabel(String label) {
        String first = label.strip().lines().findFirst().orElse("");
        return first.length() <= 100 ? first : first.substring(0, 99) + "…";
    }
}
