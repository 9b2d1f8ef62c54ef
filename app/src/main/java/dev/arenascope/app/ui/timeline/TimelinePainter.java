package dev.arenascope.app.ui.timeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.paint.ImagePattern;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.MemoryKind;

/**
 * Paints a {@link DrawList} in one pass: axis, then per lane the occupancy areas (forward from the
 * bottom, backward from the top), capacity and high-water lines, highlights, scope bands and markers,
 * then the selection and cursor. Touches only the graphics context; FX thread.
 */
public final class TimelinePainter {
    private static final Font LABEL = Font.font("System", 11);
    private static final Font SMALL = Font.font("System", 10);

    private TimelinePainter() {}

    /**
     * @param selection selected range or null
     * @param cursorNs  selected instant or -1
     */
    public static void paint(GraphicsContext g, DrawList d, Palette p, boolean dark, TimeRange selection, long cursorNs) {
        paint(g, d, p, dark, selection, cursorNs, -1, -1);
    }

    /**
     * @param selection           selected range or null
     * @param cursorNs            selected instant or -1
     * @param selectedMemory      the memory of the selected allocation, -1 for none
     * @param selectedAllocation  its number in the memory's allocation table (its stripe drawn strong)
     */
    public static void paint(GraphicsContext g, DrawList d, Palette p, boolean dark, TimeRange selection, long cursorNs,
                             int selectedMemory, int selectedAllocation) {
        double w = g.getCanvas().getWidth();
        double h = g.getCanvas().getHeight();
        g.setFill(p.background());
        g.fillRect(0, 0, w, h);
        axis(g, d, p, w);
        for (DrawList.Lane lane : d.lanes()) {
            lane(g, d, lane, p, dark, lane.memory().id() == selectedMemory ? selectedAllocation : -1);
        }
        if (selection != null && selection.overlaps(d.range().fromNs(), d.range().toNs())) {
            double x0 = Math.max(0, d.xOf(selection.fromNs()));
            double x1 = Math.min(w, d.xOf(selection.toNs()));
            g.setFill(p.selection());
            g.fillRect(x0, d.axisHeight(), Math.max(1, x1 - x0), h - d.axisHeight());
            g.setFill(p.selection().deriveColor(0, 1, 1, 4));
            vline(g, x0 + 0.5, d.axisHeight(), h, 1);
            vline(g, x1 - 0.5, d.axisHeight(), h, 1);
        }
        if (cursorNs >= 0 && d.range().contains(cursorNs)) {
            double x = Math.floor(d.xOf(cursorNs)) + 0.5;
            g.setFill(p.cursor());
            vline(g, x, 0, h, 1.5);
        }
    }

    private static void axis(GraphicsContext g, DrawList d, Palette p, double w) {
        TimeAxis.Ticks ticks = axisTicks(d, w);
        g.setFont(SMALL);
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        for (int i = 0; i < ticks.count(); i++) {
            long t = ticks.at(i);
            if (t >= d.range().toNs()) {
                break;
            }
            double x = Math.floor(d.xOf(t)) + 0.5;
            g.setFill(p.grid());
            vline(g, x, d.axisHeight() - 6, d.height(), 1);
            g.setFill(p.mutedText());
            g.fillText(ticks.label(t), x + 3, d.axisHeight() / 2.0);
        }
        if (d.time() == TimeAxis.ENTRIES) {
            // the axis says what it counts, at its right end over the ticks' labels
            g.setTextAlign(TextAlignment.RIGHT);
            g.setFill(p.background());
            String title = d.time().title();
            g.fillRect(w - 8 - 7 * title.length(), 0, 8 + 7 * title.length(), d.axisHeight() - 1);
            g.setFill(p.text());
            g.fillText(title, w - 4, d.axisHeight() / 2.0);
            g.setTextAlign(TextAlignment.LEFT);
        }
        g.setFill(p.grid());
        hline(g, 0, w, d.axisHeight() - 0.5, 1);
    }

    /**
     * A solid vertical line {@code width} wide centred on {@code x}, from {@code y0} to {@code y1}, in the fill
     * colour: the rectangle a stroke of it covers, filled. The software renderer rasterises each stroked line as
     * a shape (a live job's frames, ten a second, spent half the renderer's time in the axis ticks, grid lines
     * and markers); a filled rectangle it paints directly.
     */
    static void vline(GraphicsContext g, double x, double y0, double y1, double width) {
        g.fillRect(x - width / 2, y0, width, y1 - y0);
    }

