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
        // the next run starts after this one ended, as runs one after another do: the receiver marks the
        // connection ended a moment after its last events, and a process arriving while the shown one still
        // streams is a rank beside it, not a new run (CI once started the second in that moment)
        waitFor(20, "the first process's connection ended", () -> !window.listenView().connections().isEmpty()
                && window.listenView().connections().getFirst().stats().state().ended());
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
    void afterListeningIsStoppedAndStartedTheFirstNewProcessTakesTheWindow() throws Exception {
        int port = listenOnAnyPort();
        long first = streamParticles(port, "train rank0", 60);
        waitFor(20, "the first listening's process shown", () -> window.model().titleProperty().get().startsWith("train rank0")
                && window.model().eventCountProperty().get() == first);
        waitFor(20, "it is a rank of the Ranks view", () -> window.ranks().jobProperty().get() != null
                && window.ranks().jobProperty().get().row("rank0") != null
                && window.ranks().jobProperty().get().row("rank0").events() == first);
        var before = fx(() -> window.model().trace());

        // stop, start again: the new receiver numbers its connections from 1 again
        fxRun(() -> window.listenView().toggle());
        assertEquals(-1, fx(() -> window.listenView().listeningPort()));
        assertTrue(fx(() -> !window.model().followLiveProperty().get()), "the shown process ended: the window no longer follows it");
        fxRun(() -> window.listenView().toggle());
        int again = fx(() -> window.listenView().listeningPort());
        assertTrue(again > 0, "listening again");

        // the same rank name and the same number of events as the first listening's process, so only the
        // connection tells them apart
        long second = streamParticles(again, "train rank0", 60);
        assertEquals(first, second, "the particles workload sends the same events for the same steps");
        waitFor(20, "the new listening's first process takes the window", () -> window.model().trace() != before
                && window.listenView().holds(window.model().trace())
                && window.model().titleProperty().get().startsWith("train rank0")
                && window.model().eventCountProperty().get() == second);
        assertEquals(1, fx(() -> window.listenView().connections().getFirst().stats().connection()), "numbered from 1 again");
        assertEquals(2, fx(() -> window.listenView().connections().getFirst().key().listening()));
        waitFor(20, "the Ranks view on the new process", () -> window.ranks().jobProperty().get() != null
                && window.ranks().jobProperty().get().store("rank0") == window.model().trace()
                && window.ranks().jobProperty().get().summary().ranks().size() == 1);
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
