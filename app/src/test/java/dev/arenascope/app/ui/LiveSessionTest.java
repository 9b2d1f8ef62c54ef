package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import javafx.event.ActionEvent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.live.LiveSession;
import dev.arenascope.app.ui.live.NewSessionDialog;
import dev.arenascope.app.ui.timeline.DrawList;

/** A live session: start it, watch events arrive in the views, pause, stop. */
class LiveSessionTest extends WindowTestBase {

    private String status(String prefix) {
        return fx(() -> window.statusBar().getRightItems().stream().filter(n -> n instanceof Label)
                .map(n -> ((Label) n).getText()).filter(t -> t.contains(prefix)).findFirst().orElse(""));
    }

    @Test
    void theLiveStatusLineIsShort() {
        assertEquals("live: render on host — no CUDA device (no CUDA driver on this machine)", LiveControls.liveStatus("render",
                "auto: no CUDA device (CUDA runtime answered 35 (cudaErrorInsufficientDriver): no CUDA driver on this machine);"
                        + " falling back to host (amd64, java.lang.foreign), 23.5 GiB total, 20.2 GiB free"));
        assertEquals("live: render on cuda:0 NVIDIA H200 (auto)", LiveControls.liveStatus("render",
                "auto: chose cuda:0 NVIDIA H200, 139 GiB total, 138 GiB free"));
        assertEquals("live: render on host (amd64, java.lang.foreign)", LiveControls.liveStatus("render",
                "chose host (amd64, java.lang.foreign), 23.5 GiB total, 20.2 GiB free"));
    }

    @Test
    void autoSaysWhichDeviceItChoseAndWhy() throws Exception {
        fxRun(() -> window.startLive(new NewSessionDialog.Choice("particles", "auto", Map.of("steps", "100000"))));
        // without a CUDA driver (CI) the fallback to host is said where the user looks; with one, CUDA is named
        waitFor(20, "the device choice in the status bar", () -> window.statusBar().getTooltip() != null
                && window.statusBar().getTooltip().getText().startsWith("auto: "));
        String text = fx(() -> window.statusBar().getText());
        String why = fx(() -> window.statusBar().getTooltip().getText());
        if (why.contains("falling back to host")) {
            // e.g. on CI: "live: particles on host — no CUDA device (no CUDA driver on this machine)"
            assertTrue(text.startsWith("live: particles on host — no CUDA device ("), text);
        } else {
            assertTrue(text.startsWith("live: particles on ") && text.endsWith(" (auto)"), text);
        }
        assertTrue(text.length() < 90, "short enough to leave the status bar's figures room: " + text);
        fxRun(() -> window.live().stop());
        waitFor(20, "stopped", () -> window.live().stateProperty().get() == LiveSession.State.STOPPED);
    }

    @Test
    void aStartingSessionSaysSoUntilItsFirstEventsAreDrawn() throws Exception {
        // the first seconds of the live demo were a blank window: from the moment it starts, the timeline
        // says what is coming, and gives way to the memory once its first events are drawn
        String note = fx(() -> {
            window.startLive(new NewSessionDialog.Choice("particles", "virtual:1GiB", Map.of("steps", "100000")));
            javafx.scene.Parent root = window.stage().getScene().getRoot();
            root.applyCss();
            root.layout();
            return window.timeline().emptyNoteText();
        });
        assertTrue(note.startsWith("Starting the live session: particles on virtual:1GiB"), note);
        waitFor(30, "the first events drawn, the note gone", () -> fx(() -> {
            DrawList d = window.timeline().drawListProperty().get();
            return d != null && d.events() > 0 && !d.lanes().isEmpty() && window.timeline().emptyNoteText().isEmpty();
        }));
        fxRun(() -> window.live().stop());
        waitFor(20, "stopped", () -> window.live().stateProperty().get() == LiveSession.State.STOPPED);
        assertEquals("", fx(() -> window.timeline().emptyNoteText()), "a stopped session shows its memory, no note");
    }

