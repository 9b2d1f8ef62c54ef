package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import javafx.scene.control.Label;
import javafx.stage.Stage;
import javafx.stage.Window;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.Fixtures;

/** Opening each kind of file the window reads, and what it then shows. */
class OpenFilesTest extends WindowTestBase {

    private String statusText() {
        return fx(() -> window.statusBar().getText());
    }

    private DrawList waitForFile(String name) {
        waitForSettled(60, "the file's frame", () -> window.model().titleProperty().get().equals(name)
                && window.timeline().drawListProperty().get() != null
                && window.timeline().drawListProperty().get().events() == window.model().eventCountProperty().get()
                && window.model().eventCountProperty().get() > 0);
        return fx(() -> window.timeline().drawListProperty().get());
    }

    @Test
    void pytorchSnapshotShowsTheCachingAllocator() {
        Path f = Fixtures.torch("cs336-a2-bcrafton.pickle");
        fxRun(() -> window.open(f));
        DrawList d = waitForFile(f.getFileName().toString());
        DrawList.Lane lane = d.lanes().stream().filter(l -> l.memory().kind() == MemoryKind.SEGMENTED).findFirst().orElseThrow();
        assertEquals(3_853_700_352L, lane.peakUsed(), "the lane's high-water is the snapshot's peak live bytes");
        assertTrue(statusText().startsWith("Opened cs336-a2-bcrafton.pickle"), statusText());
        int memories = fx(() -> window.model().trace().memories().size());
        assertTrue(statusText().contains(memories == 1 ? " 1 memory" : " " + memories + " memories"), "counted in English: " + statusText());
        String tip = fx(() -> window.timeline().hoverAt(d.width() / 2.0, lane.top() + lane.gaugeHeight() / 2));
        assertTrue(tip.contains("reserved") && tip.contains("GiB"), "reserved versus allocated, in GiB: " + tip);
        String events = fx(() -> window.statusBar().getRightItems().stream().filter(n -> n instanceof Label)
                .map(n -> ((Label) n).getText()).filter(t -> t.endsWith(" events")).findFirst().orElse(""));
        assertEquals(String.format("%,d events", window.model().trace().eventCount()), events);
        // the events table lists the whole trace when nothing is selected
        waitForSettled(10, "events listed", () -> window.events().table().getItems().size() == window.model().trace().eventCount());
    }

    @Test
    void secondSnapshotAndCancel() {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        fxRun(() -> window.open(f));
        DrawList d = waitForFile(f.getFileName().toString());
        long peak = d.lanes().stream().filter(l -> l.memory().kind() == MemoryKind.SEGMENTED).mapToLong(DrawList.Lane::peakUsed).max().orElse(0);
        assertEquals(13_927_831_556L, peak);
        // cancel a load at once: the shown session stays
        var h = fx(() -> window.open(Fixtures.torch("cs336-a2-bcrafton.pickle")));
        fxRun(h::cancel);
        waitForSettled(20, "the load ends", h::isDone);
        waitForSettled(5, "cancel reported or finished", () -> statusText().contains("cancelled") || statusText().startsWith("Opened"));
    }

    @Test
    void badFileGivesOneLineError(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("broken.pickle");
        Files.write(bad, new byte[] {(byte) 0x80, 4, (byte) 0x95, 1, 2, 3});
        fxRun(() -> window.open(bad));
        waitForSettled(20, "the error", () -> statusText().startsWith("Could not open"));
        assertEquals(0, fx(() -> window.model().eventCountProperty().get()), "nothing half-loaded is shown");
        fxRun(() -> Window.getWindows().stream().filter(w -> w instanceof Stage s && s.getTitle() != null
                && s.getTitle().startsWith("Open broken")).toList().forEach(w -> ((Stage) w).close()));
    }
}
