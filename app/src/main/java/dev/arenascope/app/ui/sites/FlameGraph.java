package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntConsumer;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.Percent;
import dev.arenascope.core.trace.StackFrame;

/**
 * The site view's icicle: the answer's call tree drawn root on top, each frame a box as wide as its
 * bytes. Click selects a box ({@link #selectedProperty()}), double-click zooms into it (its ancestors
 * then span the width above it), double-click on the root (or {@link #zoomOut()}) goes back;
 * hovering names the box in {@link #hoverTextProperty()}. Boxes are coloured by source file (stable
 * hues), by change against the baseline in compare mode (growth red, shrink green, deeper for larger
 * changes), and a search dims every box that does not match. FX thread only.
 */
final class FlameGraph extends Region {
    static final double ROW = 18;
    private static final Font FONT = Font.font("System", 11);

    private final Canvas canvas = new Canvas();
    private final ReadOnlyIntegerWrapper selected = new ReadOnlyIntegerWrapper(this, "selected", -1);
    private final ReadOnlyStringWrapper hoverText = new ReadOnlyStringWrapper(this, "hoverText", "");
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private FlameLayout layout;
    private int focus;
    private int hover = -1;
    private String search = "";
    private IntConsumer onPick = i -> {};

    FlameGraph() {
        setId("site-flame");
        getChildren().add(canvas);
        setMinHeight(ROW * 3);
        widthProperty().addListener((o, a, b) -> repaint());
        heightProperty().addListener((o, a, b) -> repaint());
        dark.addListener((o, a, b) -> repaint());
        canvas.setOnMouseMoved(e -> {
            int i = boxAt(e.getX(), e.getY());
            if (i != hover) {
                hover = i;
                hoverText.set(i < 0 ? "" : describe(i));
                repaint();
            }
        });
        canvas.setOnMouseExited(e -> {
            hover = -1;
            hoverText.set("");
            repaint();
        });
        canvas.setOnMouseClicked(e -> {
            if (e.getButton() != MouseButton.PRIMARY || layout == null) {
                return;
            }
            int i = boxAt(e.getX(), e.getY());
            if (e.getClickCount() >= 2) {
                focus = i <= 0 || i == focus ? 0 : i;
                repaint();
                return;
            }
            if (i >= 0) {
                select(i);
                onPick.accept(i);
            }
        });
    }

    /** Shows {@code l} (null: nothing), zoomed out, nothing selected. */
    void show(FlameLayout l) {
        layout = l;
        focus = 0;
        hover = -1;
        selected.set(-1);
        hoverText.set("");
        requestLayout();
        repaint();
    }

    FlameLayout layoutShown() {
        return layout;
    }

    /** Called with the box the user clicked. */
    void setOnPick(IntConsumer pick) {
        onPick = pick;
    }

    /** Marks box {@code i} selected (-1: none) without telling {@link #setOnPick}'s listener. */
    void select(int i) {
        selected.set(i);
        repaint();
    }

    /** Zooms into box {@code i} (0: the whole tree). */
    void zoomTo(int i) {
        focus = layout == null || i < 0 || i >= layout.size ? 0 : i;
        repaint();
    }

    void zoomOut() {
        zoomTo(0);
    }

    int focus() {
        return focus;
    }

    /** Dims the boxes whose function and file do not hold {@code text} (blank: none dimmed). */
    void search(String text) {
        search = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        repaint();
    }

    ReadOnlyIntegerProperty selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    ReadOnlyStringProperty hoverTextProperty() {
        return hoverText.getReadOnlyProperty();
    }

    BooleanProperty darkProperty() {
        return dark;
    }

    /** The height the whole tree needs. */
    @Override
    protected double computePrefHeight(double width) {
        return layout == null ? ROW * 3 : (layout.maxDepth + 1) * ROW + 2;
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
        repaint();
    }

    // ---------------------------------------------------------------- geometry

    /** Horizontal extent of box {@code i} in pixels at the current zoom: {from, to}; ancestors of the focus span the width. */
    private double[] extent(int i, double w) {
        FlameLayout l = layout;
        if (isAncestorOrSelf(i, focus)) {
            return new double[] {0, w};
        }
        double f0 = l.x0[focus];
        double f1 = l.x1[focus];
        double span = Math.max(1e-18, f1 - f0);
        return new double[] {(l.x0[i] - f0) / span * w, (l.x1[i] - f0) / span * w};
    }

    private boolean isAncestorOrSelf(int a, int of) {
        for (int k = of; k >= 0; k = layout.parent[k]) {
            if (k == a) {
                return true;
            }
        }
        return false;
    }

    private boolean inFocus(int i) {
        return isAncestorOrSelf(focus, i) || isAncestorOrSelf(i, focus);
    }

