package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javafx.scene.control.TableView;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeTableView;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.app.ui.scopes.ScopeTreeView;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.analysis.ScopeModel;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.MemoryInfo;

/**
 * The window and the report answer from one analysis model: a recorded trace opened in the window
 * shows in its scope tree and pool table exactly the figures {@code arenascope report --format json}
 * prints for the same file, row for row.
 */
class OneAnalysisModelTest extends WindowTestBase {
    @TempDir
    Path dir;

    private void openAndWait(Path f) {
        fxRun(() -> window.open(f));
        waitForSettled(60, "the file's digest", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && window.model().eventCountProperty().get() > 0
                && window.model().digestProperty().get().events() == window.model().eventCountProperty().get());
    }

    private static JsonNode report(Path f) throws Exception {
        CliRun r = CliRun.of("report", f.toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(r.out()).get("trace");
    }

    @Test
    void theScopeTreeShowsTheReportsScopes() throws Exception {
        Path f = Recordings.record("render", Map.of("frames", "24", "max-batch", "8"), dir.resolve("render.astrace"));
        openAndWait(f);
        fxRun(() -> window.tabs().getSelectionModel().select(1));
        JsonNode scopes = report(f).get("scopes");
        assertTrue(scopes.size() > 2, "the render run has nested scopes: " + scopes);
        waitForSettled(10, "one tree row per scope of the report", () -> rows(window.scopes().tree()).size() == scopes.size() && window.scopes().fitted());
        Map<String, String[]> shown = fx(() -> {
            Map<String, String[]> out = new HashMap<>();
            TreeTableView<ScopeAnalysis> t = window.scopes().tree();
            for (TreeItem<ScopeAnalysis> it : rows(t)) {
                String[] cells = new String[t.getColumns().size()];
                for (int c = 0; c < cells.length; c++) {
                    cells[c] = String.valueOf(t.getColumns().get(c).getCellData(it));
                }
                out.put(it.getValue().memory() + ":" + it.getValue().path(), cells);
            }
            return out;
        });
        TraceAggregate.Snapshot digest = fx(() -> window.model().digestProperty().get());
        int withModel = 0;
        for (JsonNode j : scopes) {
            String key = j.get("memory").asInt() + ":" + j.get("path").asText();
            String[] cells = shown.get(key);
            assertNotNull(cells, "the tree has a row for the report's scope " + key);
            String what = "scope " + key + ": ";
            assertEquals(j.get("name").asText(), cells[0], what + "name");
            assertEquals(String.format("%,d", j.get("executions").asLong()), cells[1], what + "calls");
            assertEquals(String.format("%,d", j.get("allocations").asLong()), cells[2], what + "allocations");
            assertEquals(Bytes.format(j.get("forwardBytes").asLong()), cells[3], what + "forward");
            assertEquals(Bytes.format(j.get("backwardBytes").asLong()), cells[4], what + "backward");
            assertEquals(Bytes.format(j.get("peakUsedBytes").asLong()), cells[5], what + "peak");
            assertEquals(TimeRange.formatDuration(j.get("totalNs").asLong()), cells[6], what + "time");
            List<String> params = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = j.get("params").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> p = it.next();
                params.add(p.getKey() + "=" + p.getValue().asLong());
            }
            assertEquals(String.join(", ", params), cells[7], what + "params");
            assertEquals(j.get("model").isNull() ? "" : j.get("model").asText(), cells[8], what + "model");
            // the figures the tree does not show are the same row's too
            ScopeAnalysis row = digest.scope(j.get("memory").asInt(), j.get("path").asText());
            assertEquals(j.get("peakBytes").asLong(), row.peakBytes(), what + "peak above entry");
            assertEquals(j.get("peakAtNs").asLong(), row.peakAtNs(), what + "peak run");
            assertEquals(j.get("meanBytes").asLong(), row.meanBytes(), what + "mean");
            assertEquals(j.get("maxNs").asLong(), row.maxNs(), what + "longest run");
            if (!j.get("model").isNull()) {
                withModel++;
                ScopeModel m = digest.model(row);
                assertEquals(j.get("modelError").asDouble(), m.worstRelative(), 1e-12, what + "model error");
                assertEquals(m.exact() ? "exact" : String.format(Locale.ROOT, "%.2f%%", 100 * m.worstRelative()), cells[9], what + "error");
            }
        }
        assertTrue(withModel > 0, "the render run's scopes have calibrated models");
    }

