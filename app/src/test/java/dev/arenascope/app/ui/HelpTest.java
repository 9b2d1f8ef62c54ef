package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Tab;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.GridPane;

import org.junit.jupiter.api.Test;

/** F1 help reads as a table of keys, not one run-on paragraph, and lists what the menus bind. */
class HelpTest extends WindowTestBase {
    @Test
    void shortcutsAreOneKeyARow() {
        GridPane g = fx(WindowDialogs::shortcutGrid);
        long keys = WindowDialogs.SHORTCUTS.stream().filter(s -> s[1] != null).count();
        long keyLabels = fx(() -> g.getChildren().stream().filter(n -> GridPane.getColumnIndex(n) == 0
                && (GridPane.getColumnSpan(n) == null || GridPane.getColumnSpan(n) == 1)).count());
        assertEquals(keys, keyLabels, "each shortcut has its own row");
        assertTrue(keys >= 15, "every shortcut is listed: " + keys);
        assertTrue(fx(() -> g.getChildren().stream().allMatch(n -> n instanceof Label l && !l.isWrapText() && !l.getText().contains("\n"))),
                "no row wraps");
        assertTrue(fx(() -> g.getChildren().stream().anyMatch(n -> n instanceof Label l && l.getText().equals("F1"))));
    }

    /**
     * Every tab of the window has its Ctrl+N in the View menu, N its place, and the help lists them all: the Sites tab
     * had none while F1 listed Ctrl+1…4, and the Query and Ranks tabs came after it with none either.
     */
    @Test
    void everyTabHasItsShortcutAndTheHelpListsIt() {
        List<String> tabs = fx(() -> window.tabs().getTabs().stream().map(Tab::getText).toList());
        Menu view = fx(() -> ((MenuBar) window.scene().lookup(".menu-bar")).getMenus().stream().filter(m -> m.getText().equals("View"))
                .findFirst().orElseThrow());
        for (int i = 0; i < tabs.size(); i++) {
            KeyCodeCombination key = new KeyCodeCombination(KeyCode.valueOf("DIGIT" + (i + 1)), KeyCombination.SHORTCUT_DOWN);
            MenuItem item = fx(() -> view.getItems().stream().filter(m -> key.equals(m.getAccelerator())).findFirst().orElse(null));
            assertNotNull(item, "the " + tabs.get(i) + " tab has Ctrl+" + (i + 1));
            assertTrue(item.getText().equalsIgnoreCase(tabs.get(i)), "Ctrl+" + (i + 1) + " is named for its tab: " + item.getText() + " for " + tabs.get(i));
            fxRun(item::fire);
            int at = i;
            assertEquals(tabs.get(i), fx(() -> window.tabs().getSelectionModel().getSelectedItem().getText()), "Ctrl+" + (at + 1) + " shows its tab");
        }
        String[] row = WindowDialogs.SHORTCUTS.stream().filter(r -> r[0].startsWith("Ctrl+1 ")).findFirst().orElseThrow();
        assertEquals("Ctrl+1 … Ctrl+" + tabs.size(), row[0], "the help's keys reach the last tab");
        for (String t : tabs) {
            assertTrue(row[1].contains(t.toLowerCase(java.util.Locale.ROOT)), "the help names the " + t + " tab: " + row[1]);
        }
    }
}
