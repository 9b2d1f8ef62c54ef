package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javafx.scene.control.TreeItem;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.model.TensorSlot;
import dev.arenascope.app.ui.slots.SlotArena;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.plan.GreedyBySizePlanner;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanJson;
import dev.arenascope.core.plan.PlanLayouts;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.trace.MemoryKind;

/** A recorded trace of each workload, opened from .astrace and .jsonl, and a plan file. */
class RecordedWorkloadsTest extends WindowTestBase {
    @TempDir
    Path dir;

    private void openAndWait(Path f) {
        fxRun(() -> window.open(f));
        waitForSettled(60, "the file's frame and digest", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && window.model().eventCountProperty().get() > 0
                && window.model().digestProperty().get().events() == window.model().eventCountProperty().get()
                && window.timeline().drawListProperty().get() != null
                && window.timeline().drawListProperty().get().events() == window.model().eventCountProperty().get());
    }

    @Test
    void renderTraceShowsArenaScopesAndModels() throws Exception {
        Path f = Recordings.record("render", Map.of("frames", "24", "max-batch", "8"), dir.resolve("render.astrace"));
        openAndWait(f);
        waitForSettled(10, "scope bands under the arena lane", () -> window.timeline().drawListProperty().get().lanes().stream()
                .anyMatch(l -> l.memory().kind() == MemoryKind.ARENA && !l.bands().isEmpty()));
        DrawList d = fx(() -> window.timeline().drawListProperty().get());
        DrawList.Lane arena = d.lanes().stream().filter(l -> l.memory().kind() == MemoryKind.ARENA).findFirst().orElseThrow();
        assertTrue(arena.peakUsed() > 0);
        fxRun(() -> window.tabs().getSelectionModel().select(1));
        waitForSettled(10, "scope rows", () -> window.scopes().tree().getExpandedItemCount() > 2);
        ScopeAnalysis batch = fx(() -> window.model().digestProperty().get().scopes().stream()
                .filter(s -> s.name().equals("batch")).findFirst().orElseThrow());
        assertTrue(batch.executions() >= 3, "one batch scope per frame batch: " + batch.executions());
        assertTrue(batch.allocations() > 0 && batch.forwardBytes() + batch.backwardBytes() > 0);
        // the tree shows the calibrated model of a scope with parameters
        String model = fx(() -> {
            for (TreeItem<ScopeAnalysis> g : window.scopes().tree().getRoot().getChildren()) {
                for (TreeItem<ScopeAnalysis> i : g.getChildren()) {
                    if (i.getValue().name().equals("batch")) {
                        return String.valueOf(window.scopes().tree().getColumns().get(8).getCellData(i));
                    }
                }
            }
            return "";
        });
        assertFalse(model.isBlank(), "the batch scope has a fitted model");
    }

    @Test
    void inferenceTraceDrawsTheSlotMapAndReplans() throws Exception {
        Path f = Recordings.record("inference", Map.of("model", "transformer", "layers", "2", "sequence", "32", "width", "128",
                "heads", "4", "max-sequence", "64", "runs", "1"), dir.resolve("inference.jsonl"));
        openAndWait(f);
        fxRun(() -> window.tabs().getSelectionModel().select(2));
        waitForSettled(10, "plan arenas", () -> !window.slots().planArenasProperty().get().isEmpty());
        List<SlotArena> arenas = fx(() -> window.slots().planArenasProperty().get());
        SlotArena scratch = arenas.stream().filter(a -> a.slots().stream().anyMatch(s -> s.role() == 0)).findFirst().orElseThrow();
        assertTrue(scratch.height() >= scratch.lowerBound() && scratch.lowerBound() > 0);
        TensorSlot t = scratch.slots().stream().max((a, b) -> Long.compare(a.bytes() * (a.lastStep() - a.firstStep() + 1),
                b.bytes() * (b.lastStep() - b.firstStep() + 1))).orElseThrow();
        fxRun(() -> window.slots().redraw());
        double[] c = fx(() -> window.slots().centreOf(t.id()));
        assertNotNull(c, "the tensor is drawn");
        String tip = fx(() -> window.slots().hoverAt(c[0], c[1]));
        assertTrue(tip.contains("lifetime steps") && tip.contains("binding") && tip.contains("size"), tip);
        String id = tip.lines().findFirst().orElse("");
        TensorSlot hovered = scratch.slots().stream().filter(s -> s.id().equals(id)).findFirst().orElse(null);
        assertNotNull(hovered, "the card names a tensor of the arena: " + tip);
        assertTrue(tip.contains(hovered.firstStep() + " – " + hovered.lastStep()), tip);

        fxRun(() -> window.slots().replanAll());
        waitForSettled(30, "the re-planned packing", () -> !window.slots().replanned().isEmpty());
        SlotArena re = fx(() -> window.slots().replanned().get(scratch.label()));
        assertEquals(scratch.slots().size(), re.slots().size());
        assertTrue(re.height() >= re.lowerBound(), "no packing is below the lower bound");
        assertTrue(fx(() -> window.slots().infoLabel().getText()).contains("→"), "both packings' heights are listed");
        assertTrue(re.proof().equals("optimal") || re.proof().matches("gap <= \\d+\\.\\d\\d%"), re.proof());
        assertTrue(fx(() -> window.slots().infoLabel().getText()).contains("proof: " + re.proof()), "the re-plan's proof is shown");
    }

