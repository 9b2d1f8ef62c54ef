package dev.arenascope.app.ui.common;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import javafx.application.Platform;
import javafx.beans.value.ChangeListener;
import javafx.event.EventHandler;

import javafx.geometry.Rectangle2D;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Dialog;
import javafx.scene.control.DialogEvent;
import javafx.scene.control.DialogPane;
import javafx.scene.input.InputEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.Region;
import javafx.stage.Modality;
import javafx.stage.Screen;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.stage.WindowEvent;

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
    /**
     * Runs a native file dialog owned by {@code owner} and puts the owner back as it was: maximised,
     * full screen, or at its position and size. Under GTK the owner is held at a fixed size while the
     * dialog is up, and a window manager (openbox) un-maximises a window that cannot be resized; a
     * maximise asked the moment the dialog returns is dropped too, before the owner can be resized
     * again. So the owner is put back on the next pulse, once the dialog has let go of it.
     *
     * @return what {@code dialog} returned
     */
    public static <T> T keepingOwner(Stage owner, Supplier<T> dialog) {
        boolean maximized = owner.isMaximized() || owner.getProperties().containsKey(MAXIMISE_AGAIN); // or after a dialog
        boolean fullScreen = owner.isFullScreen();
        double x = owner.getX();
        double y = owner.getY();
        double w = owner.getWidth();
        double h = owner.getHeight();
        owner.getProperties().merge(DIALOGS_UP, 1, (a, b) -> (Integer) a + (Integer) b);
        try {
            return dialog.get();
        } finally {
            owner.getProperties().merge(DIALOGS_UP, -1, (a, b) -> (Integer) a + (Integer) b);
            Platform.runLater(() -> {
                if (maximized) {
                    owner.getProperties().remove(MAXIMISE_AGAIN);
                }
                if (maximized && !owner.isMaximized()) {
                    owner.setMaximized(true);
                } else if (!maximized && !fullScreen && (owner.getX() != x || owner.getY() != y || owner.getWidth() != w
                        || owner.getHeight() != h)) {
                    owner.setX(x);
                    owner.setY(y);
                    owner.setWidth(w);
                    owner.setHeight(h);
                }
                if (fullScreen && !owner.isFullScreen()) {
                    owner.setFullScreen(true);
                }
            });
        }
    }

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

    /** An owner's property while it is to be maximised again once its dialogs have let go of it. */
    private static final String MAXIMISE_AGAIN = "arenascope.maximiseAgain";
    /** An owner's property: how many of its dialogs are showing. */
    private static final String DIALOGS_UP = "arenascope.dialogsUp";

    /** Layout pulses after a dialog shows in which it is centred again if its content grew it. */
    private static final int SETTLING_PULSES = 4;

    /** Per dialog kind, the size it was last closed at, for this run of the window. */
    private static final Map<String, double[]> DIALOG_SIZES = new ConcurrentHashMap<>();

    /**
     * Makes dialog {@code d} open at its content's preferred size (never smaller, never a window
     * manager's 200×200: its pane's minimum is what its content asks), or at the size a dialog of the
     * same {@code kind} was last closed at if larger, centred on {@code owner} (again in its first
     * layout pulses if its content grows it, unless it was moved meanwhile); it is resizable, and its
     * size is remembered for the next one of its kind while the window runs. The owner's own size and
     * state are left alone: a maximised owner that the window manager un-maximised while the dialog held
     * it (GTK holds the owner of a modal dialog at a fixed size, and openbox un-maximises a window that
     * cannot be resized) is maximised again once the dialog is gone.
     */
    public static void fitAndCentre(Dialog<?> d, Window owner, String kind) {
        DialogPane pane = d.getDialogPane();
        pane.setMinSize(Region.USE_PREF_SIZE, Region.USE_PREF_SIZE);
        d.setResizable(true);
        holdOwnerInput(d, owner);
        d.addEventHandler(DialogEvent.DIALOG_SHOWING, e -> {
            if (owner instanceof Stage s) {
                s.getProperties().merge(DIALOGS_UP, 1, (a, b) -> (Integer) a + (Integer) b);
                if (s.isMaximized()) {
                    s.getProperties().put(MAXIMISE_AGAIN, Boolean.TRUE);
                }
            }
        });
        Runnable place = () -> {
            // under GTK a dialog is shown before its first CSS pass and layout: its pane measured 10×24 and
            // its window NaN×NaN, and it opened at 200×200 in the screen's corner; styled and laid out first
            pane.applyCss();
            pane.layout();
            double[] last = DIALOG_SIZES.get(kind);
            double cw = pane.prefWidth(-1);
            double ch = pane.prefHeight(cw);
            pane.setMinSize(cw, ch); // never smaller than its content asks; the user may widen it
            if (last != null && (last[0] > cw + 0.5 || last[1] > ch + 0.5)) {
                pane.setPrefSize(Math.max(cw, last[0]), Math.max(ch, last[1])); // as large as the last one was left
            }
            Window win = pane.getScene() == null ? null : pane.getScene().getWindow();
            if (win != null) {
                win.sizeToScene();
            }
            double ww = d.getWidth() >= cw ? d.getWidth() : cw; // the window not sized yet (NaN): its content's size
            double wh = d.getHeight() >= ch ? d.getHeight() : ch;
            double[] at = centred(owner, ww, wh);
            d.setX(at[0]);
            d.setY(at[1]);
            if (win instanceof Stage st) {
                // the window's own minimum (a size hint the window manager keeps): under GTK and openbox the
                // pair dialog, once placed, was put back to 200×200 in the screen's corner
                st.setMinWidth(ww);
                st.setMinHeight(wh);
                ChangeListener<Number> shrunk = (o, was, now) -> {
                    if (st.isShowing() && (st.getWidth() < ww - 0.5 || st.getHeight() < wh - 0.5)) {
                        st.setWidth(Math.max(ww, st.getWidth()));
                        st.setHeight(Math.max(wh, st.getHeight()));
                        Runnable centre = () -> {
                            double[] again = centred(owner, st.getWidth(), st.getHeight());
                            st.setX(again[0]);
                            st.setY(again[1]);
                        };
                        centre.run();
                        // a window manager's configure arrives as separate changes of width, height and position,
                        // in any order: centred again once the rest of it has come (a height grown or a move to the
                        // corner after the width was put back would otherwise leave it off centre)
                        Platform.runLater(centre);
                    }
                };
                st.widthProperty().addListener(shrunk);
                st.heightProperty().addListener(shrunk);
                d.addEventHandler(DialogEvent.DIALOG_HIDDEN, h -> {
                    st.widthProperty().removeListener(shrunk);
                    st.heightProperty().removeListener(shrunk);
                });
            }
            // content laid out in the first pulses (a property sheet's rows) can grow the window after it
            // shows: centred again on its new size, as long as it stands where it was put
            Scene scene = pane.getScene();
            if (scene != null) {
                int[] pulses = {0};
                double[] put = {at[0], at[1], ww, wh};
                Runnable[] self = new Runnable[1];
                self[0] = () -> {
                    boolean ours = Math.abs(d.getX() - put[0]) < 0.5 && Math.abs(d.getY() - put[1]) < 0.5;
                    if (ours && (Math.abs(d.getWidth() - put[2]) > 0.5 || Math.abs(d.getHeight() - put[3]) > 0.5)) {
                        double[] again = centred(owner, d.getWidth(), d.getHeight());
                        put[0] = again[0];
                        put[1] = again[1];
                        put[2] = d.getWidth();
                        put[3] = d.getHeight();
                        d.setX(again[0]);
                        d.setY(again[1]);
                    }
                    if (++pulses[0] >= SETTLING_PULSES || !ours) {
                        scene.removePostLayoutPulseListener(self[0]);
                    }
                };
                scene.addPostLayoutPulseListener(self[0]);
            }
        };
        d.addEventHandler(DialogEvent.DIALOG_SHOWN, e -> {
            // under GTK a dialog may say it is shown before its window is (not showing yet: what was set on it
            // was lost and it opened at 200×200 in the screen's corner): placed once its window shows
            Window win = pane.getScene() == null ? null : pane.getScene().getWindow();
            if (win != null && !win.isShowing()) {
                win.addEventHandler(WindowEvent.WINDOW_SHOWN, new EventHandler<WindowEvent>() {
                    @Override
                    public void handle(WindowEvent we) {
                        win.removeEventHandler(WindowEvent.WINDOW_SHOWN, this);
                        place.run();
                    }
                });
            } else {
                place.run();
            }
        });
        d.addEventHandler(DialogEvent.DIALOG_HIDDEN, e -> {
            if (pane.getWidth() > 0 && pane.getHeight() > 0) {
                DIALOG_SIZES.put(kind, new double[] {pane.getWidth(), pane.getHeight()});
            }
            if (owner instanceof Stage s) {
                s.getProperties().merge(DIALOGS_UP, -1, (a, b) -> (Integer) a + (Integer) b);
                // once the last dialog has let go of it (keepingOwner): a maximise asked while another
                // dialog (a question after New Live) still holds it would be dropped
                Platform.runLater(() -> {
                    if ((Integer) s.getProperties().getOrDefault(DIALOGS_UP, 0) <= 0 && s.getProperties().remove(MAXIMISE_AGAIN) != null) {
                        s.setMaximized(true);
                    }
                });
            }
        });
    }

    /**
     * Makes {@code d} modal by holding off its owner's input itself rather than through the toolkit. A
     * toolkit-modal dialog disables its owner, and under GTK a disabled window is pinned at one size (its
     * size hints' minimum and maximum set to the size it had before it was maximised); openbox un-maximises
     * a window that cannot be resized, so a maximised main window shrank for as long as any question was up
     * (seen under Xvfb: WM_NORMAL_HINTS min = max = 1360×841 while the shortcuts box was open). Here the
     * owner keeps its state: while the dialog is up, every key, mouse, scroll and touch event meant for the
     * owner is consumed at the owner's window (before any control or accelerator sees it), a press on it
     * brings the dialog back to the front, and a request to close it is refused.
     */
    private static void holdOwnerInput(Dialog<?> d, Window owner) {
        if (owner == null) {
            return;
        }
        d.initModality(Modality.NONE);
        EventHandler<InputEvent> hold = e -> {
            e.consume();
            if (e.getEventType() == MouseEvent.MOUSE_PRESSED) {
                Window w = d.getDialogPane().getScene() == null ? null : d.getDialogPane().getScene().getWindow();
                if (w instanceof Stage st) {
                    st.toFront();
                    st.requestFocus();
                }
            }
        };
        EventHandler<WindowEvent> noClose = WindowEvent::consume;
        d.addEventHandler(DialogEvent.DIALOG_SHOWING, e -> {
            owner.addEventFilter(InputEvent.ANY, hold);
            owner.addEventFilter(WindowEvent.WINDOW_CLOSE_REQUEST, noClose);
        });
        d.addEventHandler(DialogEvent.DIALOG_HIDDEN, e -> {
            owner.removeEventFilter(InputEvent.ANY, hold);
            owner.removeEventFilter(WindowEvent.WINDOW_CLOSE_REQUEST, noClose);
        });
    }

    /** The size a dialog of {@code kind} was last closed at ({@code {width, height}} of its pane), or null. */
    public static double[] rememberedSize(String kind) {
        double[] s = DIALOG_SIZES.get(kind);
        return s == null ? null : s.clone();
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
