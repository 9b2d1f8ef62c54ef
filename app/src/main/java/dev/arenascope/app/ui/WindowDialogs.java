package dev.arenascope.app.ui;

import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Label;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Region;
import javafx.stage.Stage;

import org.controlsfx.control.StatusBar;

import dev.arenascope.app.info.AppInfo;
import dev.arenascope.app.ui.common.Placement;
import dev.arenascope.app.ui.timeline.TimelineView;

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
        Placement.fitAndCentre(a, owner, "error");
        a.setTitle(title);
        a.setHeaderText(title);
        a.getDialogPane().setId("error-dialog");
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
        Placement.fitAndCentre(a, owner, "confirm");
        a.setTitle(title);
        a.setHeaderText(header);
        a.getDialogPane().setId("confirm-dialog");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.setOnHidden(e -> (a.getResult() == replace ? yes : no).run());
        a.show();
    }

    /**
     * Asks what to do with {@code stake} before {@code doing} (e.g. "Quit"): Save… / Discard / Cancel, or
     * {@code doing} / Cancel when nothing can be saved; {@code answer} hears the choice when the dialog
     * closes (Cancel when it is closed otherwise).
     */
    void askDiscard(String doing, SessionGuard.Stake stake, Consumer<SessionGuard.Answer> answer) {
        ButtonType save = new ButtonType("Save…", ButtonBar.ButtonData.YES);
        ButtonType discard = new ButtonType(stake.canSave() ? "Discard" : doing, stake.canSave() ? ButtonBar.ButtonData.NO
                : ButtonBar.ButtonData.OK_DONE);
        ButtonType cancel = ButtonType.CANCEL;
        Alert a = stake.canSave() ? new Alert(Alert.AlertType.CONFIRMATION, stake.what(), save, discard, cancel)
                : new Alert(Alert.AlertType.CONFIRMATION, stake.what(), discard, cancel);
        a.initOwner(owner);
        Placement.fitAndCentre(a, owner, "discard");
        a.setTitle(doing);
        // "Save the session before you quit?", "… before you open run.pickle?": only the verb lower-cased, never a file's name
        a.setHeaderText(stake.canSave() ? "Save the session before you " + doing.substring(0, 1).toLowerCase(Locale.ROOT) + doing.substring(1)
                + "?" : doing + "?");
        a.getDialogPane().setId("discard-dialog");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.setOnHidden(e -> answer.accept(a.getResult() == save ? SessionGuard.Answer.SAVE
                : a.getResult() == discard ? SessionGuard.Answer.DISCARD : SessionGuard.Answer.CANCEL));
        a.show();
    }

    /** The keyboard help: each key and what it does, one per row, under headings. */
    static final List<String[]> SHORTCUTS = List.of(
            new String[] {"Sessions", null},
            new String[] {"Ctrl+N", "new live session"},
            new String[] {"Ctrl+L", "listen for processes"},
            new String[] {"Ctrl+O", "open a trace or plan"},
            new String[] {"Ctrl+S", "save the session"},
            new String[] {"F5 / F6 / F7", "start or resume / pause / stop"},
            new String[] {"View", null},
            new String[] {"Ctrl+=  /  Ctrl+-", "zoom in / out"},
            new String[] {"Ctrl+0, Home", "zoom to fit"},
            new String[] {"Ctrl+E", "zoom to the selection"},
            new String[] {"Esc", "clear the selection"},
            new String[] {"← →", "pan"},
            new String[] {"Ctrl+1 … Ctrl+" + WindowMenus.TAB_NAMES.size(), String.join(", ", WindowMenus.TAB_NAMES).toLowerCase(Locale.ROOT)},
            new String[] {"Ctrl+T", "dark theme"},
            new String[] {"F1", "this help"},
            new String[] {"Allocator (after a click on the map)", null},
            new String[] {"←  /  →", "step the map one event of its memory back / on (the cursor follows)"},
            new String[] {"Timeline (mouse)", null},
            new String[] {"wheel", "zoom at the pointer (" + TimelineView.WHEEL_ZOOM + "× a notch)"},
            new String[] {"drag", "pan"},
            new String[] {"Shift-drag, right-drag", "select a range"},
            new String[] {"click", "set the cursor; on a scope band, select that scope"});

    void shortcuts() {
        Alert a = new Alert(Alert.AlertType.INFORMATION);
        a.initOwner(owner);
        Placement.fitAndCentre(a, owner, "shortcuts");
        a.setTitle("Keyboard shortcuts");
        a.setHeaderText("Keyboard and mouse");
        a.getDialogPane().setContent(shortcutGrid());
        a.getDialogPane().setId("shortcuts-box");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    /** The help as a two-column grid: keys on the left, what they do on the right. */
    static GridPane shortcutGrid() {
        GridPane g = new GridPane();
        g.setId("shortcuts-grid");
        g.setHgap(18);
        g.setVgap(3);
        int row = 0;
        for (String[] s : SHORTCUTS) {
            if (s[1] == null) {
                Label h = new Label(s[0]);
                h.setStyle("-fx-font-weight: bold; -fx-padding: " + (row == 0 ? 0 : 8) + " 0 2 0;");
                g.add(h, 0, row++, 2, 1);
            } else {
                Label k = new Label(s[0]);
                k.setStyle("-fx-font-family: monospace;");
                k.setMinWidth(Region.USE_PREF_SIZE);
                Label d = new Label(s[1]);
                d.setMinWidth(Region.USE_PREF_SIZE);
                g.add(k, 0, row);
                g.add(d, 1, row++);
            }
        }
        return g;
    }

    void about() {
        Alert a = new Alert(Alert.AlertType.INFORMATION, "", ButtonType.OK);
        a.initOwner(owner);
        Placement.fitAndCentre(a, owner, "about");
        a.setTitle("About ArenaScope");
        a.setHeaderText("ArenaScope " + AppInfo.version());
        a.setContentText(aboutText());
        a.getDialogPane().setId("about-box");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    /** The About box's text: versions of the app and what it runs on. */
    static String aboutText() {
        return "A visual memory profiler for bump arenas, binned pools and static memory plans.\n\n"
                + "ArenaScope " + AppInfo.version() + "\n"
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