    @Test
    void particlesTraceFillsThePoolHistograms() throws Exception {
        Path f = Recordings.record("particles", Map.of("steps", "120"), dir.resolve("particles.astrace"));
        openAndWait(f);
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-pools"))
                .findFirst().orElseThrow()));
        waitForSettled(10, "bins", () -> !window.pools().table().getItems().isEmpty());
        long requests = fx(() -> window.pools().table().getItems().stream().mapToLong(b -> b.requests()).sum());
        long hits = fx(() -> window.pools().table().getItems().stream().mapToLong(b -> b.hits()).sum());
        assertTrue(requests > 0 && hits > 0 && hits <= requests);
        String before = fx(() -> window.pools().whatIfLabel().getText());
        fxRun(() -> window.pools().bitsSpinner().getValueFactory().setValue(1));
        String after = fx(() -> window.pools().whatIfLabel().getText());
        assertTrue(after.startsWith("") && !after.equals(before), "the what-if re-bins: " + before + " / " + after);
        // its summary whole, wrapped beneath its controls, at the window's size and at the least one (it read "reusable 9…")
        for (double[] size : new double[][] {{1200, 760}, {720, 480}}) {
            fxRun(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            waitForSettled(10, "laid out at " + size[0] + "x" + size[1], () -> window.scene().getWidth() == size[0]);
            double[] g = fx(() -> {
                javafx.scene.control.Label l = window.pools().whatIfLabel();
                javafx.geometry.Bounds b = l.localToScene(l.getLayoutBounds());
                return new double[] {l.getWidth(), l.getHeight(), l.prefHeight(l.getWidth()), b.getMaxX(), window.scene().getWidth()};
            });
            assertTrue(g[0] > 0 && g[1] + 0.5 >= g[2], "the what-if's summary whole at " + size[0] + "x" + size[1] + ": " + g[1] + " px high of "
                    + g[2] + " at " + g[0] + " px wide: " + after);
            assertTrue(g[3] <= g[4] + 0.5, "inside the window: ends at " + g[3] + " of " + g[4]);
        }
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-allocator"))
                .findFirst().orElseThrow()));
        fxRun(() -> window.model().cursorProperty().set(window.model().trace().endNs() / 2));
        waitForSettled(10, "the address map", () -> window.allocator().infoLabel().getText().contains("blocks"));
    }

    @Test
    void planFileOpensInTheSlotMap() throws Exception {
        PlanProblem p = new PlanProblem(List.of(new PlanBuffer("a", 0, 3, 4096), new PlanBuffer("b", 1, 4, 8192),
                new PlanBuffer("c", 3, 6, 4096), new PlanBuffer("d", 4, 6, 2048)), 256);
        Packing packing = new GreedyBySizePlanner().plan(p, Long.MAX_VALUE, 1_000_000_000L);
        Path f = dir.resolve("tiny-plan.json");
        PlanJson.write(PlanLayouts.scratchPlan("tiny", "sram", packing), f);
        fxRun(() -> window.open(f));
        waitForSettled(20, "the plan", () -> !window.slots().planArenasProperty().get().isEmpty());
        SlotArena a = fx(() -> window.slots().planArenasProperty().get().get(0));
        assertEquals(4, a.slots().size());
        assertEquals(8192 + 4096, a.lowerBound(), "the most bytes live at one step");
        fxRun(() -> window.slots().redraw());
        double[] c = fx(() -> window.slots().centreOf("b"));
        String tip = fx(() -> window.slots().hoverAt(c[0], c[1]));
        assertTrue(tip.startsWith("b\n") && tip.contains("8.00 KiB") && tip.contains("lifetime steps 1 – 3"), tip);
        assertTrue(fx(() -> window.scene().lookup("#slot-hover").isVisible()), "the card shows over the plan");

        // the next file opened: the plan's card does not stay floating over it
        Path next = dir.resolve("other-plan.json");
        PlanJson.write(PlanLayouts.scratchPlan("other", "sram", new GreedyBySizePlanner().plan(new PlanProblem(
                List.of(new PlanBuffer("x", 0, 2, 1024)), 256), Long.MAX_VALUE, 1_000_000_000L)), next);
        fxRun(() -> window.open(next));
        waitForSettled(20, "the next plan", () -> window.slots().planArenasProperty().get().size() == 1
                && window.slots().planArenasProperty().get().get(0).slots().size() == 1);
        assertFalse(fx(() -> window.scene().lookup("#slot-hover").isVisible()), "no card over the next file");
        assertEquals("", fx(() -> window.slots().hoverTextProperty().get()));
    }
}