    /**
     * The scope models (exact fits in BigInteger arithmetic) are fitted on a worker, never on the FX thread:
     * a digest applied on the FX thread shows the tree at once with the models still "fitting…" (the old view
     * fitted each row's model as the FX thread drew it), and the fitted models follow, the report's.
     */
    @Test
    void theScopeModelsAreFittedOffTheFxThread() throws Exception {
        Path f = Recordings.record("render", Map.of("frames", "24", "max-batch", "8"), dir.resolve("render.astrace"));
        openAndWait(f);
        fxRun(() -> window.tabs().getSelectionModel().select(1));
        TraceAggregate.Snapshot digest = fx(() -> window.model().digestProperty().get());
        waitForSettled(10, "the models fitted", () -> window.scopes().fitted() && !rows(window.scopes().tree()).isEmpty());
        int modelColumn = 8;
        List<String> during = fx(() -> {
            window.scopes().show(digest); // as a new digest is applied: this FX turn returns before any fit is done
            List<String> out = new ArrayList<>();
            for (TreeItem<ScopeAnalysis> it : rows(window.scopes().tree())) {
                out.add(String.valueOf(window.scopes().tree().getColumns().get(modelColumn).getCellData(it)));
            }
            out.add(String.valueOf(window.scopes().fitted()));
            return out;
        });
        assertEquals("false", during.getLast(), "not fitted within the FX turn that applied the digest");
        assertTrue(during.subList(0, during.size() - 1).stream().allMatch(ScopeTreeView.FITTING::equals), during.toString());
        waitForSettled(30, "the models fitted again", () -> window.scopes().fitted());
        Map<String, String> models = fx(() -> {
            Map<String, String> out = new HashMap<>();
            for (TreeItem<ScopeAnalysis> it : rows(window.scopes().tree())) {
                out.put(it.getValue().memory() + ":" + it.getValue().path(), String.valueOf(window.scopes().tree().getColumns().get(modelColumn).getCellData(it)));
            }
            return out;
        });
        int withModel = 0;
        for (JsonNode j : report(f).get("scopes")) {
            String shown = models.get(j.get("memory").asInt() + ":" + j.get("path").asText());
            assertEquals(j.get("model").isNull() ? "" : j.get("model").asText(), shown, "scope " + j.get("path").asText());
            withModel += j.get("model").isNull() ? 0 : 1;
        }
        assertTrue(withModel > 0, "the render run's scopes have models");
    }

