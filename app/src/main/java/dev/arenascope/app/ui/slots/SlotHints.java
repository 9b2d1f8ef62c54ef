package dev.arenascope.app.ui.slots;

import java.util.List;
import java.util.Locale;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.core.format.Counts;

/** What the plan-slots and allocator views share: the empty view's hint, and where a hover card goes. FX thread. */
final class SlotHints {
    private SlotHints() {}

    /** {@code text} centred on an empty canvas. */
    static void hint(GraphicsContext g, Palette p, double w, double h, String text) {
        g.setFill(p.mutedText());
        g.setFont(Font.font("System", 13));
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.CENTER);
        g.fillText(text, w / 2, h / 2);
    }

    /**
     * Places {@code card} (unmanaged, in a pane {@code w × h}) by the pointer at {@code (x, y)}, as the
     * timeline's stripe card is: right of it (or left, where it would run off the pane's right edge),
     * below it or above; where it fits beside the pointer on neither side, above or below it, whichever has
     * more room. It stays inside the pane and off the pointer: a card too tall for its room is cut to the
     * lines that fit, its last line saying how many were left out; and off the map's {@code origin} (its
     * first byte, null: none), narrowed where it must be. Its size is its text's, laid out now.
     */
    static void place(Label card, String text, double x, double y, double w, double h, double[] origin) {
        card.setVisible(!text.isEmpty());
        card.setMaxWidth(Region.USE_COMPUTED_SIZE);
        if (text.isEmpty()) {
            card.setText("");
            return;
        }
        double[] full = layout(card, text);
        double ch = fit(card, text, full, h);
        double cw = card.getWidth();
        boolean right = x + 14 + cw <= w;
        boolean left = x - cw - 8 >= 0;
        double px;
        double py;
        if (right || left) {
            px = right ? x + 14 : x - cw - 8;
            py = y + 14 + ch <= h ? y + 14 : y - ch - 8;
        } else {
            boolean below = h - y - 14 >= y - 8;
            ch = fit(card, text, full, below ? h - y - 14 : y - 8);
            cw = card.getWidth();
            px = x - cw / 2;
            py = below ? y + 14 : y - ch - 8;
        }
        // inside the view above all
        px = Math.max(0, Math.min(px, w - cw));
        py = Math.max(0, Math.min(py, h - ch));
        if (origin != null && px <= origin[0] && px + cw >= origin[0] && py <= origin[1] && py + ch >= origin[1]) {
            // over the map's origin: right of it, narrowed (its long lines cut) where it must be
            double minX = origin[0] + 2;
            double room = px < x ? x - 8 - minX : w - minX;
            if (cw > room && room > 40) {
                card.setMaxWidth(room);
                card.autosize();
                cw = card.getWidth();
            }
            px = px < x ? Math.max(minX, x - 8 - cw) : Math.max(minX, px);
        }
        card.relocate(Math.max(0, px), Math.max(0, py));
    }

    /** Lays {@code card} out with {@code text}: its width and height. */
    private static double[] layout(Label card, String text) {
        card.setText(text);
        card.applyCss();
        card.autosize();
        return new double[] {card.getWidth(), card.getHeight()};
    }

    /** Cuts the card's text to the lines that fit {@code room} px (at least its first); its height. */
    private static double fit(Label card, String text, double[] size, double room) {
        if (size[1] <= room) {
            return size[1];
        }
        List<String> lines = text.lines().toList();
        double lineH = Math.max(8, (size[1] - 14) / Math.max(1, lines.size()));
        int keep = (int) Math.min(lines.size() - 1, Math.max(1, Math.floor((room - 14) / lineH) - 1));
        double ch = size[1];
        for (; keep >= 1; keep--) {
            String cut = String.join("\n", lines.subList(0, keep)) + String.format(Locale.ROOT, "%n  … %s (a taller view shows them)",
                    Counts.of(lines.size() - keep, "more line"));
            ch = layout(card, cut)[1];
            if (ch <= room) {
                break;
            }
        }
        return ch;
    }
}