    @Test
    void startWatchPauseAndStop() throws Exception {
        fxRun(() -> window.startLive(new NewSessionDialog.Choice("particles", "virtual:1GiB", Map.of("steps", "100000"))));
        waitFor(20, "events arriving", () -> window.model().eventCountProperty().get() > 500);
        assertEquals(LiveSession.State.RUNNING, fx(() -> window.live().stateProperty().get()));
        assertTrue(fx(() -> window.stage().getScene().lookup("#live-badge").isVisible()), "the LIVE badge shows");
        long first = fx(() -> window.model().eventCountProperty().get());
        waitFor(20, "more events", () -> window.model().eventCountProperty().get() > first + 500);
        waitFor(20, "the timeline draws the live events", () -> {
            DrawList d = window.timeline().drawListProperty().get();
            return d != null && d.events() > first && !d.lanes().isEmpty();
        });
        assertTrue(status("events").matches("[\\d,]+ events"), status("events"));
        waitFor(10, "the address map's memory picker is filled in a live session",
                () -> !window.allocator().memorySelector().getItems().isEmpty() && window.allocator().memorySelector().getValue() != null);
        waitFor(10, "an events/s figure", () -> window.model().eventsPerSecondProperty().get() > 0);
        assertTrue(status("events/s").matches("[\\d,]+ events/s"), status("events/s"));
        assertTrue(status("dropped").endsWith("dropped"));
        assertTrue(status("virtual").contains("virtual"), "the status bar names the device: " + status("virtual"));
        waitFor(10, "the status bar says which device was chosen", () -> window.statusBar().getText().equals("live: particles on virtual (accounting only)"));
        assertTrue(fx(() -> window.statusBar().getTooltip().getText()).startsWith("chose virtual (accounting only), 1.00 GiB total"));

        fxRun(() -> window.stage().getScene().lookup("#tb-pause").fireEvent(new ActionEvent()));
        assertEquals(LiveSession.State.PAUSED, fx(() -> window.live().stateProperty().get()));
        // the workload stops at its next step boundary: what it published up to there is all there is, and the
        // window shows all of it; nothing more comes while it is held (counts the session reports, no time window)
        waitFor(20, "the workload held at a step", () -> window.live().held());
        long heldSteps = window.live().steps();
        window.live().session().flush();
        long paused = window.live().store().eventCount();
        waitFor(20, "every event published before the hold shown", () -> window.model().eventCountProperty().get() == paused);
        window.live().session().flush();
        assertTrue(window.live().held(), "still held");
        assertEquals(heldSteps, window.live().steps(), "a held workload passes no step");
        assertEquals(paused, window.live().store().eventCount(), "a held workload publishes nothing");
        assertEquals(paused, (long) fx(() -> window.model().eventCountProperty().get()));
        fxRun(() -> ((Button) window.stage().getScene().lookup("#tb-start")).fire());
        waitFor(10, "running again", () -> window.live().stateProperty().get() == LiveSession.State.RUNNING
                && window.live().steps() > heldSteps && window.model().eventCountProperty().get() > paused);
        fxRun(() -> ((Button) window.stage().getScene().lookup("#tb-stop")).fire());
        waitFor(20, "stopped", () -> window.live().stateProperty().get() == LiveSession.State.STOPPED);
        long end = fx(() -> window.model().eventCountProperty().get());
        assertTrue(end > paused);
        assertTrue(fx(() -> !window.stage().getScene().lookup("#live-badge").isVisible()), "the LIVE badge goes");
        assertEquals(0.0, fx(() -> window.model().eventsPerSecondProperty().get()), "events/s is 0 once the run ended");
        assertEquals("0 events/s", status("events/s"));
        // the Pool histograms tab shown (a hidden tab's view is brought up to date when it is shown)
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-pools"))
                .findFirst().orElseThrow()));
        waitFor(10, "the pool histograms fill", () -> !window.pools().table().getItems().isEmpty());
    }
}
