package dev.arenascope.app.ui;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javafx.geometry.Bounds;
import javafx.scene.input.MouseButton;

import org.junit.jupiter.api.Test;
import org.testfx.util.WaitForAsyncUtils;

import dev.arenascope.app.ui.live.NewSessionDialog;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.record.StackCapture;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.torch.SyntheticJob;
import dev.arenascope.testsupport.Fixtures;

/**
 * A tool, not a test ({@link ScreenshotTool}): renders every view of the window into PNG files for the
 * docs, headless (Monocle and the software renderer). It runs on the test class path because it drives
 * the window the way the window's tests do ({@link WindowTestBase}).
 */
class Screenshots extends ScreenshotTool {

    @Test
    void everyView() throws Exception {
        Path dir = start(1280, 800);
        Path tmp = Files.createTempDirectory("shots");
        Path render = Recordings.record("render", Map.of("frames", "64", "max-batch", "8"), tmp.resolve("render.astrace"));
        openAndWait(render);
        waitFor(10, "bands", () -> window.timeline().drawListProperty().get().lanes().stream().anyMatch(l -> !l.bands().isEmpty()));
        // the middle of the run selected: a third of its length, from a third in
        TimeRange sel = fx(() -> {
            long a = window.model().trace().startNs();
            long len = window.model().trace().endNs() - a;
            return new TimeRange(a + len / 3, a + 2 * len / 3);
        });
        fxRun(() -> window.model().selectionProperty().set(sel));
        waitFor(20, "the selection listed", () -> sel.equals(window.events().shownRangeProperty().get())
                && !window.events().table().getItems().isEmpty());
        fxRun(() -> window.events().table().getSelectionModel().select(Math.min(3, window.events().table().getItems().size() - 1)));
        shoot(dir, "timeline-events.png"); // once settled: the detail pane fills off the FX thread

        fxRun(() -> window.model().selectionProperty().set(null));
        fxRun(() -> window.tabs().getSelectionModel().select(1));
        ScopeAnalysis blur = fx(() -> window.model().digestProperty().get().scopes().stream()
                .filter(s -> s.name().equals("blur")).findFirst().orElse(window.model().digestProperty().get().scopes().get(0)));
        fxRun(() -> window.scopes().select(blur.memory(), blur.path()));
        shoot(dir, "scope-tree.png");

        Path inference = Recordings.record("inference", Map.of("model", "transformer", "layers", "2", "sequence", "64",
                "runs", "1"), tmp.resolve("inference.jsonl"));
        openAndWait(inference);
        fxRun(() -> window.tabs().getSelectionModel().select(2));
        fxRun(() -> window.slots().replanAll());
        waitFor(30, "re-plan", () -> !window.slots().replanned().isEmpty());
        shoot(dir, "slot-map.png");

        Path particles = Recordings.record("particles", Map.of("steps", "400"), tmp.resolve("particles.astrace"),
                StackCapture.all(32)); // stripes coloured by the Java sites
        openAndWait(particles);
        fxRun(() -> window.tabs().getSelectionModel().select(4));
        fxRun(() -> window.pools().bitsSpinner().getValueFactory().setValue(2));
        shoot(dir, "pool-histograms.png");
        fxRun(() -> {
            window.tabs().getSelectionModel().select(3);
            window.model().cursorProperty().set(window.model().trace().endNs() * 2 / 3);
        });
        waitFor(10, "address map", () -> window.allocator().infoLabel().getText().contains("blocks"));
        shoot(dir, "address-map.png");

        Path torch = Fixtures.torch("cs336-a2-magma27.pickle");
        openAndWait(torch);
        fxRun(() -> window.tabs().getSelectionModel().select(0));
        shoot(dir, "pytorch-snapshot.png");

        fxRun(() -> window.applyTheme(true));
        fxRun(() -> window.startLive(new NewSessionDialog.Choice("render", "virtual:1GiB", Map.of("frames", "0", "max-batch", "8"))));
        // a live session never settles and its timeline is rebuilt 20 times a second, so a loaded machine
        // seldom finds it idle: wait on the session's counts, then on a frame of the live trace (no
        // PyTorch lane: the snapshot's frame may still be shown); a snapshot is taken on the FX thread,
        // where a frame is painted whole
        waitFor(120, "live events", () -> window.model().eventCountProperty().get() > 400);
        waitFor(120, "live events drawn", () -> fx(() -> {
            var d = window.timeline().drawListProperty().get();
            return d != null && d.events() > 400 && !d.lanes().isEmpty()
                    && d.lanes().stream().noneMatch(l -> l.memory().kind() == MemoryKind.SEGMENTED);
        }));
        write(dir, "live-dark.png");
        fxRun(() -> window.applyTheme(false));
    }