    /** A solid horizontal line {@code width} high centred on {@code y}, from {@code x0} to {@code x1}, in the fill colour. */
    static void hline(GraphicsContext g, double x0, double x1, double y, double width) {
        g.fillRect(x0, y - width / 2, x1 - x0, width);
    }

    /**
     * The time axis's ticks for frame {@code d} drawn {@code w} px wide: a tick per {@value #TICK_SPACING_PX} px at
     * most, on round values of one unit ({@link TimeAxis#ticks}), in entries on an untimed trace's axis.
     */
    public static TimeAxis.Ticks axisTicks(DrawList d, double w) {
        TimeRange r = d.range();
        return d.time().ticks(r.fromNs(), r.toNs(), Math.max(1.0, w / TICK_SPACING_PX));
    }

    /** The least room between two time ticks, for a label such as {@code 12,000.45 ms}. */
    static final double TICK_SPACING_PX = 110;

    private static void lane(GraphicsContext g, DrawList d, DrawList.Lane lane, Palette p, boolean dark, int selected) {
        int w = d.width();
        double laneTop = lane.top();
        double top = lane.gaugeTop();
        double bottom = lane.bandsTop();
        g.setFill(p.laneBackground());
        g.fillRect(0, laneTop, w, lane.height());
        byteGrid(g, lane, p, w);
        MemoryKind kind = lane.memory().kind();
        boolean twoPointer = kind.twoPointer();
        boolean reserved = kind == MemoryKind.POOL || kind == MemoryKind.SEGMENTED;

        double[] xs = new double[2 * w + 2];
        double[] ys = new double[2 * w + 2];

        if (lane.stripes() != null) {
            StripePainter.paint(g, lane, p, dark, selected);
            byteGrid(g, lane, p, w);
        } else if (twoPointer) {
            areaDown(g, lane, lane.auxMax(), xs, ys, w, top, p.backwardEnvelope());
        }
        if (lane.stripes() != null) {
            // drawn above
        } else if (twoPointer) {
            // an arena's used gauge counts both ends: the forward end alone rises from the bottom, the
            // backward end hangs from the top, and the free room between them is what is left
            areaUp(g, lane, masked(lane.forwardMax(), lane.usedMin()), xs, ys, w, bottom, p.forwardEnvelope());
            areaUp(g, lane, masked(lane.forwardLast(), lane.usedMin()), xs, ys, w, bottom, p.forward());
        } else {
            areaUp(g, lane, lane.usedMax(), xs, ys, w, bottom, p.forwardEnvelope());
            areaUp(g, lane, lane.usedMin(), xs, ys, w, bottom, p.forward());
        }
        if (twoPointer && lane.stripes() == null) {
            // the backward end's least value is not kept per column; its envelope is drawn solid at the edge
            g.setStroke(p.backward());
            g.setLineWidth(1.2);
            strokeDown(g, lane, lane.auxMax(), w);
        }

        if (reserved) {
            // reserved as a line over the in-use area (the lane is scaled to in-use: it may run off the top)
            g.setStroke(p.reserved().deriveColor(0, 1, dark ? 1.4 : 0.6, 1 / Math.max(0.05, p.reserved().getOpacity())));
            g.setLineWidth(1.5);
            strokeUp(g, lane, lane.auxMax(), w);
        }
        if (lane.baselineUsed() != null) {
            g.setStroke(p.baseline());
            g.setLineWidth(1);
            g.setLineDashes(4, 3);
            g.beginPath();
            for (int x = 0; x < w; x++) {
                double y = lane.yUp(lane.baselineUsed()[x]);
                if (x == 0) {
                    g.moveTo(x, y);
                } else {
                    g.lineTo(x + 0.5, y);
                }
            }
            g.stroke();
            g.setLineDashes();
        }

        double[] hl = lane.highlights();
        if (hl.length > 0) {
            g.setFill(p.highlight());
            for (int i = 0; i < hl.length; i += 2) {
                g.fillRect(hl[i], top, hl[i + 1] - hl[i], lane.height() - (top - laneTop));
            }
        }

        long cap = lane.memory().capacity();
        g.setLineWidth(1);
        if (cap > 0 && cap <= lane.scaleBytes()) {
            double y = Math.floor(lane.yUp(cap)) + 0.5;
            g.setStroke(p.capacity());
            g.setLineDashes(6, 3);
            g.strokeLine(0, y, w, y);
            g.setLineDashes();
        }
        g.setStroke(p.highWater());
        g.setLineDashes(2, 3);
        long highWater = twoPointer && lane.peakForward() >= 0 ? lane.peakForward() : lane.peakUsed();
        if (highWater <= lane.scaleBytes()) {
            // (a lane zoomed in time is scaled to what it shows: the session's high-water may lie above it)
            double hw = Math.floor(lane.yUp(highWater)) + 0.5;
            g.strokeLine(0, hw, w, hw);
        }
        if (twoPointer && lane.peakAux() > 0) {
            double hb = Math.floor(lane.yDown(lane.peakAux())) + 0.5;
            g.strokeLine(0, hb, w, hb);
        }
        g.setLineDashes();

        for (DrawList.Band b : lane.bands()) {
            double y = bottom + b.depth() * DrawListBuilder.BAND_ROW;
            double x0 = Math.max(0, b.x0());
            double bw = Math.max(1, Math.min(w, b.x1()) - x0);
            Color c = Palette.scopeColor(b.name(), dark);
            g.setFill(c);
            g.fillRect(x0, y + 1, bw, DrawListBuilder.BAND_ROW - 2);
            if (b.folded() > 1) {
                // a run of executions too narrow to draw one by one: hatched, as Tracy folds zones; one fill of a
                // hatch tile (a stroked line every 4 px was a hundred anti-aliased strokes a band, a frame)
                g.save();
                g.translate(0, y + 1);
                g.setFill(hatch(c.deriveColor(0, 1, dark ? 1.5 : 0.7, 1)));
                g.fillRect(x0, 0, bw, HATCH_H);
                g.restore();
            }
            String text = bandLabel(b.name(), b.folded(), bw - 6, SMALL_CHAR_PX);
            if (!text.isEmpty()) {
                g.setFill(dark ? Color.WHITE : Color.web("#1f2933"));
                g.setFont(SMALL);
                g.setTextAlign(TextAlignment.LEFT);
                g.setTextBaseline(VPos.CENTER);
                g.fillText(text, x0 + 3, y + DrawListBuilder.BAND_ROW / 2.0);
            }
        }

        for (DrawList.MarkerMark m : lane.markers()) {
            Color c = switch (m.kind()) {
                case OUT_OF_MEMORY -> p.oom();
                case RESET -> p.reset();
                case LOSS -> p.loss();
                default -> p.marker();
            };
            double x = Math.floor(m.x()) + 0.5;
            g.setFill(c);
            vline(g, x, top, bottom, 1.5);
            g.fillPolygon(new double[] {x - 4, x + 4, x}, new double[] {top, top, top + 6}, 3);
            if (m.count() > 1) {
                g.setFont(SMALL);
                g.setTextAlign(TextAlignment.LEFT);
                g.setTextBaseline(VPos.TOP);
                g.fillText("×" + m.count(), x + 4, top + 1);
            }
        }

        peakMark(g, lane, p, w);
        // the byte labels last: over the fills and stripes, never under them
        byteLabels(g, lane, p, w);

        // the label sits in the lane's header strip, above the data it describes
        String label = laneLabel(lane);
        g.setFont(LABEL);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        g.setFill(p.labelBackground());
        g.fillRect(0, laneTop, w, DrawListBuilder.LANE_HEADER - 1);
        double switchX = StripePainter.toggleBounds(w)[0];
        double keysX = lineKeys(g, lane, p, switchX - 10, laneTop, label.length() * LABEL_CHAR_PX + 18, dark);
        // the label stops short of the keys and the switch, shortened at a word with an ellipsis (at the least
        // width it ran into "area stripes", then, clipped, read "2,924 dra---- peak in use")
        String shown = fitLabel(label, keysX - HEADER_GAP - 6);
        g.setFont(LABEL);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        g.setFill(p.text());
        g.fillText(shown, 6, laneTop + DrawListBuilder.LANE_HEADER / 2.0);
        StripePainter.paintToggle(g, lane, p, w);
        g.setFill(p.grid());
        hline(g, 0, w, Math.floor(laneTop + lane.height()) + 0.5, 1);
    }

