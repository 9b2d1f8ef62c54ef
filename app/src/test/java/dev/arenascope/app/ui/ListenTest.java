package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.live.ConnectionStats;

/** "Listen for processes": a profiled program streams to the window and is shown with its figures. */
class ListenTest extends WindowTestBase {

    @Test
    void aStreamingProcessIsListedAndShown() throws Exception {
        int port = listenOnAnyPort();
        long sent = streamParticles(port, "particles-remote", 150);
        waitFor(20, "the connection listed as closed", () -> window.listenView().table().getItems().stream()
                .anyMatch(c -> c.state() == ConnectionStats.State.CLOSED));
        ConnectionStats c = fx(() -> window.listenView().table().getItems().get(0));
        assertEquals(sent, c.events(), "every event sent arrived");
        assertEquals(0, c.lostEvents());
        waitFor(20, "the process shown in the main window", () -> window.model().eventCountProperty().get() == sent
                && window.model().titleProperty().get().contains("connection"));
        waitFor(20, "its pool lane", () -> window.timeline().drawListProperty().get() != null
                && window.timeline().drawListProperty().get().lanes().stream().anyMatch(l -> l.memory().name().contains("pool")));
    }

    @Test
    void eachNewProcessTakesOverAndListeningOutlivesItsWindow() throws Exception {
        int port = listenOnAnyPort();
        assertTrue(fx(() -> window.listeningBadge().isVisible()), "the main window says it is listening");
        assertTrue(fx(() -> window.listeningBadge().getText()).contains(":" + port), fx(() -> window.listeningBadge().getText()));

        // Esc closes the Listen window; listening goes on and the badge stays
        fxRun(() -> window.listenView().table().getScene().getRoot().fireEvent(new KeyEvent(
                KeyEvent.KEY_PRESSED, "", "", KeyCode.ESCAPE, false, false, false, false)));
        waitFor(5, "the Listen window closed", () -> !window.listenView().isShowing());
        assertEquals(port, fx(() -> window.listenView().listeningPort()));
        assertTrue(fx(() -> window.listeningBadge().isVisible()));

        long first = streamParticles(port, "first-run", 60);
        waitFor(20, "the first process shown", () -> window.model().titleProperty().get().startsWith("first-run")
                && window.model().eventCountProperty().get() == first);
        long second = streamParticles(port, "second-run", 80);
        waitFor(20, "the second process takes over the view", () -> window.model().titleProperty().get().startsWith("second-run")
                && window.model().eventCountProperty().get() == second);
        waitFor(10, "the rate drops to 0 once it ended", () -> window.model().eventsPerSecondProperty().get() == 0);

        String from = fx(() -> window.listenView().table().getColumns().stream().filter(col -> col.getText().equals("From"))
                .findFirst().orElseThrow().getCellObservableValue(0).getValue().toString());
        assertTrue(!from.startsWith("/") && from.startsWith("127.0.0.1:"), "From reads as an address: " + from);
        // stop listening: the badge goes
        fxRun(() -> window.listenView().toggle());
        assertTrue(!fx(() -> window.listeningBadge().isVisible()));
    }

    @Test
    void statusFiguresAreNeverCut() {
        fxRun(() -> stage.setWidth(900));
        waitForSettled(10, "laid out at the new width", () -> window.stage().getScene().getWidth() == 900 || stage.getWidth() == 900);
        for (Node n : fx(() -> List.copyOf(window.statusBar().getRightItems()))) {
            if (n instanceof Label l) {
                assertTrue(fx(() -> l.getWidth() + 0.5 >= l.prefWidth(-1)), "status figure cut: " + fx(l::getText));
            }
        }
    }
}
