package dev.arenascope.app.ui;

import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.stage.Stage;

import org.controlsfx.control.StatusBar;

import dev.arenascope.app.cli.Cli;

/**
 * The window's small dialogs: one-line errors, the keyboard help and the About box, each owned by the
 * main stage and styled with its stylesheets. FX thread only.
 */
final class WindowDialogs {
    private final Stage owner;
    private final Scene scene;

    WindowDialogs(Stage owner, Scene scene) {
        this.owner = owner;
        this.scene = scene;
    }

    /** An error box titled {@code title} saying {@code message} (one line from the failing work). */
    void error(String title, String message) {
        Alert a = new Alert(Alert.AlertType.ERROR, message == null ? "unknown error" : message, ButtonType.OK);
        a.initOwner(owner);
        a.setTitle(title);
        a.setHeaderText(title);
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    /**
     * Asks a yes/no question without blocking the FX thread: {@code yes} or {@code no} runs once the
     * user answers (closing the box counts as no).
     */
    void confirm(String title, String header, String message, Runnable yes, Runnable no) {
        ButtonType replace = new ButtonType("Replace", ButtonBar.ButtonData.YES);
        ButtonType keep = new ButtonType("Keep the open session", ButtonBar.ButtonData.NO);
        Alert a = new Alert(Alert.AlertType.CONFIRMATION, message, replace, keep);
        a.initOwner(owner);
        a.setTitle(title);
        a.setHeaderText(header);
        a.getDialogPane().setId("confirm-dialog");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.setOnHidden(e -> (a.getResult() == replace ? yes : no).run());
        a.show();
    }

    void shortcuts() {
        Alert a = new Alert(Alert.AlertType.INFORMATION);
        a.initOwner(owner);
        a.setTitle("Keyboard shortcuts");
        a.setHeaderText("Keyboard and mouse");
        a.setContentText("""
                Ctrl+N  new live session        Ctrl+O  open        Ctrl+S  save
                Ctrl+L  listen for processes    F5 start/resume     F6 pause     F7 stop
                Ctrl+=  zoom in    Ctrl+-  zoom out    Ctrl+0 / Home  zoom to fit
                Ctrl+E  zoom to selection       Esc  clear selection
                ← →  pan     Ctrl+1..4  views   Ctrl+T  dark theme    F1  this help

                Timeline: wheel zooms at the pointer, drag pans, Shift-drag or right-drag
                selects a range, a click sets the cursor, a click on a scope band selects it.""");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    void about() {
        Alert a = new Alert(Alert.AlertType.INFORMATION, "", ButtonType.OK);
        a.initOwner(owner);
        a.setTitle("About ArenaScope");
        a.setHeaderText("ArenaScope " + Cli.version());
        a.setContentText(aboutText());
        a.getDialogPane().setId("about-box");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    /** The About box's text: versions of the app and what it runs on. */
    static String aboutText() {
        return "A visual memory profiler for bump arenas, binned pools and static memory plans.\n\n"
                + "ArenaScope " + Cli.version() + "\n"
                + "Java " + Runtime.version() + " (" + System.getProperty("java.vendor", "?") + ")\n"
                + "JavaFX " + System.getProperty("javafx.runtime.version", "?") + "\n"
                + "ControlsFX " + controlsFxVersion() + "\n"
                + System.getProperty("os.name", "?") + " " + System.getProperty("os.version", "") + " "
                + System.getProperty("os.arch", "");
    }

    private static String controlsFxVersion() {
        String v = StatusBar.class.getPackage().getImplementationVersion();
        return v == null ? "11.2.1" : v;
    }
}
