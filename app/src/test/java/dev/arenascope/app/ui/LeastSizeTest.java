package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.prefs.Preferences;

import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.ToolBar;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.stage.Stage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.app.ui.events.EventRow;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.testsupport.Fixtures;

/**
 * The window at its least size, 720×480 (issue 28, items 1 and 2 of the second pass): the toolbar's controls all in
 * the bar with the session's title beside them, shortened; the Events view's filter row inside the window, its table
 * some rows high whatever divider the last run left, its Kind column as wide as a kind's name.
 */
class LeastSizeTest extends WindowTestBase {
    private static final double LEAST_WIDTH = WindowPrefs.MIN_WIDTH;
    private static final double LEAST_HEIGHT = WindowPrefs.MIN_HEIGHT;

    @TempDir
    Path dir;

    private void resize(double w, double h) {
        fxRun(() -> {
            stage.setWidth(w);
            stage.setHeight(h);
        });
        waitForSettled(10, "laid out at " + w + "x" + h, () -> window.scene().getWidth() == w);
    }

    /** Why {@code n} is not whole in the window's scene (not in it, hidden, zero wide, outside it), or null when it is. */
    private String outOfSight(Node n) {
        if (n == null || n.getScene() != window.scene()) {
            return "not in the window (the toolbar's overflow menu holds it)";
        }
        for (Node p = n; p != null; p = p.getParent()) {
            if (!p.isVisible()) {
                return "hidden with " + p;
            }
        }
        Bounds b = n.localToScene(n.getLayoutBounds());
        double w = window.scene().getWidth();
        double h = window.scene().getHeight();
        if (b.getWidth() < 1 || b.getHeight() < 1) {
            return "no room: " + b.getWidth() + "x" + b.getHeight() + " px";
        }
        if (b.getMinX() < -0.5 || b.getMaxX() > w + 0.5 || b.getMinY() < -0.5 || b.getMaxY() > h + 0.5) {
            return "outside the window (" + w + "x" + h + "): " + b;
        }
        if (n instanceof Control c && c.getWidth() + 0.5 < c.minWidth(-1)) {
            return "squeezed under its least width: " + c.getWidth() + " of " + c.minWidth(-1) + " px";
        }
        return null;
    }

    /** The text a label shows now (its own, or cut with an ellipsis), as laid out. */
    private static String shown(Label l) {
        Text t = (Text) l.lookup(".text");
        return t == null ? "" : t.getText();
    }

