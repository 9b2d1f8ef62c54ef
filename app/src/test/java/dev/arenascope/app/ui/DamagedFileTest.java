package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.DialogPane;
import javafx.stage.Stage;
import javafx.stage.Window;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;

/** A damaged trace says what was recovered and lost, and never silently replaces the open session. */
class DamagedFileTest extends WindowTestBase {
    @TempDir
    Path dir;

    private Path truncated(Path good, String name, long bytes) throws Exception {
        Path out = dir.resolve(name);
        Files.write(out, Arrays.copyOf(Files.readAllBytes(good), (int) bytes));
        return out;
    }

    private void openAndWait(Path f) {
        fxRun(() -> window.open(f));
        waitForSettled(60, "the file shown", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && fx(() -> window.statusBar().getText()).startsWith("Opened"));
    }

    private DialogPane confirmDialog() {
        waitFor(20, "the confirmation", () -> Window.getWindows().stream()
                .anyMatch(w -> w.getScene() != null && w.getScene().getRoot() instanceof DialogPane p && "confirm-dialog".equals(p.getId())));
        return fx(() -> Window.getWindows().stream().map(w -> w.getScene().getRoot())
                .filter(r -> r instanceof DialogPane p && "confirm-dialog".equals(p.getId())).map(r -> (DialogPane) r).findFirst().orElseThrow());
    }

    private void press(DialogPane pane, ButtonBar.ButtonData which) {
        fxRun(() -> pane.getButtonTypes().stream().filter(b -> b.getButtonData() == which).findFirst()
                .map(pane::lookupButton).map(n -> (Button) n).orElseThrow().fire());
    }

    @Test
    void truncatedTraceShowsWhatWasRecoveredAndLost() throws Exception {
        // three whole chunks, whatever the machine's speed (a recording's chunks also close on wall time)
        Path good = dir.resolve("render.astrace");
        SyntheticTrace.write(7, 3L * AstraceWriter.CHUNK_EVENTS, new AstraceWriter(good));
        long full = TraceFormats.load(good).store().eventCount();
        Path cut = truncated(good, "cut.astrace", Files.size(good) * 2 / 3);
        LoadedTrace direct = TraceFormats.load(cut);
        assertTrue(direct.report().damaged() && direct.store().eventCount() > 0, "precondition: a partly recoverable file: " + direct.report() + " of " + full + " in " + Files.size(good) + " bytes");

        openAndWait(good);
        assertTrue(!fx(() -> window.damageBanner().isVisible()), "a sound file shows no notice");
        openAndWait(cut);
        assertEquals(direct.store().eventCount(), fx(() -> window.model().eventCountProperty().get()));
        assertTrue(fx(() -> window.damageBanner().isVisible()), "the damage notice is shown");
        String text = fx(() -> window.damageBanner().text());
        assertTrue(text.contains("cut.astrace is damaged") && text.contains(String.format("recovered %,d", direct.store().eventCount())), text);
        assertTrue(text.contains(direct.report().problems().getFirst()), "the reader's first problem is named: " + text);
        assertTrue(fx(() -> window.statusBar().getText()).contains("damaged"), fx(() -> window.statusBar().getText()));
        assertTrue(direct.store().eventCount() < full);

        // a sound file again: the notice goes
        openAndWait(good);
        assertTrue(!fx(() -> window.damageBanner().isVisible()));
    }