    /**
     * The Ranks view of a generated eight-rank job (one PyTorch snapshot per pipeline stage) with a member that
     * is not a snapshot: the rank table, a sparkline per rank, the bad member's row and the worst rank shown
     * (docs/guide/jobs.md). Generated here, so that the picture follows the view.
     */
    @Test
    void ranksOfAGeneratedJob() throws Exception {
        Path dir = start(1280, 800);
        Path job = Files.createDirectories(Files.createTempDirectory("shots").resolve("pipeline-8-stages")); // the job's title
        SyntheticJob.write(job, new SyntheticJob.Spec(11, 8, 3, 8, 4, 3, 2, true));
        Files.writeString(job.resolve("snapshot_rank8.pickle"), "not a pickle at all\n");
        fxRun(() -> window.openJob(List.of(job)));
        waitForSettled(300, "the job open with its worst rank shown", () -> window.ranks().jobProperty().get() != null
                && window.ranks().table().getItems().size() == 9 && window.model().trace() != null
                && window.model().digestProperty().get().events() == window.model().trace().eventCount()
                && window.timeline().drawListProperty().get() != null
                && window.timeline().drawListProperty().get().events() == window.model().eventCountProperty().get());
        shoot(dir, "ranks.png");
    }

    /** The allocation stripes of a PyTorch snapshot at its peak, a stripe hovered and one selected, in both themes. */
    @Test
    void allocationStripes() throws Exception {
        Path dir = start(1280, 800);
        Path torch = Fixtures.torch("cs336-a2-magma27.pickle");
        openAndWait(torch);
        waitFor(60, "stripes", () -> window.timeline().drawListProperty().get().lanes().stream().anyMatch(l -> l.stripes() != null));
        for (boolean dark : new boolean[] {false, true}) {
            fxRun(() -> window.applyTheme(dark));
            waitFor(20, "stripes in the theme, the legend laid out", () -> window.timeline().drawListProperty().get().lanes().stream()
                    .anyMatch(l -> l.stripes() != null) && window.timeline().legend().isVisible() && window.timeline().idle());
            WaitForAsyncUtils.waitForFxEvents();
            waitFor(20, "the frame after the layout", () -> window.timeline().idle());
            var d = fx(() -> window.timeline().drawListProperty().get());
            var lane = d.lanes().stream().filter(l -> l.stripes() != null).findFirst().orElseThrow();
            var s = lane.stripes();
            // hover the largest stripe near the peak's column
            long peak = s.analysis().peakNs();
            int col = (int) Math.min(d.width() - 1, Math.max(0, Math.ceil(d.xOf(peak))));
            // the middle of the tallest stripe in that column
            int row = -1;
            int best = 0;
            for (int r = 0, run = 0; r < s.height(); r++) {
                int k = s.stripeAt(col, r);
                run = k >= 0 && r > 0 && s.stripeAt(col, r - 1) == k ? run + 1 : (k >= 0 ? 1 : 0);
                if (run > best) {
                    best = run;
                    row = r - run / 2;
                }
            }
            if (row < 0) {
                throw new IllegalStateException("no stripe in the peak's column " + col);
            }
            double y = lane.gaugeTop() + row + 0.5;
            Bounds b = fx(() -> window.timeline().canvas().localToScreen(window.timeline().canvas().getBoundsInLocal()));
            robot.moveTo(b.getMinX() + col + 0.5, b.getMinY() + y);
            if (!dark) {
                robot.clickOn(MouseButton.PRIMARY);
                waitFor(10, "a selected allocation", () -> window.model().selectedAllocationProperty().get() != null);
                robot.moveTo(b.getMinX() + col + 0.5, b.getMinY() + y);
            }
            shoot(dir, dark ? "stripes-dark.png" : "stripes.png");
        }
        fxRun(() -> window.applyTheme(false));
    }

    /**
     * The instant, in the middle half of the trace, just after the largest free of {@code memory} that
     * was requested and completed later (its block drawn pending), or the middle when there is none.
     */
    private static long pendingInstant(TraceView t, int memory) {
        long best = t.endNs() / 2;
        long bestBytes = 0;
        for (long i = t.firstIndexAtOrAfter(t.endNs() / 4), stop = t.firstIndexAtOrAfter(3 * t.endNs() / 4); i + 1 < stop; i++) {
            var e = t.event(i);
            if (e.memory() == memory && e.kind() == EventKind.FREE_REQUESTED && t.event(i + 1).timeNs() > e.timeNs()
                    && e.b() > bestBytes) {
                best = e.timeNs();
                bestBytes = e.b();
            }
        }
        return best;
    }

    /** The allocator's state at an instant: a PyTorch snapshot's segments and blocks in the address map, a pending free, both themes. */
    @Test
    void allocatorState() throws Exception {
        Path dir = start(1280, 800);
        Path torch = Fixtures.torch("cs336-a2-magma27.pickle");
        openAndWait(torch);
        var cuda = fx(() -> window.model().trace().memories().getFirst());
        fxRun(() -> {
            window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-allocator"))
                    .findFirst().orElseThrow());
            window.allocator().memorySelector().setValue(cuda);
            window.model().cursorProperty().set(pendingInstant(window.model().trace(), cuda.id()));
        });
        // the cursor just after a free was requested and before it completed: the caption names that
        // event, its block is outlined and drawn as a pending free
        waitFor(20, "the map", () -> window.allocator().addressMapShown() != null && window.allocator().addressMapShown().lastEvent() >= 0
                && window.allocator().infoLabel().getText().contains("after event"));
        for (boolean dark : new boolean[] {false, true}) {
            fxRun(() -> window.applyTheme(dark));
            fxRun(() -> window.allocator().redraw());
            shoot(dir, dark ? "allocator-state-dark.png" : "allocator-state.png");
        }
        fxRun(() -> window.applyTheme(false));
    }
}