    /** A session without a binned pool says so on the Pool histograms tab, and what would fill it (it was an empty table). */
    @Test
    void aSnapshotsPoolTabSaysWhyItIsEmptyAndWhatFillsIt() throws Exception {
        openAndWait(dev.arenascope.testsupport.Fixtures.torch("cs336-a2-magma27.pickle"));
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-pools"))
                .findFirst().orElseThrow()));
        waitForSettled(10, "the placeholder shown", () -> window.pools().placeholder().isVisible());
        String says = fx(() -> window.pools().placeholder().getText());
        assertTrue(says.startsWith("No binned pool in this session: a PyTorch snapshot's caching allocator keeps segments and blocks, not bins;"
                + " its state is in the Allocator tab."), says);
        assertTrue(says.contains("A binned pool fills this tab: ArenaScope's MemoryPool"), says);
        assertTrue(fx(() -> window.pools().placeholder().getWidth() > 100 && window.pools().placeholder().getHeight() > 20), "laid out");
        assertFalse(fx(() -> window.pools().poolSelector().getParent().isVisible()), "no empty pool selector above the placeholder");
        // a session with a pool shows its bins instead
        Path p = Recordings.record("particles", Map.of("steps", "30"), dir.resolve("particles.astrace"));
        openAndWait(p);
        waitForSettled(10, "the placeholder hidden", () -> !window.pools().placeholder().isVisible());
        assertTrue(fx(() -> window.pools().poolSelector().getParent().isVisible()), "the pool selector back with the bins");
    }

    @Test
    void thePoolTableShowsTheReportsBins() throws Exception {
        Path f = Recordings.record("particles", Map.of("steps", "120"), dir.resolve("particles.astrace"));
        openAndWait(f);
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(x -> x.getId().equals("tab-pools"))
                .findFirst().orElseThrow()));
        JsonNode bins = report(f).get("poolBins");
        assertTrue(bins.size() > 1, "the particles run uses several bins: " + bins);
        List<MemoryInfo> pools = fx(() -> List.copyOf(window.pools().poolSelector().getItems()));
        assertFalse(pools.isEmpty());
        int compared = 0;
        for (MemoryInfo pool : pools) {
            fxRun(() -> window.pools().poolSelector().setValue(pool));
            List<JsonNode> expected = new ArrayList<>();
            bins.forEach(b -> {
                if (b.get("memory").asInt() == pool.id()) {
                    expected.add(b);
                }
            });
            waitForSettled(10, "the bins of " + pool.name(), () -> window.pools().table().getItems().size() == expected.size()
                    && (expected.isEmpty() || window.pools().table().getItems().getFirst().memory() == pool.id()));
            List<String[]> shown = fx(() -> {
                TableView<PoolBinAnalysis> t = window.pools().table();
                List<String[]> out = new ArrayList<>();
                for (PoolBinAnalysis b : t.getItems()) {
                    String[] cells = new String[t.getColumns().size()];
                    for (int c = 0; c < cells.length; c++) {
                        cells[c] = String.valueOf(t.getColumns().get(c).getCellData(b));
                    }
                    out.add(cells);
                }
                return out;
            });
            for (int i = 0; i < expected.size(); i++) {
                JsonNode j = expected.get(i);
                String[] cells = shown.get(i);
                String what = pool.name() + " bin " + j.get("bin").asInt() + ": ";
                assertEquals(Integer.toString(j.get("bin").asInt()), cells[0], what + "bin");
                assertEquals(Bytes.format(j.get("binBytes").asLong()), cells[1], what + "size");
                assertEquals(String.format(Locale.ROOT, "%,d", j.get("requests").asLong()), cells[2], what + "requests");
                assertEquals(String.format(Locale.ROOT, "%,d", j.get("hits").asLong()), cells[3], what + "hits");
                assertEquals(String.format(Locale.ROOT, "%,d", j.get("misses").asLong()), cells[4], what + "misses");
                assertEquals(j.get("requests").asLong() == 0 ? ""
                        : String.format(Locale.ROOT, "%.1f", 100 * j.get("hitRate").asDouble()), cells[5], what + "hit %");
                assertEquals(String.format(Locale.ROOT, "%,d", j.get("heldBlocks").asLong()), cells[6], what + "held blocks");
                assertEquals(Bytes.format(j.get("heldBytes").asLong()), cells[7], what + "held bytes");
                assertEquals(Bytes.format(j.get("roundingWasteBytes").asLong()), cells[8], what + "waste");
                compared++;
            }
        }
        assertEquals(bins.size(), compared, "every bin of the report is a row of the pool table");
    }

    /** Every scope row of the tree (group rows of memories left out), depth first. */
    private static List<TreeItem<ScopeAnalysis>> rows(TreeTableView<ScopeAnalysis> t) {
        List<TreeItem<ScopeAnalysis>> out = new ArrayList<>();
        collect(t.getRoot(), out);
        return out;
    }

    private static void collect(TreeItem<ScopeAnalysis> item, List<TreeItem<ScopeAnalysis>> out) {
        if (item == null) {
            return;
        }
        for (TreeItem<ScopeAnalysis> c : item.getChildren()) {
            if (c.getValue() != null && c.getValue().depth() >= 0) {
                out.add(c);
            }
            collect(c, out);
        }
    }
}
