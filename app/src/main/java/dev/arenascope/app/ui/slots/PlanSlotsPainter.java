package dev.arenascope.app.ui.slots;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.model.TensorSlot;
import dev.arenascope.core.format.Bytes;

/**
 * Paints a {@link PlanSlotsDrawList} in one pass: per arena a band of offset over step, each tensor a
 * rectangle coloured by role, the plan's height and the lower bound as dashed lines. FX thread.
 */
final class PlanSlotsPainter {
    private static final Font SMALL = Font.font("System", 10);
    private static final Font LABEL = Font.font("System", 11);
    private static final Color LOWER_BOUND = Color.web("#2e9e5b");

    private PlanSlotsPainter() {}

    static void paint(GraphicsContext g, PlanSlotsDrawList d, Palette p, boolean dark) {
        g.setFill(p.background());
        g.fillRect(0, 0, d.width(), d.height());
        if (!d.hint().isEmpty()) {
            SlotHints.hint(g, p, d.width(), d.height(), d.hint());
            return;
        }
        for (PlanSlotsDrawList.Placed pl : d.placed()) {
            arena(g, p, dark, pl);
        }
    }

    private static void arena(GraphicsContext g, Palette p, boolean dark, PlanSlotsDrawList.Placed pl) {
        SlotArena a = pl.arena();
        double x = pl.x(), y = pl.y(), w = pl.w(), h = pl.h();
        g.setFill(p.laneBackground());
        g.fillRect(x, y, w, h);
        g.setFont(LABEL);
        g.setFill(p.text());
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.BOTTOM);
        g.fillText(pl.title(), x, y - 3);
        double sx = w / Math.max(1, a.steps());
        double sy = h / (double) pl.scale();
        for (TensorSlot s : a.slots()) {
            double rx = x + s.firstStep() * sx;
            double rw = Math.max(1, (s.lastStep() + 1 - s.firstStep()) * sx);
            double ry = y + h - s.end() * sy;
            double rh = Math.max(1, s.bytes() * sy);
            g.setFill(Palette.roleColor(s.role(), dark));
            g.fillRect(rx, ry, rw, rh);
            if (rw > 3 && rh > 3) {
                g.setStroke(p.background());
                g.setLineWidth(0.6);
                g.strokeRect(rx, ry, rw, rh);
            }
        }
        g.setLineWidth(1);
        g.setLineDashes(5, 3);
        g.setStroke(p.highWater());
        double hy = Math.floor(y + h - a.height() * sy) + 0.5;
        g.strokeLine(x, hy, x + w, hy);
        g.setStroke(LOWER_BOUND);
        double ly = Math.floor(y + h - a.lowerBound() * sy) + 0.5;
        g.strokeLine(x, ly, x + w, ly);
        g.setLineDashes();
        g.setFont(SMALL);
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        g.setFill(p.highWater());
        g.fillText("height " + Bytes.format(a.height()), x - 4, hy);
        g.setFill(LOWER_BOUND);
        g.fillText("lower " + Bytes.format(a.lowerBound()), x - 4, Math.abs(ly - hy) < 11 ? ly + 11 : ly);
        g.setFill(p.mutedText());
        g.fillText("0", x - 4, y + h - 4);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        g.fillText("step 0", x, y + h + 2);
        g.setTextAlign(TextAlignment.RIGHT);
        g.fillText("step " + (a.steps() - 1), x + w, y + h + 2);
        g.setStroke(p.grid());
        g.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
    }
}
