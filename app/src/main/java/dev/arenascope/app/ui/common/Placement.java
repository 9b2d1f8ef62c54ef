package dev.arenascope.app.ui.common;

import javafx.geometry.Rectangle2D;
import javafx.scene.Parent;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * Where a secondary window goes: sized from its content (never below what its controls ask for, so a
 * window manager's 200×200 default does not cut "Process" to "Por…"), centred on its owner the first
 * time it shows, and where the user left it (position and size) each time after, the stage being kept
 * by its owner. FX thread.
 */
public final class Placement {
    private Placement() {}

    /**
     * Makes {@code s} open at least {@code minWidth × minHeight} (or its content's preferred size, if
     * larger), centred on {@code owner} on its first showing; later showings keep where it was left.
     */
    public static void fitAndCentre(Stage s, Window owner, double minWidth, double minHeight) {
        boolean[] placed = {false};
        s.setOnShowing(e -> {
            if (placed[0]) {
                return;
            }
            Parent root = s.getScene() == null ? null : s.getScene().getRoot();
            double w = Math.max(minWidth, root == null ? 0 : root.prefWidth(-1));
            double h = Math.max(minHeight, root == null ? 0 : root.prefHeight(w));
            s.setMinWidth(Math.min(w, minWidth));
            s.setMinHeight(Math.min(h, minHeight));
            s.setWidth(w);
            s.setHeight(h);
            double[] at = centred(owner, w, h);
            s.setX(at[0]);
            s.setY(at[1]);
            placed[0] = true;
        });
    }

    /** The top-left corner that centres a {@code w × h} window on {@code owner}, kept on the owner's screen. */
    public static double[] centred(Window owner, double w, double h) {
        if (owner == null || Double.isNaN(owner.getX()) || Double.isNaN(owner.getWidth())) {
            Rectangle2D b = Screen.getPrimary().getVisualBounds();
            return new double[] {b.getMinX() + (b.getWidth() - w) / 2, b.getMinY() + (b.getHeight() - h) / 2};
        }
        double x = owner.getX() + (owner.getWidth() - w) / 2;
        double y = owner.getY() + (owner.getHeight() - h) / 2;
        var screens = Screen.getScreensForRectangle(owner.getX(), owner.getY(), Math.max(1, owner.getWidth()), Math.max(1, owner.getHeight()));
        Rectangle2D b = screens.isEmpty() ? Screen.getPrimary().getVisualBounds() : screens.getFirst().getVisualBounds();
        x = Math.max(b.getMinX(), Math.min(x, b.getMaxX() - w));
        y = Math.max(b.getMinY(), Math.min(y, b.getMaxY() - h));
        return new double[] {x, y};
    }
}
