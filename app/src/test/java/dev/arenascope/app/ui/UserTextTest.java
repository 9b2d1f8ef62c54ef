package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Labeled;
import javafx.scene.control.ToggleButton;

import org.junit.jupiter.api.Test;

import dev.arenascope.testsupport.Fixtures;

/**
 * Text that comes from the user's program (a frame's file and function, a memory's name, a file name) is
 * shown as written: no control parses it for mnemonics, which would eat the underscore of
 * {@code nn_utils.py} or {@code Array.__init__}.
 */
class UserTextTest extends WindowTestBase {

    @Test
    void siteNamesKeepTheirUnderscoresInTheStripeLegend() {
        openUntilLoaded(Fixtures.torch("cs336-a2-magma27.pickle"));
        waitFor(60, "the stripe legend filled", () -> window.timeline().legend().isVisible()
                && !window.timeline().legend().chips().isEmpty() && window.timeline().idle());
        List<String> chips = fx(() -> window.timeline().legend().chips().stream().map(ToggleButton::getText).toList());
        assertTrue(chips.stream().anyMatch(t -> t.contains("_")), "a legend entry names a file or function with an underscore: " + chips);
        for (ToggleButton chip : fx(() -> window.timeline().legend().chips())) {
            assertFalse(chip.isMnemonicParsing(), "the legend entry '" + chip.getText() + "' parses mnemonics");
        }
        // every labelled control on screen showing an underscore shows it as text
        List<String> parsing = fx(() -> {
            List<String> found = new ArrayList<>();
            walk(window.scene().getRoot(), found);
            return found;
        });
        assertTrue(parsing.isEmpty(), "controls that would eat an underscore: " + parsing);
    }

    private static void walk(Node n, List<String> found) {
        if (n instanceof Labeled l && l.isMnemonicParsing() && l.getText() != null && l.getText().contains("_")) {
            found.add(l.getClass().getSimpleName() + " '" + l.getText() + "'");
        }
        if (n instanceof Parent p) {
            for (Node c : p.getChildrenUnmodifiable()) {
                walk(c, found);
            }
        }
    }
}
