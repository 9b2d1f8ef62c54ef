package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.record.Session;
import dev.arenascope.workloads.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.Workloads;

/** "Listen for processes": a profiled program streams to the window and is shown with its figures. */
class ListenTest extends WindowTestBase {

    @Test
    void aStreamingProcessIsListedAndShown() throws Exception {
        fxRun(() -> {
            window.listenView().show(stage);
            window.listenView().portField().setText("0");
            window.listenView().toggle();
        });
        int port = fx(() -> window.listenView().listeningPort());
        assertTrue(port > 0, "listening");
        Workload w = Workloads.find("particles");
        long sent;
        try (Session session = new Session("particles-remote"); VirtualDevice device = new VirtualDevice(1L << 30)) {
            LiveSender sender = LiveSender.stream(session, "127.0.0.1:" + port, null);
            w.run(session, device, w.parse(Map.of("steps", "150")), Progress.NONE);
            session.flush();
            session.removeSink(sender);
            sent = sender.stats().deliveredEvents();
        }
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
}
