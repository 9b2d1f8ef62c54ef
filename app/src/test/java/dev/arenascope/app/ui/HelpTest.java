package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.scene.control.Label;
import javafx.scene.layout.GridPane;

import org.junit.jupiter.api.Test;

/** F1 help reads as a table of keys, not one run-on paragraph. */
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
}