    /** A folded band's hatch: one rising diagonal every {@value #HATCH_W} px over the band's height less its margins. */
    static final int HATCH_W = 4;
    static final int HATCH_H = DrawListBuilder.BAND_ROW - 2;
    /** FX thread: the hatch tile of each colour drawn so far (a band's colour is its scope name's: few); forgotten past 256. */
    private static final Map<Color, ImagePattern> HATCHES = new HashMap<>();

    /** The hatch in {@code stroke}, as a pattern anchored at the origin (the caller translates to the band's top). */
    static ImagePattern hatch(Color stroke) {
        ImagePattern p = HATCHES.get(stroke);
        if (p == null) {
            if (HATCHES.size() >= 256) {
                HATCHES.clear();
            }
            p = new ImagePattern(hatchTile(stroke), 0, 0, HATCH_W, HATCH_H, false);
            HATCHES.put(stroke, p);
        }
        return p;
    }

    /**
     * The tile: a one-pixel line from its bottom-left corner to its top-right, repeated every tile, each pixel
     * {@code stroke} at the share of it the line covers (one minus the distance of its centre from the nearest
     * repeat of the line, as an anti-aliased stroke of width 1 covers it), transparent elsewhere.
     */
    static WritableImage hatchTile(Color stroke) {
        WritableImage tile = new WritableImage(HATCH_W, HATCH_H);
        double dx = HATCH_W;
        double dy = -(HATCH_H - 1);
        double len = Math.hypot(dx, dy);
        for (int py = 0; py < HATCH_H; py++) {
            for (int px = 0; px < HATCH_W; px++) {
                double cx = px + 0.5;
                double cy = py + 0.5;
                double d = Double.MAX_VALUE;
                for (int k = -1; k <= 1; k++) {
                    // from (k·W, H-1) towards (k·W + W, 0): the line of this tile and its neighbours'
                    double ox = cx - k * HATCH_W;
                    double oy = cy - (HATCH_H - 1);
                    d = Math.min(d, Math.abs(ox * dy - oy * dx) / len);
                }
                double cover = Math.clamp(1 - d, 0, 1);
                tile.getPixelWriter().setColor(px, py, new Color(stroke.getRed(), stroke.getGreen(), stroke.getBlue(), stroke.getOpacity() * cover));
            }
        }
        return tile;
    }