    @Test
    void aFileWithNoEventsDoesNotReplaceTheSessionWithoutAsking() throws Exception {
        Path good = Recordings.record("render", Map.of("frames", "12", "max-batch", "4"), dir.resolve("render.astrace"));
        // cut just past the header: the session and memories are readable, no chunk is whole
        Path cutAt = null;
        LoadedTrace read = null;
        for (long len = 64; len < Files.size(good) && read == null; len += 32) {
            Path f = truncated(good, "empty.astrace", len);
            try {
                read = TraceFormats.load(f);
                cutAt = f;
            } catch (TraceFormatException headerCut) {
                // still inside the header
            }
        }
        Path empty = cutAt;
        LoadedTrace direct = read;
        assertTrue(direct.report().damaged() && direct.store().eventCount() == 0, "precondition: nothing recoverable");
        openAndWait(good);
        long shown = fx(() -> window.model().eventCountProperty().get());

        fxRun(() -> window.open(empty));
        DialogPane ask = confirmDialog();
        assertTrue(fx(ask::getContentText).contains("recovered 0"), fx(ask::getContentText));
        press(ask, ButtonBar.ButtonData.NO);
        waitForSettled(10, "kept", () -> fx(() -> window.statusBar().getText()).startsWith("Kept the open session"));
        assertEquals(shown, fx(() -> window.model().eventCountProperty().get()), "the open session stays");
        assertEquals("render.astrace", fx(() -> window.model().titleProperty().get()));

        fxRun(() -> window.open(empty));
        press(confirmDialog(), ButtonBar.ButtonData.YES);
        waitForSettled(10, "replaced", () -> window.model().titleProperty().get().equals("empty.astrace"));
        assertEquals(0, fx(() -> window.model().eventCountProperty().get()));
        assertTrue(fx(() -> window.damageBanner().isVisible()), "and the notice says why it is empty");
        fxRun(() -> Window.getWindows().stream().filter(w -> w instanceof Stage s && s != stage && s.getOwner() == stage)
                .toList().forEach(w -> ((Stage) w).close()));
    }

    @Test
    void aSnapshotWithoutTimestampsSaysItsAxisIsEntryOrder() {
        var info = new SessionInfo("s", "h", 0, List.of(), Map.of("time_axis", "entry_order"));
        assertTrue(DamageBanner.timeAxisNotice(info).contains("entry order"));
        assertEquals(null, DamageBanner.timeAxisNotice(new SessionInfo("s", "h", 0, List.of(),
                Map.of("time_axis", "time"))));
        fxRun(() -> window.damageBanner().notice(DamageBanner.timeAxisNotice(info)));
        assertTrue(fx(() -> window.damageBanner().isVisible() && window.damageBanner().text().contains("no timestamps")));
        // the notice starts with a word, not a pictograph that common fonts lack (it showed as a box)
        String text = fx(() -> window.damageBanner().text());
        assertTrue(text.startsWith("Note: "), text);
        assertTrue(text.codePoints().allMatch(c -> c < 0x2460 || c == 0x2013 || c == 0x2014 || c == 0x2026), "no symbol glyphs: " + text);
    }

    @Test
    void theDetailPanesPlaceholderReadsInTheDarkTheme() {
        fxRun(() -> window.applyTheme(true));
        double contrast = fx(() -> {
            var area = (javafx.scene.control.TextArea) window.scene().lookup("#events-detail");
            area.applyCss();
            area.layout();
            // the skin draws the placeholder as a Text node filled with the theme's prompt colour
            javafx.scene.paint.Color fg = area.lookupAll("*").stream()
                    .filter(n -> n instanceof javafx.scene.text.Text t && area.getPromptText().equals(t.getText()))
                    .map(n -> (javafx.scene.paint.Color) ((javafx.scene.text.Text) n).getFill()).findFirst().orElseThrow();
            javafx.scene.paint.Color bg = javafx.scene.paint.Color.web("#22262c"); // the dark theme's inner background
            return contrast(fg, bg);
        });
        fxRun(() -> window.applyTheme(false));
        assertTrue(contrast >= 4.5, "the placeholder's contrast on the dark background: " + contrast);
    }

    private static double luminance(javafx.scene.paint.Color c) {
        double[] v = {c.getRed(), c.getGreen(), c.getBlue()};
        for (int i = 0; i < 3; i++) {
            v[i] = v[i] <= 0.03928 ? v[i] / 12.92 : Math.pow((v[i] + 0.055) / 1.055, 2.4);
        }
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
    }

    private static double contrast(javafx.scene.paint.Color a, javafx.scene.paint.Color b) {
        double x = luminance(a);
        double y = luminance(b);
        return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
    }
}
