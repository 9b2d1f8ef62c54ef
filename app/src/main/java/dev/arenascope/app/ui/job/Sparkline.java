package dev.arenascope.app.ui.job;

import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;

import dev.arenascope.app.ui.common.Palette;

/**
 * One rank's live bytes over its run, drawn small: the {@code liveOverTime} buckets of its row as a filled
 * line, on the job's one byte axis (full height is the job's largest peak, so ranks compare by height), the
 * peak dotted; the worst rank in the out-of-memory colour. FX thread.
 */
final class Sparkline extends Canvas {
    static final double HEIGHT = 22;

    Sparkline() {
        super(160, HEIGHT);
    }

    /** Draws {@code live} (bytes per bucket) against {@code axisBytes}; an empty array draws a flat, muted line. */
    void draw(long[] live, long axisBytes, boolean worst, Palette p) {
        GraphicsContext g = getGraphicsContext2D();
        double w = getWidth();
        double h = getHeight();
        g.clearRect(0, 0, w, h);
        g.setFill(p.laneBackground());
        g.fillRect(0, 0, w, h);
        g.setStroke(p.grid());
        g.setLineWidth(1);
        g.strokeLine(0, h - 0.5, w, h - 0.5);
        if (live == null || live.length == 0 || axisBytes <= 0) {
            return;
        }
        Color line = worst ? p.oom() : p.forward();
        int n = live.length;
        double[] xs = new double[n + 2];
        double[] ys = new double[n + 2];
        int peakAt = 0;
        for (int i = 0; i < n; i++) {
            xs[i] = n == 1 ? w / 2 : i * (w - 1) / (n - 1);
            ys[i] = h - 1 - (h - 3) * Math.min(1.0, (double) live[i] / axisBytes);
            if (live[i] > live[peakAt]) {
                peakAt = i;
            }
        }
        xs[n] = xs[n - 1];
        ys[n] = h;
        xs[n + 1] = xs[0];
        ys[n + 1] = h;
        g.setFill(line.deriveColor(0, 1, 1, 0.28));
        g.fillPolygon(xs, ys, n + 2);
        g.setStroke(line);
        g.setLineWidth(1.2);
        g.strokePolyline(xs, ys, n);
        g.setFill(line);
        g.fillOval(xs[peakAt] - 2, ys[peakAt] - 2, 4, 4);
    }
}