    /**
     * The lane's label: name, kind, capacity and high-waters. For an arena: the high-water of bytes in
     * use (both ends together), then each end's own high-water (they need not fall together), the same
     * figures the report gives.
     */
    static String laneLabel(DrawList.Lane lane) {
        return laneLabelText(lane);
    }

    /** Room left between the lane's label and what follows it in the header (the keys, the switch). */
    static final double HEADER_GAP = 14;

    /** How wide {@code text} is in the lanes' label font, in pixels. */
    static double labelWidth(String text) {
        Text t = new Text(text);
        t.setFont(LABEL);
        return t.getLayoutBounds().getWidth();
    }

    /**
     * {@code label} as it fits in {@code room} pixels of the label font: whole, or cut after its last whole
     * word (or "·"-separated part) that fits, with an ellipsis; empty when not even a word fits.
     */
    static String fitLabel(String label, double room) {
        if (labelWidth(label) <= room) {
            return label;
        }
        int end = label.length();
        while (end > 0) {
            int cut = label.lastIndexOf(' ', end - 1);
            if (cut <= 0) {
                return "";
            }
            String head = label.substring(0, cut).replaceAll("[\\s·:,]+$", "") + "…";
            if (labelWidth(head) <= room) {
                return head;
            }
            end = cut;
        }
        return "";
    }

    private static String laneLabelText(DrawList.Lane lane) {
        String base = occupancyLabel(lane);
        if (lane.stripes() != null) {
            StripeLayer s = lane.stripes();
            // the count of what is drawn one by one, in the legend's words (not "N of M seen": M counted only
            // the allocations a quarter pixel tall, so "762 of 762 seen" sat beside a grey band of 287 others)
            return base + String.format(Locale.ROOT, "  ·  stripes by %s: %,d drawn one by one in view, the rest in the grey band",
                    s.colourBy() == SiteAnalysis.By.SITE ? "site" : "category", s.stripes());
        }
        return lane.stripesOn() ? base + "  ·  indexing allocations…" : base;
    }

