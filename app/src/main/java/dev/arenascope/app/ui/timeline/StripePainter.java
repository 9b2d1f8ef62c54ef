package dev.arenascope.app.ui.timeline;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;

/**
 * Paints a lane's {@link StripeLayer}: its raster turned into colours through one table (a colour per
 * slot: the stripe's group, a shade apart from its neighbour, faded when another site is highlighted,
 * strong for the selected allocation) and drawn as one image, so a frame costs the same for ten
 * stripes or eight thousand. Also the lane header's Area / Stripes switch. FX thread.
 */
public final class StripePainter {
    private static final Font TOGGLE = Font.font("System", 10);
    private static final Font TOGGLE_ON = Font.font("System", FontWeight.BOLD, 10);
    /** Widths of the header switch's two halves, px. */
    static final double AREA_W = 34;
    static final double STRIPES_W = 46;

    private StripePainter() {}

    /** A colour group's colour (the same key, the same colour, in the lanes and the legend). */
    public static Color groupColor(int seed, boolean dark) {
        double hue = Math.floorMod(seed * 0x9E3779B1, 360);
        return Color.hsb(hue, dark ? 0.50 : 0.46, dark ? 0.72 : 0.90);
    }

    /** The colour of the others band. */
    public static Color othersColor(boolean dark) {
        return dark ? Color.web("#4a525c") : Color.web("#cdd3da");
    }

    /**
     * Draws the stripes of {@code lane} over its gauge area.
     *
     * @param selected the selected allocation's number in this lane's memory, or -1
     */
    static void paint(GraphicsContext g, DrawList.Lane lane, Palette p, boolean dark, int selected) {
        StripeLayer s = lane.stripes();
        int w = s.width;
        int h = s.height;
        int n = s.ids.length;
        int bg = argb(p.laneBackground());
        int[] lut = new int[n + 3]; // index slot + 2: ENVELOPE, EMPTY, OTHERS, stripes
        lut[0] = argb(blend(p.forwardEnvelope(), p.laneBackground(), 0.35));
        lut[1] = bg;
        lut[2] = argb(othersColor(dark));
        Color[] groupColors = new Color[s.groups.size()];
        for (int gi = 0; gi < groupColors.length; gi++) {
            groupColors[gi] = groupColor(s.groups.get(gi).colourSeed(), dark);
        }
        Color strongSel = dark ? Color.web("#ffd33d") : Color.web("#f5b400");
        for (int k = 0; k < n; k++) {
            Color c = groupColors[s.groupOf[k]];
            // neighbours of one site apart by a shade
            c = (k & 1) == 0 ? c : c.deriveColor(0, 1, dark ? 1.12 : 0.92, 1);
            if (s.ids[k] == selected) {
                c = strongSel;
            } else if (s.anyHighlight && !s.strong[k]) {
                c = blend(c, p.laneBackground(), 0.6);
            }
            lut[k + 3] = argb(c);
        }
        if (s.argb == null || s.argb.length != w * h) {
            s.argb = new int[w * h];
        }
        int[] out = s.argb;
        int[] slots = s.slots;
        // column-major slots to row-major pixels, a band of columns at a time so both stay in cache
        for (int x0 = 0; x0 < w; x0 += 16) {
            int x1 = Math.min(w, x0 + 16);
            for (int y = 0; y < h; y++) {
                int row = y * w;
                for (int x = x0; x < x1; x++) {
                    out[row + x] = lut[slots[x * h + y] + 2];
                }
            }
        }
        if (s.image == null || (int) s.image.getWidth() != w || (int) s.image.getHeight() != h) {
            s.image = new WritableImage(w, h);
        }
        s.image.getPixelWriter().setPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), out, 0, w);
        g.drawImage(s.image, 0, lane.gaugeTop());
    }

    /** The header switch's halves: {@code {areaX0, stripesX0, stripesX1}} for a canvas {@code w} wide. */
    static double[] toggleBounds(double w) {
        double x1 = w - 6;
        double x0s = x1 - STRIPES_W;
        return new double[] {x0s - AREA_W, x0s, x1};
    }

    /** Draws the Area / Stripes switch at the right of the lane's header strip. */
    static void paintToggle(GraphicsContext g, DrawList.Lane lane, Palette p, double w) {
        double[] b = toggleBounds(w);
        double y = lane.top() + 2;
        double hh = DrawListBuilder.LANE_HEADER - 5;
        g.setStroke(p.grid());
        g.setLineWidth(1);
        g.strokeRect(Math.floor(b[0]) + 0.5, Math.floor(y) + 0.5, b[2] - b[0], hh);
        g.setFill(p.selection().deriveColor(0, 1, 1, 2.5));
        double onX = lane.stripesOn() ? b[1] : b[0];
        double onW = lane.stripesOn() ? b[2] - b[1] : b[1] - b[0];
        g.fillRect(onX + 1, y + 1, onW - 1, hh - 1);
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.CENTER);
        g.setFill(p.text());
        g.setFont(lane.stripesOn() ? TOGGLE : TOGGLE_ON);
        g.fillText("area", (b[0] + b[1]) / 2, y + hh / 2 + 0.5);
        g.setFont(lane.stripesOn() ? TOGGLE_ON : TOGGLE);
        g.fillText("stripes", (b[1] + b[2]) / 2, y + hh / 2 + 0.5);
    }

    /**
     * What a click at canvas {@code (x, y)} on the header switch asks for: {@code TRUE} stripes,
     * {@code FALSE} the area, null when it is not on the switch.
     */
    static Boolean toggleAt(DrawList.Lane lane, double w, double x, double y) {
        if (y < lane.top() || y >= lane.top() + DrawListBuilder.LANE_HEADER) {
            return null;
        }
        double[] b = toggleBounds(w);
        if (x >= b[0] && x < b[1]) {
            return Boolean.FALSE;
        }
        if (x >= b[1] && x < b[2]) {
            return Boolean.TRUE;
        }
        return null;
    }

    private static Color blend(Color c, Color toward, double t) {
        return new Color(c.getRed() + (toward.getRed() - c.getRed()) * t, c.getGreen() + (toward.getGreen() - c.getGreen()) * t,
                c.getBlue() + (toward.getBlue() - c.getBlue()) * t, 1);
    }

    private static int argb(Color c) {
        // the raster is opaque: colours with transparency were blended over the lane's background before
        int a = 255;
        int r = (int) Math.round(c.getRed() * 255);
        int gr = (int) Math.round(c.getGreen() * 255);
        int b = (int) Math.round(c.getBlue() * 255);
        return a << 24 | r << 16 | gr << 8 | b;
    }
}
