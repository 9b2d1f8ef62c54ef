package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import javafx.scene.control.DialogPane;
import javafx.stage.Stage;
import javafx.stage.Window;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.slots.SlotArena;
import dev.arenascope.core.plan.GreedyBySizePlanner;
import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanJson;
import dev.arenascope.core.plan.PlanLayouts;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.trace.file.FileKind;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.perfetto.TraceViewToPerfetto;
import dev.arenascope.testsupport.Fixtures;

/** The content, not only the name, decides what a file is; plans and allocation problems open in the slot map. */
class OpenByContentTest extends WindowTestBase {
    @TempDir
    Path dir;

    private String errorText(String titleStart) {
        waitFor(20, "an error box", () -> Window.getWindows().stream().anyMatch(w -> w.getScene() != null
                && w.getScene().getRoot() instanceof DialogPane p && p.getHeaderText() != null && p.getHeaderText().startsWith(titleStart)));
        String text = fx(() -> Window.getWindows().stream().map(w -> w.getScene().getRoot())
                .filter(r -> r instanceof DialogPane p && p.getHeaderText() != null && p.getHeaderText().startsWith(titleStart))
                .map(r -> ((DialogPane) r).getContentText()).findFirst().orElseThrow());
        fxRun(() -> Window.getWindows().stream().filter(w -> w != stage && w instanceof Stage s && s.getOwner() == stage)
                .toList().forEach(w -> ((Stage) w).close()));
        return text;
    }

    @Test
    void everyKindIsRecognisedByItsContent() throws Exception {
        Path astrace = Recordings.record("render", Map.of("frames", "4", "max-batch", "2"), dir.resolve("r.astrace"));
        Path jsonl = Recordings.record("render", Map.of("frames", "4", "max-batch", "2"), dir.resolve("r.jsonl"));
        Path perfetto = dir.resolve("r.json");
        TraceViewToPerfetto.convert(TraceFormats.load(astrace).store(), perfetto);
        Path plan = dir.resolve("tiny.plan.json");
        PlanJson.write(PlanLayouts.scratchPlan("tiny", "sram", new GreedyBySizePlanner().plan(
                new PlanProblem(List.of(new PlanBuffer("a", 0, 2, 64), new PlanBuffer("b", 1, 3, 64)), 1), Long.MAX_VALUE, 1_000_000_000L)), plan);
        Path text = Files.writeString(dir.resolve("notes.pickle"), "# just some notes\nhello\n");
        assertEquals(FileKind.ASTRACE, FileKind.of(astrace));
        assertEquals(FileKind.JSONL, FileKind.of(jsonl));
        assertEquals(FileKind.PERFETTO_JSON, FileKind.of(perfetto));
        assertEquals(FileKind.PLAN_JSON, FileKind.of(plan));
        assertEquals(FileKind.PICKLE, FileKind.of(Fixtures.torch("cs336-a2-bcrafton.pickle")));
        assertEquals(FileKind.PROBLEM_CSV, FileKind.of(Fixtures.miniMalloc().getFirst()));
        assertEquals(FileKind.OTHER_TEXT, FileKind.of(text));
        assertEquals(FileKind.PLAN_JSON, FileKind.of("{\"name\": \"m\", \"tensor_allocs\": {}}".getBytes()), "pydantic snake_case dumps too");
        String refusal = FileKind.refusal(text, FileKind.OTHER_TEXT);
        assertTrue(refusal.contains("not a pickle (it is text)"), refusal);
        for (String accepted : new String[] {".astrace", ".jsonl", ".pickle", ".plan.json", "id,lower,upper,size"}) {
            assertTrue(refusal.contains(accepted), "the message lists every format the window opens: " + refusal);
        }

        // a trace saved without its extension still opens as a trace
        Path bare = Files.copy(astrace, dir.resolve("saved-trace"));
        fxRun(() -> window.open(bare));
        waitForSettled(30, "the trace", () -> window.model().titleProperty().get().equals("saved-trace") && window.model().eventCountProperty().get() > 0);
    }

    @Test
    void anAllocationProblemIsPackedOnOpenWithItsLowerBound() {
        Path csv = Fixtures.miniMalloc().getFirst();
        fxRun(() -> window.open(csv));
        waitForSettled(60, "the packed problem", () -> !window.slots().planArenasProperty().get().isEmpty());
        SlotArena a = fx(() -> window.slots().planArenasProperty().get().getFirst());
        assertTrue(a.slots().size() > 10, "every buffer: " + a.slots().size());
        assertTrue(a.lowerBound() > 0 && a.height() >= a.lowerBound(), "packed at or above its lower bound: " + a);
        assertTrue(a.strategy().startsWith("packed on open"), a.strategy());
        for (var s : a.slots()) {
            for (var t : a.slots()) {
                boolean timeOverlap = s.firstStep() <= t.lastStep() && t.firstStep() <= s.lastStep();
                boolean spaceOverlap = s.offset() < t.end() && t.offset() < s.end();
                assertTrue(s == t || !(timeOverlap && spaceOverlap) || s.bytes() == 0 || t.bytes() == 0, "no two live buffers overlap: " + s + " " + t);
            }
        }
        assertEquals(2, fx(() -> window.tabs().getSelectionModel().getSelectedIndex()), "the slot map is shown");
        String status = fx(() -> window.statusBar().getText());
        assertTrue(status.startsWith("Opened problem " + csv.getFileName()) && status.contains("lower bound"), status);
    }

    @Test
    void anExportedPerfettoFileSaysWhatItIs() throws Exception {
        Path astrace = Recordings.record("render", Map.of("frames", "4", "max-batch", "2"), dir.resolve("r.astrace"));
        Path perfetto = dir.resolve("exported.json");
        TraceViewToPerfetto.convert(TraceFormats.load(astrace).store(), perfetto);
        fxRun(() -> window.open(perfetto));
        String msg = errorText("Open exported.json");
        assertTrue(msg.contains("Perfetto") && msg.contains(".astrace") && msg.contains(".plan.json"), msg);
    }
}