    private static String occupancyLabel(DrawList.Lane lane) {
        MemoryKind kind = lane.memory().kind();
        long cap = lane.memory().capacity();
        StringBuilder sb = new StringBuilder(lane.memory().name()).append("  ·  ").append(kindName(kind));
        if (cap > 0) {
            sb.append("  ·  capacity ").append(Bytes.format(cap));
        }
        sb.append("  ·  peak ").append(Bytes.format(lane.peakUsed()));
        if (kind.twoPointer()) {
            sb.append(" used");
            if (lane.peakForward() >= 0 && lane.peakAux() > 0) {
                sb.append(" (forward ").append(Bytes.format(lane.peakForward())).append(", backward ")
                        .append(Bytes.format(lane.peakAux())).append(')');
            }
        } else if ((kind == MemoryKind.POOL || kind == MemoryKind.SEGMENTED) && lane.peakAux() > 0) {
            sb.append(", reserved ").append(Bytes.format(lane.peakAux()));
        }
        return sb.toString();
    }

    /** {@code v} with -1 wherever {@code mask} is -1 (columns before the memory's first event). */
    private static long[] masked(long[] v, long[] mask) {
        long[] out = v.clone();
        for (int i = 0; i < out.length; i++) {
            if (mask[i] < 0) {
                out[i] = -1;
            }
        }
        return out;
    }

    /** Width of one character of {@link #SMALL} text, px (an upper bound for the label font's digits and letters). */
    static final double SMALL_CHAR_PX = 6.0;
    /** About the width of one character of the lane label's font (11 px). */
    static final double LABEL_CHAR_PX = 6.6;

    /**
     * A scope band's label that fits {@code widthPx}: the name with its fold count ("batch ×3"), else the
     * name shortened with an ellipsis but the count kept whole ("bat… ×3"), else the count alone, else
     * nothing; never a count cut in the middle.
     */
    static String bandLabel(String name, int folded, double widthPx, double charPx) {
        int room = (int) Math.floor(widthPx / charPx);
        String count = folded > 1 ? " ×" + folded : "";
        if (name.length() + count.length() <= room) {
            return name + count;
        }
        int keep = room - count.length() - 1;
        if (keep >= 2) {
            return name.substring(0, keep) + "…" + count;
        }
        if (folded > 1 && count.length() - 1 <= room) {
            return count.substring(1);
        }
        return "";
    }

    public static String kindName(MemoryKind k) {
        return switch (k) {
            case ARENA -> "arena";
            case POOL -> "pool";
            case PLAN_SCRATCH -> "plan scratch";
            case PLAN_PERSISTENT -> "plan persistent";
            case PLAN_CONSTANT -> "plan constant";
            case SEGMENTED -> "caching allocator";
        };
    }

    private static void areaUp(GraphicsContext g, DrawList.Lane lane, long[] v, double[] xs, double[] ys, int w, double bottom, Color c) {
        int n = 0;
        int x = 0;
        while (x < w) {
            while (x < w && v[x] < 0) {
                x++;
            }
            if (x >= w) {
                break;
            }
            n = 0;
            int start = x;
            for (; x < w && v[x] >= 0; x++) {
                double y = lane.yUp(v[x]);
                xs[n] = x;
                ys[n++] = y;
                xs[n] = x + 1;
                ys[n++] = y;
            }
            xs[n] = x;
            ys[n++] = bottom;
            xs[n] = start;
            ys[n++] = bottom;
            g.setFill(c);
            g.fillPolygon(xs, ys, Math.min(n, xs.length));
        }
    }

    private static void areaDown(GraphicsContext g, DrawList.Lane lane, long[] v, double[] xs, double[] ys, int w, double top, Color c) {
        int n = 0;
        for (int x = 0; x < w; x++) {
            double y = lane.yDown(Math.max(0, v[x]));
            xs[n] = x;
            ys[n++] = y;
            xs[n] = x + 1;
            ys[n++] = y;
            if (n >= xs.length - 2) {
                break;
            }
        }
        xs[n] = w;
        ys[n++] = top;
        xs[n] = 0;
        ys[n++] = top;
        g.setFill(c);
        g.fillPolygon(xs, ys, n);
    }

