package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

import javafx.scene.Node;
import javafx.scene.control.Tab;

import org.junit.jupiter.api.Test;

/**
 * Only the selected tab's view is in the scene: a tab pane lays out every tab's content, shown or not, and the
 * views follow a live session ten times a second. Each view is the same object whichever tab is shown, back in
 * the window when its tab is selected again.
 */
class HiddenTabsTest extends WindowTestBase {
    @Test
    void onlyTheSelectedTabsViewIsInTheScene() {
        List<Tab> tabs = fx(() -> List.copyOf(window.tabs().getTabs()));
        assertEquals(0, fx(() -> window.tabs().getSelectionModel().getSelectedIndex()), "the first tab is shown as the window opens");
        Node first = fx(() -> tabs.getFirst().getContent());
        assertNotNull(first, "the first tab's view is in the window as it opens");
        Node ranks = window.ranks();
        for (int i = tabs.size() - 1; i >= 0; i--) {
            int k = i;
            fxRun(() -> window.tabs().getSelectionModel().select(k));
            waitForSettled(10, tabs.get(k).getText() + " shown", () -> tabs.get(k).getContent() != null
                    && tabs.get(k).getContent().getScene() == window.stage().getScene());
            for (int j = 0; j < tabs.size(); j++) {
                if (j != k) {
                    int other = j;
                    assertNull(fx(() -> tabs.get(other).getContent()), tabs.get(other).getText() + " hidden while " + tabs.get(k).getText() + " is shown");
                }
            }
        }
        assertSame(first, fx(() -> tabs.getFirst().getContent()), "the same view, back in its tab");
        fxRun(() -> window.tabs().getSelectionModel().select(window.ranksTab()));
        assertSame(ranks, fx(() -> window.ranksTab().getContent()));
        assertNull(fx(() -> tabs.getFirst().getContent()));
        assertNull(fx(() -> first.getScene()), "a hidden view is out of the scene");
    }
}