    /** The box under ({@code x}, {@code y}), or -1. */
    int boxAt(double x, double y) {
        FlameLayout l = layout;
        if (l == null) {
            return -1;
        }
        int d = (int) (y / ROW);
        double w = getWidth();
        for (int i = 0; i < l.size; i++) {
            if (l.depth[i] == d && inFocus(i)) {
                double[] e = extent(i, w);
                if (x >= e[0] && x < e[1]) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** One line for box {@code i}: frame, bytes, share, count (and change in compare mode). */
    String describe(int i) {
        FlameLayout l = layout;
        var n = l.node[i];
        StackFrame f = n.frame();
        String what = i == l.unsited ? "(no site): allocations without a recorded stack" : f == null ? "all sites" : f.label();
        String s = what + " — " + Bytes.format(n.totalBytes()) + " (" + Percent.of(n.totalBytes(), l.total) + "), "
                + Counts.of(n.count(), "allocation");
        if (n.selfBytes() > 0 && f != null) {
            s += ", " + Bytes.format(n.selfBytes()) + " allocated right here";
        }
        if (l.baselineBytes != null) {
            long delta = n.totalBytes() - l.baselineBytes[i];
            s += "; baseline " + Bytes.format(l.baselineBytes[i]) + ", change " + (delta >= 0 ? "+" : "−") + Bytes.format(Math.abs(delta));
        }
        return s;
    }

    // ---------------------------------------------------------------- paint

    private void repaint() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        Palette p = dark.get() ? Palette.DARK : Palette.LIGHT;
        g.setFill(p.laneBackground());
        g.fillRect(0, 0, w, h);
        FlameLayout l = layout;
        if (l == null || w <= 0) {
            return;
        }
        g.setFont(FONT);
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        long maxDelta = 1;
        if (l.baselineBytes != null) {
            for (int i = 0; i < l.size; i++) {
                maxDelta = Math.max(maxDelta, Math.abs(l.node[i].totalBytes() - l.baselineBytes[i]));
            }
        }
        for (int i = 0; i < l.size; i++) {
            if (!inFocus(i)) {
                continue;
            }
            double y = l.depth[i] * ROW;
            if (y > h) {
                continue;
            }
            double[] e = extent(i, w);
            double bw = e[1] - e[0];
            if (bw < 0.5 || e[1] < 0 || e[0] > w) {
                continue;
            }
            Color c = color(i, maxDelta, dark.get());
            if (!search.isEmpty() && !l.matches(i, search)) {
                c = c.desaturate().desaturate().deriveColor(0, 1, 1, 0.35);
            }
            g.setFill(c);
            g.fillRect(e[0], y, Math.max(0.5, bw - 0.5), ROW - 1);
            if (i == hover) {
                g.setStroke(p.text());
                g.setLineWidth(1);
                g.strokeRect(e[0] + 0.5, y + 0.5, Math.max(0.5, bw - 1.5), ROW - 2);
            }
            if (i == selected.get()) {
                g.setStroke(p.cursor());
                g.setLineWidth(2);
                g.strokeRect(e[0] + 1, y + 1, Math.max(0.5, bw - 2.5), ROW - 3);
            }
            if (bw > 24) {
                String text = l.label(i);
                int fit = (int) ((bw - 6) / 6.2);
                if (fit < text.length()) {
                    text = fit <= 1 ? "" : text.substring(0, fit - 1) + "…";
                }
                g.setFill(dark.get() ? Color.web("#f0f3f6") : Color.web("#1f2933"));
                g.fillText(text, Math.max(0, e[0]) + 3, y + ROW / 2);
            }
        }
    }

    private Color color(int i, long maxDelta, boolean dark) {
        FlameLayout l = layout;
        if (l.baselineBytes != null) {
            long delta = l.node[i].totalBytes() - l.baselineBytes[i];
            double t = Math.min(1, Math.abs(delta) / (double) maxDelta);
            if (delta == 0) {
                return dark ? Color.web("#4a525c") : Color.web("#d5dae0");
            }
            double sat = 0.15 + 0.7 * Math.sqrt(t);
            return delta > 0 ? Color.hsb(2, sat, dark ? 0.75 : 0.95) : Color.hsb(130, sat, dark ? 0.62 : 0.85);
        }
        StackFrame f = l.node[i].frame();
        if (f == null) {
            return i == l.unsited ? (dark ? Color.web("#3d444d") : Color.web("#e3e7ec")) : dark ? Color.web("#5a6470") : Color.web("#c8cfd8");
        }
        int hsh = (f.file().isEmpty() ? f.function() : f.file()).hashCode();
        double hue = 8 + Math.floorMod(hsh * 0x9E3779B1, 48); // warm: red to yellow, as flame graphs are
        return Color.hsb(hue, dark ? 0.55 : 0.45, dark ? 0.72 : 0.98);
    }

    /** The boxes whose function or file holds {@code text}: for the search's count and jumps. */
    List<Integer> matching(String text) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (layout == null || s.isEmpty()) {
            return List.of();
        }
        ArrayList<Integer> out = new ArrayList<>();
        for (int i = 1; i < layout.size; i++) {
            if (layout.matches(i, s)) {
                out.add(i);
            }
        }
        return out;
    }
}
