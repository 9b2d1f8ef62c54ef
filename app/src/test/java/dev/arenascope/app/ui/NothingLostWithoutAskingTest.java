package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javafx.application.Platform;
import javafx.event.Event;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.DialogPane;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.stage.WindowEvent;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.live.LiveSession;
import dev.arenascope.app.ui.live.NewSessionDialog;
import dev.arenascope.testsupport.Fixtures;

/**
 * The window's own keys, menus and close go through the question before anything is thrown away (issue 28 item 3):
 * F5 over an opened file replaced it with a live session with no prompt, and Ctrl+Q quit a live session of 9,362
 * unsaved events without asking. {@link SessionGuardTest} holds the rules; this holds the wiring.
 */
class NothingLostWithoutAskingTest extends WindowTestBase {

    private static DialogPane question() {
        for (Window w : Window.getWindows()) {
            if (w instanceof Stage s && s.isShowing() && s.getScene() != null && s.getScene().getRoot() instanceof DialogPane p
                    && "discard-dialog".equals(p.getId())) {
                return p;
            }
        }
        return null;
    }

    /** Waits for the question, checks that it offers {@code buttons}, and answers Cancel. */
    private void cancelTheQuestion(String what, List<String> buttons) {
        waitFor(30, "the question before " + what, () -> question() != null);
        DialogPane p = fx(NothingLostWithoutAskingTest::question);
        assertEquals(buttons, fx(() -> p.getButtonTypes().stream().map(ButtonType::getText).toList()), what + ": " + fx(p::getContentText));
        fxRun(() -> ((Button) p.lookupButton(ButtonType.CANCEL)).fire());
        waitFor(30, "the question gone", () -> question() == null);
    }

    @Test
    void f5OverAnOpenedFileAsksAndCancelKeepsTheFile() {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openUntilLoaded(f);
        long events = fx(() -> window.model().eventCountProperty().get());
        // the key as the window hears it, through the menu's accelerator; later, so that the question does not hold this call
        Platform.runLater(() -> Event.fireEvent(window.scene().getRoot(),
                new KeyEvent(KeyEvent.KEY_PRESSED, "", "", KeyCode.F5, false, false, false, false)));
        waitFor(30, "the question before Start", () -> question() != null);
        assertTrue(fx(() -> question().getContentText()).contains(f.getFileName().toString()), fx(() -> question().getContentText()));
        cancelTheQuestion("Start", List.of(fx(() -> question().getButtonTypes().getFirst().getText()), "Cancel"));
        assertEquals(f.getFileName().toString(), fx(() -> window.model().titleProperty().get()), "the file stays");
        assertEquals(events, fx(() -> window.model().eventCountProperty().get()));
        assertTrue(fx(() -> window.live() == null || window.live().stateProperty().get() != LiveSession.State.RUNNING), "no session started");
    }

    @Test
    void quitAndCloseOverALiveSessionAskAndCancelKeepsIt() {
        fxRun(() -> window.startLive(new NewSessionDialog.Choice("particles", "virtual:1GiB", Map.of("steps", "100000"))));
        waitFor(30, "events arriving", () -> window.model().eventCountProperty().get() > 500);
        MenuItem quit = fx(() -> ((MenuBar) window.scene().lookup(".menu-bar")).getMenus().stream().flatMap(m -> m.getItems().stream())
                .filter(i -> "menu-quit".equals(i.getId())).findFirst().orElseThrow());
        Platform.runLater(quit::fire);
        waitFor(30, "the question before Quit", () -> question() != null);
        assertEquals("Save the session before you quit?", fx(() -> question().getHeaderText()));
        cancelTheQuestion("Quit", List.of("Save…", "Discard", "Cancel"));
        assertTrue(fx(stage::isShowing), "cancel keeps the window");
        assertEquals(LiveSession.State.RUNNING, fx(() -> window.live().stateProperty().get()), "and its session");
        // the window's close button asks the same
        fxRun(() -> Event.fireEvent(stage, new WindowEvent(stage, WindowEvent.WINDOW_CLOSE_REQUEST)));
        cancelTheQuestion("closing the window", List.of("Save…", "Discard", "Cancel"));
        assertTrue(fx(stage::isShowing), "cancel keeps the window");
        assertEquals(LiveSession.State.RUNNING, fx(() -> window.live().stateProperty().get()));
    }
}
