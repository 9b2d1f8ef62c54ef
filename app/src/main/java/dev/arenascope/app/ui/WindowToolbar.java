package dev.arenascope.app.ui;

import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.OverrunStyle;
import javafx.scene.control.Separator;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.io.TraceFiles;
import dev.arenascope.app.ui.model.SessionModel;

/**
 * The window's toolbar: session and file buttons, the live controls, zoom, and the session's title; the LIVE and
 * LISTENING badges beside it, always in sight.
 */
final class WindowToolbar {
    private WindowToolbar() {}

    /** @param listening the badge shown while the window listens for processes (its Listen window may be closed) */
    static HBox create(SessionModel model, FileActions files, LiveControls live, ViewActions view, Runnable listen,
                       Node listening) {
        Button newLive = button("New Live", "tb-new-live", "New live session (Ctrl+N)", live::newSession);
        Button open = button("Open", "tb-open", "Open a trace (.astrace, .jsonl, PyTorch .pickle) or a plan (.plan.json, allocation problem .csv) (Ctrl+O)", files::openDialog);
        Button save = button("Save", "tb-save", "Save the session as .astrace or .jsonl (Ctrl+S)", files::save);
        Button export = button("Export", "tb-export", "Export as Perfetto JSON", () -> files.export(TraceFiles.ExportFormat.PERFETTO));
        Button listenButton = button("Listen", "tb-listen", "Accept profiled processes streaming over the live protocol (Ctrl+L)", listen);
        Button zin = button("+", "tb-zoom-in", "Zoom in (Ctrl+=, wheel)", view::zoomIn);
        Button zout = button("\u2212", "tb-zoom-out", "Zoom out (Ctrl+-, wheel)", view::zoomOut);
        Button fit = button("Fit", "tb-zoom-fit", "Show the whole session (Ctrl+0)", view::zoomToFit);
        Label title = new Label();
        title.setId("session-title");
        title.getStyleClass().add(Styles.VIEW_TITLE);
        title.textProperty().bind(Bindings.createStringBinding(() -> model.titleProperty().get()
                + (model.baselineTitleProperty().get().isEmpty() ? "" : "   vs   " + model.baselineTitleProperty().get()),
                model.titleProperty(), model.baselineTitleProperty()));
        // the title beside the bar, not in it: a toolbar too narrow for its items moves its last ones into its overflow
        // menu, and at the window's least width (720 px) the title went there, out of sight, with the zoom buttons. The
        // bar keeps the width its controls need; the title takes what is left and shortens with an ellipsis.
        title.setMinWidth(0);
        title.setMaxWidth(Double.MAX_VALUE);
        title.setTextOverrun(OverrunStyle.ELLIPSIS);
        title.setEllipsisString("…");
        title.setAlignment(Pos.CENTER_RIGHT);
        Tooltip whole = new Tooltip();
        whole.textProperty().bind(title.textProperty());
        title.setTooltip(whole);
        HBox.setHgrow(title, Priority.ALWAYS);
        ToolBar bar = new ToolBar(newLive, open, save, export, listenButton, new Separator(), live.startButton, live.pauseButton,
                live.stopButton, live.followButton, new Separator(), zin, zout, fit);
        bar.setMinWidth(Region.USE_PREF_SIZE);
        // the badges beside the toolbar, not at its end, for the same reason: LIVE was in the overflow menu
        live.badge.managedProperty().bind(live.badge.visibleProperty());
        HBox badges = new HBox(4, listening, live.badge);
        badges.setId("toolbar-badges");
        badges.getStyleClass().add(Styles.TOOLBAR_BADGES);
        badges.setAlignment(Pos.CENTER_RIGHT);
        badges.setMinWidth(Region.USE_PREF_SIZE);
        HBox row = new HBox(bar, title, badges);
        row.setAlignment(Pos.CENTER_LEFT);
        row.getStyleClass().add(Styles.TOOLBAR_ROW);
        return row;
    }

    private static Button button(String text, String id, String tip, Runnable action) {
        Button b = new Button(text);
        b.setId(id);
        b.setTooltip(new Tooltip(tip));
        b.setOnAction(e -> action.run());
        return b;
    }
}