    /**
     * The lane's byte axis: faint horizontal lines at power-of-two steps (B, KiB, MiB, GiB) with their
     * labels at the right edge; for an arena drawn from both ends, measured up from the bottom.
     */
    private static void byteGrid(GraphicsContext g, DrawList.Lane lane, Palette p, int w) {
        g.setFill(p.grid());
        for (long t : DrawListBuilder.byteTicks(lane.scaleBytes(), maxTicks(lane))) {
            double y = Math.floor(lane.yUp(t)) + 0.5;
            hline(g, 0, w, y, 1);
        }
    }

    private static int maxTicks(DrawList.Lane lane) {
        return Math.max(1, (int) (lane.gaugeHeight() / 28));
    }

    /** The byte axis's labels, in one unit ({@code 4.5 GiB}, {@code 5 GiB}), each on a backing over whatever lies beneath. */
    private static void byteLabels(GraphicsContext g, DrawList.Lane lane, Palette p, int w) {
        g.setFont(SMALL);
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.BOTTOM);
        for (double[] b : byteLabelBoxes(lane, w)) {
            String text = DrawListBuilder.tickLabel((long) b[4], lane.scaleBytes());
            g.setFill(p.labelBackground().deriveColor(0, 1, 1, 0.85));
            g.fillRect(b[0], b[1], b[2] - b[0], b[3] - b[1]);
            g.setFill(p.mutedText());
            g.fillText(text, w - 4, b[3]);
        }
    }

    /**
     * Where the byte axis's labels go: {@code {x0, y0, x1, y1, tick}} each, their backings at the right edge
     * above their lines (a label too near the lane's top is left out).
     */
    static List<double[]> byteLabelBoxes(DrawList.Lane lane, int w) {
        List<double[]> boxes = new ArrayList<>();
        for (long t : DrawListBuilder.byteTicks(lane.scaleBytes(), maxTicks(lane))) {
            double y = Math.floor(lane.yUp(t)) + 0.5;
            if (t > 0 && y - lane.gaugeTop() >= 10) {
                double tw = DrawListBuilder.tickLabel(t, lane.scaleBytes()).length() * SMALL_CHAR_PX + 4;
                boxes.add(new double[] {w - 4 - tw, y - 12, w - 2, y - 1, t});
            }
        }
        return boxes;
    }

    /**
     * The peak's mark: a triangle over the first column where the lane reaches the session's peak in
     * use (the lane's header says "peak X"), where that column is in view.
     */
    private static void peakMark(GraphicsContext g, DrawList.Lane lane, Palette p, int w) {
        double[] box = peakLabelBox(lane, w);
        if (box == null) {
            return;
        }
        int col = lane.peakColumn();
        double x = col + 0.5;
        double y = lane.yUp(lane.usedMax()[col]);
        g.setFill(p.highWater());
        g.fillPolygon(new double[] {x - 5, x + 5, x}, new double[] {y - 8, y - 8, y - 1}, 3);
        g.setFont(SMALL);
        g.setTextBaseline(VPos.BOTTOM);
        g.setTextAlign(TextAlignment.LEFT);
        g.setFill(p.text());
        g.fillText(peakLabel(lane), box[0], box[3]);
    }

    private static String peakLabel(DrawList.Lane lane) {
        return "peak " + Bytes.format(lane.peakUsed());
    }

    /**
     * Where the peak's label goes, {@code {x0, y0, x1, y1}} (text baseline at {@code y1}), or null when the
     * peak is not in view: beside its mark, on the side with room, and never over a byte label (at the
     * right edge, where a peak late in the view put "peak 10.8 GiB" across "11 GiB").
     */
    static double[] peakLabelBox(DrawList.Lane lane, int w) {
        int col = lane.peakColumn();
        if (col < 0) {
            return null;
        }
        double x = col + 0.5;
        double y = lane.yUp(lane.usedMax()[col]);
        double tw = peakLabel(lane).length() * SMALL_CHAR_PX;
        double ty = Math.max(lane.gaugeTop() + 11, y - 8);
        List<double[]> labels = byteLabelBoxes(lane, w);
        double x0 = x + 7; // to the right of the mark
        if (x0 + tw > w - 4 || overlapsAny(x0, ty - 11, x0 + tw, ty, labels)) {
            x0 = x - 7 - tw; // to its left, and left of any byte label it would cover
            for (double[] b : labels) {
                if (overlaps(x0, ty - 11, x0 + tw, ty, b)) {
                    x0 = b[0] - 4 - tw;
                }
            }
            x0 = Math.max(2, x0);
        }
        return new double[] {x0, ty - 11, x0 + tw, ty};
    }

    private static boolean overlapsAny(double x0, double y0, double x1, double y1, List<double[]> boxes) {
        for (double[] b : boxes) {
            if (overlaps(x0, y0, x1, y1, b)) {
                return true;
            }
        }
        return false;
    }

    private static boolean overlaps(double x0, double y0, double x1, double y1, double[] b) {
        return x0 < b[2] && x1 > b[0] && y0 < b[3] && y1 > b[1];
    }

    /** What each line of a lane is, one key per line drawn in it. */
    static List<String> lineKeyNames(DrawList.Lane lane) {
        List<String> keys = new ArrayList<>();
        MemoryKind kind = lane.memory().kind();
        long cap = lane.memory().capacity();
        if (cap > 0 && cap <= lane.scaleBytes()) {
            keys.add("capacity");
        }
        long highWater = kind.twoPointer() && lane.peakForward() >= 0 ? lane.peakForward() : lane.peakUsed();
        if (highWater <= lane.scaleBytes()) {
            keys.add("peak in use");
        }
        if (kind == MemoryKind.POOL || kind == MemoryKind.SEGMENTED) {
            keys.add("reserved");
        }
        if (lane.baselineUsed() != null) {
            keys.add("baseline");
        }
        return keys;
    }

    /**
     * Draws the keys of the lane's lines (a sample of each line and its name) right-aligned to
     * {@code right} in the header, if they fit beside a label {@code labelWidth} wide; returns their
     * left edge ({@code right} when none is drawn).
     */
    private static double lineKeys(GraphicsContext g, DrawList.Lane lane, Palette p, double right, double laneTop,
                                   double labelWidth, boolean dark) {
        List<String> keys = lineKeyNames(lane);
        double width = 0;
        for (String k : keys) {
            width += 22 + k.length() * SMALL_CHAR_PX + 10;
        }
        if (keys.isEmpty() || right - width < Math.min(labelWidth, right * 0.55)) {
            return right;
        }
        double x = right - width;
        double left = x;
        double y = laneTop + DrawListBuilder.LANE_HEADER / 2.0;
        g.setFont(SMALL);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        for (String k : keys) {
            switch (k) {
                case "capacity" -> {
                    g.setStroke(p.capacity());
                    g.setLineWidth(1);
                    g.setLineDashes(6, 3);
                }
                case "peak in use" -> {
                    g.setStroke(p.highWater());
                    g.setLineWidth(1);
                    g.setLineDashes(2, 3);
                }
                case "reserved" -> {
                    g.setStroke(p.reserved().deriveColor(0, 1, dark ? 1.4 : 0.6, 1 / Math.max(0.05, p.reserved().getOpacity())));
                    g.setLineWidth(1.5);
                    g.setLineDashes();
                }
                default -> {
                    g.setStroke(p.baseline());
                    g.setLineWidth(1);
                    g.setLineDashes(4, 3);
                }
            }
            g.strokeLine(x, Math.floor(y) + 0.5, x + 18, Math.floor(y) + 0.5);
            g.setLineDashes();
            g.setFill(p.mutedText());
            g.fillText(k, x + 22, y);
            x += 22 + k.length() * SMALL_CHAR_PX + 10;
        }
        return left;
    }

    private static void strokeUp(GraphicsContext g, DrawList.Lane lane, long[] v, int w) {
        g.beginPath();
        boolean open = false;
        for (int x = 0; x < w; x++) {
            if (v[x] < 0 || lane.usedMin()[x] < 0) {
                open = false;
                continue;
            }
            double y = lane.yUp(v[x]);
            if (!open) {
                g.moveTo(x, y);
                open = true;
            }
            g.lineTo(x + 1, y);
        }
        g.stroke();
    }

    private static void strokeDown(GraphicsContext g, DrawList.Lane lane, long[] v, int w) {
        g.beginPath();
        for (int x = 0; x < w; x++) {
            double y = lane.yDown(Math.max(0, v[x]));
            if (x == 0) {
                g.moveTo(0, y);
            }
            g.lineTo(x + 1, y);
        }
        g.stroke();
    }
}
