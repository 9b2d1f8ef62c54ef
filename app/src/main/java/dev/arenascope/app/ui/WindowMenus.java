package dev.arenascope.app.ui;

import java.util.List;
import java.util.function.Consumer;

import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;

import dev.arenascope.app.ui.io.TraceFiles;

/** The window's menu bar (File, Session, View, Help) with its accelerators; each item calls one action. */
final class WindowMenus {
    /**
     * The view tabs in the window's order, as the View menu names them, each with its Ctrl+N (N its place from 1):
     * every tab has one (the Sites tab once had none while the help listed Ctrl+1…4, then the Query and Ranks tabs).
     */
    static final List<String> TAB_NAMES = List.of("Events", "Scope Tree", "Slot Map", "Allocator", "Pool Histograms", "Sites",
            "Query", "Ranks");

    private final CheckMenuItem darkItem = new CheckMenuItem("Dark theme");
    /** Stretch the baseline to the session's length (off: aligned at start, as the report compares). */
    final CheckMenuItem stretchItem = new CheckMenuItem("Stretch Baseline to This Run's Length");
    /** Align the baseline by step where both have ProfilerStep markers (two ranks of a job); off: in time. */
    final CheckMenuItem alignByStepItem = new CheckMenuItem("Align Baseline by Step");
    /** Draw every rank of the job in the timeline at once (grouped by rank, one byte axis); off: the shown rank. */
    final CheckMenuItem allRanksItem = new CheckMenuItem("All Ranks in the Timeline");
    private final MenuBar bar;

    /**
     * @param listen   opens the Listen window
     * @param quit     closes the window
     * @param theme    switches the theme (true: dark)
     * @param clearBaseline drops the compared baseline
     */
    WindowMenus(FileActions files, LiveControls live, ViewActions view, WindowDialogs dialogs, Runnable listen,
                Runnable quit, Runnable clearBaseline, Consumer<Boolean> theme, boolean dark) {
        MenuItem newLive = item("New Live Session…", "menu-new-live", KeyCode.N, live::newSession);
        MenuItem listenItem = item("Listen for Processes…", "menu-listen", KeyCode.L, listen);
        MenuItem open = item("Open…", "menu-open", KeyCode.O, files::openDialog);
        MenuItem openFolder = item("Open Folder (a Job of Ranks)…", "menu-open-folder", null, files::openFolderDialog);
        MenuItem save = item("Save As…", "menu-save", KeyCode.S, files::save);
        Menu export = new Menu("Export");
        export.setId("menu-export");
        export.getItems().addAll(
                item("Perfetto / Chrome trace JSON…", "menu-export-perfetto", null, () -> files.export(TraceFiles.ExportFormat.PERFETTO)),
                item("CSV…", "menu-export-csv", null, () -> files.export(TraceFiles.ExportFormat.CSV)),
                item("Report (HTML)…", "menu-export-report", null, () -> files.export(TraceFiles.ExportFormat.REPORT_HTML)));
        MenuItem compare = item("Compare with…", "menu-compare", null, files::compare);
        MenuItem clearCompare = item("Clear Baseline", "menu-clear-compare", null, clearBaseline);
        MenuItem pair = item("Pair Baseline Memories…", "menu-pair-baseline", null, files::pairBaseline);
        stretchItem.setId("menu-stretch-baseline");
        alignByStepItem.setId("menu-align-by-step");
        MenuItem quitItem = item("Quit", "menu-quit", KeyCode.Q, quit);
        Menu file = new Menu("File", null, newLive, listenItem, new SeparatorMenuItem(), open, openFolder, files.recentMenu, save, export,
                new SeparatorMenuItem(), compare, pair, alignByStepItem, stretchItem, clearCompare, new SeparatorMenuItem(), quitItem);

        Menu session = new Menu("Session", null,
                key(item("Start / Resume", "menu-start", null, live::startOrResume), new KeyCodeCombination(KeyCode.F5)),
                key(item("Pause", "menu-pause", null, live::pause), new KeyCodeCombination(KeyCode.F6)),
                key(item("Stop", "menu-stop", null, live::stop), new KeyCodeCombination(KeyCode.F7)));

        allRanksItem.setId("menu-all-ranks");
        darkItem.setId("menu-dark");
        darkItem.setAccelerator(new KeyCodeCombination(KeyCode.T, KeyCombination.SHORTCUT_DOWN));
        darkItem.setSelected(dark);
        darkItem.setOnAction(e -> theme.accept(darkItem.isSelected()));
        Menu viewMenu = new Menu("View", null,
                key(item("Zoom In", "menu-zoom-in", null, view::zoomIn), shortcut(KeyCode.EQUALS)),
                key(item("Zoom Out", "menu-zoom-out", null, view::zoomOut), shortcut(KeyCode.MINUS)),
                key(item("Zoom to Fit", "menu-zoom-fit", null, view::zoomToFit), shortcut(KeyCode.DIGIT0)),
                key(item("Zoom to Selection", "menu-zoom-selection", null, view::zoomToSelection), shortcut(KeyCode.E)),
                key(item("Clear Selection", "menu-clear-selection", null, view::clearSelection), new KeyCodeCombination(KeyCode.ESCAPE)),
                new SeparatorMenuItem(), allRanksItem, darkItem, new SeparatorMenuItem());
        KeyCode[] digits = {KeyCode.DIGIT1, KeyCode.DIGIT2, KeyCode.DIGIT3, KeyCode.DIGIT4, KeyCode.DIGIT5, KeyCode.DIGIT6,
                KeyCode.DIGIT7, KeyCode.DIGIT8, KeyCode.DIGIT9};
        for (int i = 0; i < TAB_NAMES.size(); i++) {
            int idx = i;
            viewMenu.getItems().add(key(item(TAB_NAMES.get(i), null, null, () -> view.selectTab(idx)), shortcut(digits[i])));
        }
        Menu help = new Menu("Help", null,
                key(item("Keyboard Shortcuts", "menu-keys", null, dialogs::shortcuts), new KeyCodeCombination(KeyCode.F1)),
                item("About ArenaScope", "menu-about", null, dialogs::about));
        bar = new MenuBar(file, session, viewMenu, help);
        bar.setUseSystemMenuBar(true);
    }

    MenuBar bar() {
        return bar;
    }

    /** Shows the theme in use (when it was switched by other means than the menu). */
    void showDark(boolean dark) {
        darkItem.setSelected(dark);
    }

    private static KeyCodeCombination shortcut(KeyCode code) {
        return new KeyCodeCombination(code, KeyCombination.SHORTCUT_DOWN);
    }

    private static MenuItem key(MenuItem m, KeyCombination accelerator) {
        m.setAccelerator(accelerator);
        return m;
    }

    private static MenuItem item(String text, String id, KeyCode shortcut, Runnable action) {
        MenuItem m = new MenuItem(text);
        if (id != null) {
            m.setId(id);
        }
        if (shortcut != null) {
            m.setAccelerator(shortcut(shortcut));
        }
        m.setOnAction(e -> action.run());
        return m;
    }
}
