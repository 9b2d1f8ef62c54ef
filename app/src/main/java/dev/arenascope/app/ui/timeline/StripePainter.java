package dev.arenascope.app.ui.timeline;

import java.nio.IntBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

import javafx.geometry.Rectangle2D;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelBuffer;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;

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

    /**
     * A lane's image and its pixels, kept between frames (a frame's layer is new; its image need not be). The
     * image is made over the pixel array itself, so a frame writes its colours once, into the array, and tells
     * the image which part changed; copying the array into the image (setPixels) was a second pass over every
     * pixel a frame, most of the FX thread's painting of a striped lane.
     */
    private static final class Raster {
        final PixelBuffer<IntBuffer> pixels;
        final WritableImage image;
        final int[] argb;

        Raster(int w, int h) {
            argb = new int[w * h];
            pixels = new PixelBuffer<>(w, h, IntBuffer.wrap(argb), PixelFormat.getIntArgbPreInstance());
            image = new WritableImage(pixels);
        }
    }

    /**
     * FX thread: per canvas, per lane (memory id), the image its stripes were last drawn into. Each lane
     * of a canvas has its own (a frame draws them all before the canvas is rendered), and a frame
     * rewrites the one the frame before drew, as an animation rewrites its image; a new image and a
     * 2.5 MB pixel array a frame cost more than the rest of the painting. A closed window's canvas is
     * forgotten with it.
     */
    private static final Map<Canvas, Map<Integer, Raster>> RASTERS = new WeakHashMap<>();

    private static Raster raster(GraphicsContext g, int memory, int w, int h) {
        Map<Integer, Raster> lanes = RASTERS.computeIfAbsent(g.getCanvas(), c -> new HashMap<>());
        Raster r = lanes.get(memory);
        if (r == null || (int) r.image.getWidth() != w || (int) r.image.getHeight() != h) {
            r = new Raster(w, h);
            lanes.put(memory, r);
        }
        return r;
    }

    private static final Map<Long, Long> SHADES = new ConcurrentHashMap<>();

    /**
     * A group's two shades as opaque ARGB, {@code even << 32 | odd}: its colour and the one a shade
     * apart that every other stripe of it takes. Kept per (seed, theme) across frames (a frame has
     * thousands of groups and each colour is an HSB conversion); the table is forgotten past 65,536 seeds.
     */
    static long shades(int seed, boolean dark) {
        long key = (long) seed << 1 | (dark ? 1 : 0);
        Long v = SHADES.get(key);
        if (v == null) {
            Color c = groupColor(seed, dark);
            Color o = c.deriveColor(0, 1, dark ? 1.12 : 0.92, 1);
            v = (long) argb(c) << 32 | (argb(o) & 0xffffffffL);
            if (SHADES.size() >= 65_536) {
                SHADES.clear();
            }
            SHADES.put(key, v);
        }
        return v;
    }

    /** Shade {@code at & 1} of a group blended toward the background (a stripe of a site not highlighted), made once a frame. */
    private static int faded(int[] cache, int seed, int at, boolean dark, Color background) {
        if (cache[at] == 0) {
            Color c = groupColor(seed, dark);
            c = (at & 1) == 0 ? c : c.deriveColor(0, 1, dark ? 1.12 : 0.92, 1);
            cache[at] = argb(blend(c, background, 0.6));
        }
        return cache[at];
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
        int groups = s.groups.size();
        int[] even = new int[groups];
        int[] odd = new int[groups];
        for (int gi = 0; gi < groups; gi++) {
            long both = shades(s.groups.get(gi).colourSeed(), dark);
            even[gi] = (int) (both >>> 32);
            odd[gi] = (int) both;
        }
        Color strongSel = dark ? Color.web("#ffd33d") : Color.web("#f5b400");
        int sel = argb(strongSel);
        Color bgc = p.laneBackground();
        int[] faded = s.anyHighlight ? new int[2 * groups] : null; // 0: not made yet
        for (int k = 0; k < n; k++) {
            // neighbours of one site apart by a shade
            int c = (k & 1) == 0 ? even[s.groupOf[k]] : odd[s.groupOf[k]];
            if (s.ids[k] == selected) {
                c = sel;
            } else if (s.anyHighlight && !s.strong[k]) {
                c = faded(faded, s.groups.get(s.groupOf[k]).colourSeed(), s.groupOf[k] << 1 | (k & 1), dark, bgc);
            }
            lut[k + 3] = c;
        }
        Raster r = raster(g, lane.memory().id(), w, h);
        // the pixels are written in the buffer's update, as the image expects them
        r.pixels.updateBuffer(b -> write(r.argb, s.slots, lut, w, h));
        g.drawImage(r.image, 0, lane.gaugeTop());
    }

    /**
     * Writes the raster's colours into {@code out} (row-major like the image: one sequential pass through the
     * table) and returns the rows that changed, empty when none did (a repaint for a cursor or a hover: the
     * image is not sent again). Opaque pixels are their own premultiplied form.
     */
    private static Rectangle2D write(int[] out, int[] slots, int[] lut, int w, int h) {
        int firstRow = h;
        int lastRow = -1;
        for (int y = 0, i = 0; y < h; y++) {
            boolean changed = false;
            for (int e = i + w; i < e; i++) {
                int c = lut[slots[i] + 2];
                if (out[i] != c) {
                    out[i] = c;
                    changed = true;
                }
            }
            if (changed) {
                firstRow = Math.min(firstRow, y);
                lastRow = y;
            }
        }
        return lastRow < firstRow ? Rectangle2D.EMPTY : new Rectangle2D(0, firstRow, w, lastRow - firstRow + 1);
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