    @Test
    void theTitleSitsBesideTheToolbarAndShortensAtTheLeastWidth() throws Exception {
        Path f = Files.copy(Recordings.record("render", Map.of("frames", "6", "max-batch", "2"), dir.resolve("r.astrace")),
                dir.resolve("render-nightly-training-run-with-a-long-descriptive-name-rank-0.astrace"));
        openUntilLoaded(f);
        String title = f.getFileName().toString();
        // Monocle's headless screen is 1280 px wide: the wide case is the whole screen
        double wide = fx(() -> javafx.stage.Screen.getPrimary().getBounds().getWidth());
        for (double w : new double[] {LEAST_WIDTH, wide}) {
            resize(w, LEAST_HEIGHT);
            List<String> problems = fx(() -> {
                List<String> out = new ArrayList<>();
                ToolBar bar = (ToolBar) window.scene().lookup(".tool-bar");
                double controlsEnd = 0;
                for (Node n : bar.getItems()) {
                    String why = outOfSight(n);
                    if (why != null) {
                        out.add((n.getId() == null ? n.toString() : n.getId()) + ": " + why);
                    } else {
                        controlsEnd = Math.max(controlsEnd, n.localToScene(n.getLayoutBounds()).getMaxX());
                    }
                }
                Label t = (Label) window.scene().lookup("#session-title");
                String why = outOfSight(t);
                if (why != null) {
                    out.add("the title: " + why);
                    return out;
                }
                Bounds tb = t.localToScene(t.getLayoutBounds());
                Bounds bb = bar.localToScene(bar.getLayoutBounds());
                if (tb.getMinX() < controlsEnd - 0.5) {
                    out.add("the title starts at " + tb.getMinX() + " over the controls, which end at " + controlsEnd);
                }
                if (tb.getCenterY() < bb.getMinY() || tb.getCenterY() > bb.getMaxY()) {
                    out.add("the title is not in the toolbar's row: " + tb + " beside " + bb);
                }
                return out;
            });
            assertEquals(List.of(), problems, "at " + w + " px");
            String text = fx(() -> shown((Label) window.scene().lookup("#session-title")));
            if (w == LEAST_WIDTH) {
                assertTrue(text.endsWith("…") && text.length() >= 4 && title.startsWith(text.substring(0, text.length() - 1)),
                        "at the least width the title shows its start, cut with an ellipsis: '" + text + "'");
            } else {
                assertEquals(title, text, "with room, the title whole");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"snapshot", "render"})
    void theEventsFilterRowFitsTheLeastSize(String which) throws Exception {
        // a snapshot, and a recording whose scopes' paths are the longest names the choosers hold
        openUntilLoaded(which.equals("snapshot") ? Fixtures.torch("cs336-a2-bcrafton.pickle")
                : Recordings.record("render", Map.of("frames", "6", "max-batch", "2"), dir.resolve("render.astrace")));
        waitForSettled(20, "the scopes listed", () -> which.equals("snapshot")
                || ((javafx.scene.control.ComboBox<?>) window.scene().lookup("#events-scope")).getItems().size() > 1);
        resize(LEAST_WIDTH, LEAST_HEIGHT);
        List<String> problems = fx(() -> {
            List<String> out = new ArrayList<>();
            for (String id : List.of("#events-kinds", "#events-memory", "#events-scope", "#events-min-size", "#events-search", "#events-summary")) {
                Node n = window.scene().lookup(id);
                String why = n == null ? "not in the window" : outOfSight(n);
                if (why != null) {
                    out.add(id + ": " + why);
                }
            }
            if (!out.isEmpty()) {
                StringBuilder widths = new StringBuilder("widths:");
                for (Node n : window.scene().lookup("#events-kinds").getParent().getChildrenUnmodifiable()) {
                    widths.append(' ').append(n.getId()).append('=').append(n.getLayoutBounds().getWidth());
                }
                out.add(widths.toString());
            }
            return out;
        });
        assertEquals(List.of(), problems, "every control of the filter row whole in the window at " + LEAST_WIDTH + "x" + LEAST_HEIGHT);
        String summary = fx(() -> shown((Label) window.scene().lookup("#events-summary")));
        assertTrue(summary.length() >= 6, "the summary keeps a few words in sight: '" + summary + "'");
    }

    @Test
    void theEventsTableKeepsRowsAndItsKindsWholeWhateverTheSavedDivider() {
        // the divider a larger window left: at 720x480 it gave the tabs below the timeline no room for a row
        Preferences node = Preferences.userRoot().node("dev/arenascope/app-test/LeastSizeTest-divider");
        fxRun(() -> {
            window.dispose();
            stage.close();
            try {
                node.clear();
            } catch (java.util.prefs.BackingStoreException e) {
                throw new IllegalStateException(e);
            }
            WindowPrefs prefs = new WindowPrefs(node);
            prefs.divider(0.82);
            stage = new Stage();
            window = new MainWindow(stage, prefs);
            stage.setWidth(LEAST_WIDTH);
            stage.setHeight(LEAST_HEIGHT);
            stage.show();
        });
        openUntilLoaded(Fixtures.torch("cs336-a2-magma27.pickle"));
        waitForSettled(20, "the table lists the file", () -> !window.events().table().getItems().isEmpty());
        double[] g = fx(() -> {
            var table = window.events().table();
            Node header = table.lookup(".column-header-background");
            assertNotNull(header, "the table's header");
            return new double[] {table.getHeight(), header.getLayoutBounds().getHeight(), table.getFixedCellSize()};
        });
        double rows = Math.floor((g[0] - g[1]) / g[2]);
        assertTrue(rows >= 4, "the table shows at least four rows at " + LEAST_WIDTH + "x" + LEAST_HEIGHT + ": " + g[0] + " px high, header "
                + g[1] + ", rows of " + g[2] + " (" + rows + " rows)");
        // the Kind column as wide as the longest kind's name with its cell's padding ("memory creat…")
        double need = fx(() -> {
            double most = 0;
            for (EventKind k : EventKind.values()) {
                Text t = new Text(EventRow.kindName(k));
                t.setFont(Font.getDefault());
                most = Math.max(most, t.getLayoutBounds().getWidth());
            }
            return most;
        });
        TableColumn<?, ?> kind = fx(() -> window.events().table().getColumns().stream().filter(c -> c.getText().equals("Kind")).findFirst().orElseThrow());
        double width = fx(kind::getWidth);
        assertTrue(width >= need + 8, "the Kind column is " + width + " px for " + need + " px of 'memory created'");
    }
}
