package dev.arenascope.app.ui.timeline;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;

/**
 * Paints a {@link WhatIfLine} over its lane of a painted {@link DrawList}: a dashed violet line over the
 * recorded reserved line, and its key at the gauge area's top left. FX thread.
 */
final class WhatIfLinePainter {
    private static final Font SMALL = Font.font("System", 10);

    private WhatIfLinePainter() {}

    static Color color(boolean dark) {
        return dark ? Color.web("#c4b5fd") : Color.web("#6d28d9");
    }

    static void paint(GraphicsContext g, DrawList d, WhatIfLine line, Palette p, boolean dark) {
        if (line == null) {
            return;
        }
        for (DrawList.Lane lane : d.lanes()) {
            if (lane.memory().id() != line.memory()) {
                continue;
            }
            long[] v = line.columns(d);
            g.save();
            g.beginPath();
            g.rect(0, lane.gaugeTop(), d.width(), lane.gaugeHeight());
            g.clip();
            g.setStroke(color(dark));
            g.setLineWidth(1.6);
            g.setLineDashes(6, 3);
            g.beginPath();
            boolean open = false;
            for (int x = 0; x < v.length; x++) {
                if (v[x] < 0) {
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
            g.setLineDashes();
            g.restore();
            // the key, at the gauge area's top left
            double kx = 8;
            double ky = lane.gaugeTop() + 9;
            g.setFont(SMALL);
            double tw = line.label().length() * 5.6 + 30;
            g.setFill(p.laneBackground().deriveColor(0, 1, 1, 0.85));
            g.fillRect(kx - 3, ky - 7, tw, 14);
            g.setStroke(color(dark));
            g.setLineWidth(1.6);
            g.setLineDashes(6, 3);
            g.strokeLine(kx, Math.floor(ky) + 0.5, kx + 18, Math.floor(ky) + 0.5);
            g.setLineDashes();
            g.setFill(p.text());
            g.setTextAlign(TextAlignment.LEFT);
            g.setTextBaseline(VPos.CENTER);
            g.fillText(line.label(), kx + 22, ky);
        }
    }
}
