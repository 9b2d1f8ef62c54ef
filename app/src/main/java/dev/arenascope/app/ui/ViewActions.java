package dev.arenascope.app.ui;

import javafx.scene.control.TabPane;

import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TimeRange;

/** What the View menu, the toolbar and the keyboard do to the view: zoom, pan, selection, tabs. FX thread only. */
final class ViewActions {
    /** The factor one zoom-in step scales the visible time by (zoom out: its inverse). */
    static final double ZOOM_STEP = 0.5;

    private final SessionModel model;
    private final TabPane tabs;

    ViewActions(SessionModel model, TabPane tabs) {
        this.model = model;
        this.tabs = tabs;
    }

    /** Scales the visible time by {@code factor} about the cursor, or the view's middle when the cursor is out of view. */
    void zoom(double factor) {
        TimeRange r = model.viewRangeProperty().get();
        long c = model.cursorProperty().get();
        model.zoom(factor, c >= 0 && r.contains(c) ? c : r.fromNs() + r.duration() / 2);
    }

    void zoomIn() {
        zoom(ZOOM_STEP);
    }

    void zoomOut() {
        zoom(1 / ZOOM_STEP);
    }

    void zoomToFit() {
        model.zoomToFit();
    }

    void zoomToSelection() {
        TimeRange s = model.selectionProperty().get();
        if (s != null) {
            model.viewRangeProperty().set(s.clampTo(model.boundsProperty().get()));
        }
    }

    void clearSelection() {
        model.selectionProperty().set(null);
        model.selectedScopeProperty().set(null);
    }

    /** Pans by an eighth of the view, {@code direction} -1 (earlier) or +1 (later). */
    void pan(int direction) {
        model.pan(direction * model.viewRangeProperty().get().duration() / 8);
    }

    void selectTab(int index) {
        tabs.getSelectionModel().select(index);
    }
}
