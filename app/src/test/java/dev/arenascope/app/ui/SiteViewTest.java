package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeTableRow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.app.ui.live.NewSessionDialog;
import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.sites.SiteAnswer;
import dev.arenascope.app.ui.sites.SiteRequest;
import dev.arenascope.app.ui.sites.SiteRow;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Percent;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.testsupport.Fixtures;

/**
 * The Site view, driven as a user drives it: the figures it shows are checked against what
 * {@code arenascope sites} prints for the same question on the same file.
 */
class SiteViewTest extends WindowTestBase {
    private static final long MAGMA27_PEAK = 13_927_831_556L;

    @TempDir
    Path dir;

    private void openAndShowSites(Path f) {
        openUntilLoaded(f);
        fxRun(() -> window.tabs().getSelectionModel().select(window.sitesTab()));
    }

    private void ask(SiteRequest.Question q, SiteRequest.Shape s) {
        fxRun(() -> {
            window.sites().questionChooser().setValue(q);
            window.sites().shapeChooser().setValue(s);
        });
        waitForAnswer(q, s);
    }

    private SiteAnswer waitForAnswer(SiteRequest.Question q, SiteRequest.Shape s) {
        waitForSettled(60, "the site view's answer to " + q + " / " + s, () -> {
            SiteAnswer a = window.sites().answerProperty().get();
            return a != null && a.request().question() == q && a.request().shape() == s && a.request().trace() == window.model().trace();
        });
        return fx(() -> window.sites().answerProperty().get());
    }

    private static JsonNode cli(String... args) throws Exception {
        CliRun r = CliRun.of(args);
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(r.out());
    }

    /** The table's top-level lines as the user reads them: site label, bytes, share and count columns. */
    private List<String[]> shownRows() {
        return fx(() -> {
            var t = window.sites().table();
            List<String[]> out = new ArrayList<>();
            for (TreeItem<SiteRow> it : t.getRoot().getChildren()) {
                out.add(new String[] {it.getValue().label(), String.valueOf(t.getColumns().get(2).getCellData(it)),
                        String.valueOf(t.getColumns().get(3).getCellData(it)), String.valueOf(t.getColumns().get(5).getCellData(it)),
                        Long.toString(it.getValue().bytes()), Long.toString(it.getValue().count())});
            }
            return out;
        });
    }

    /** Every site of the CLI's JSON answer is a line of the table, in the same order, with the same figures. */
    private void assertSameAsCli(JsonNode j, String what) {
        waitForSettled(30, what + ": the answer shown", () -> window.sites().answerProperty().get() != null);
        List<String[]> rows = shownRows();
        JsonNode sites = j.get("sites");
        assertEquals(sites.size(), rows.size(), what + ": one line per site");
        long total = j.get("total_bytes").asLong();
        for (int i = 0; i < sites.size(); i++) {
            JsonNode s = sites.get(i);
            String[] r = rows.get(i);
            String label = s.has("label") ? s.get("label").asText() : s.get("category").asText();
            assertEquals(label, r[0], what + " line " + i);
            assertEquals(s.get("bytes").asLong(), Long.parseLong(r[4]), what + " bytes of " + label);
            assertEquals(s.get("count").asLong(), Long.parseLong(r[5]), what + " count of " + label);
            assertEquals(Bytes.format(s.get("bytes").asLong()), r[1], what + " shown bytes of " + label);
            assertEquals(String.format("%,d", s.get("count").asLong()), r[3]);
            assertEquals(Percent.of(s.get("bytes").asLong(), total), r[2]);
        }
        // the summary states the total of the answer shown
        String bytes = String.format("%,d bytes", total);
        String count = String.format("%,d allocations", j.get("total_count").asLong());
        waitForSettled(30, what + ": the total shown in the summary",
                () -> window.sites().summary().getText().contains(bytes) && window.sites().summary().getText().contains(count),
                () -> window.sites().summary().getText());
    }

    @Test
    void magma27AtThePeakListsTheCliSitesAndTheTopSiteSelectsItsAllocations() throws Exception {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openAndShowSites(f);
        SiteAnswer a = waitForAnswer(SiteRequest.Question.PEAK, SiteRequest.Shape.SITES);
        assertEquals(MAGMA27_PEAK, a.sites().totalBytes(), "the sites add up to the peak");
        JsonNode j = cli("sites", f.toString(), "--at", "peak", "--format", "json");
        assertSameAsCli(j, "at the peak");
        String top = j.get("sites").get(0).get("label").asText();
        assertTrue(top.startsWith("einsum (") && top.contains("functional.py:373"), top);
        assertTrue(fx(() -> window.sites().flameBoxes() > 1), "the flame graph draws the tree");

        // a click on the top line publishes its allocations
        TreeTableRow<?> row = fx(() -> robot.from(window.sites().table()).lookup(".tree-table-row-cell").queryAll().stream()
                .map(n -> (TreeTableRow<?>) n).filter(r -> r.getIndex() == 0 && r.getItem() != null).findFirst().orElseThrow());
        robot.clickOn(row);
        waitForSettled(20, "the top site's selection", () -> window.model().selectedSiteProperty().get() != null);
        assertTrue(fx(() -> window.sites().flameSelected() > 0), "the flame graph marks the site's box");
        SiteSelection sel = fx(() -> window.model().selectedSiteProperty().get());
        assertEquals(top, sel.label());
        assertEquals(j.get("sites").get(0).get("bytes").asLong(), sel.members().bytes());
        assertEquals(j.get("sites").get(0).get("count").asLong(), sel.members().count());
        long[] allocs = sel.members().allocationEvents();
        assertEquals(sel.members().count(), allocs.length);
        long sum = 0;
        for (long i : allocs) {
            Event e = fx(() -> window.model().trace().event(i));
            assertEquals(EventKind.ALLOC, e.kind());
            assertTrue(sel.highlights(i));
            String innermost = fx(() -> window.model().trace().stack(e.site()).stream().filter(fr -> !fr.internal())
                    .findFirst().orElseThrow().label());
            assertEquals(top, innermost, "each selected allocation was made at the site");
            sum += e.b();
        }
        assertEquals(sel.members().bytes(), sum);

        // the events table lists the selection's events; the detail pane shows a row's whole stack
        fxRun(() -> window.tabs().getSelectionModel().select(0));
        long[] own = sel.members().eventsIn(0, fx(() -> window.model().trace().eventCount()));
        waitForSettled(30, "the events of the top site", () -> window.events().table().getItems().size() == own.length);
        assertTrue(fx(() -> window.events().siteFilterChip().isVisible() && window.events().siteFilterChip().getText().contains("einsum")));
        for (int k = 0; k < own.length; k++) {
            int line = k;
            assertEquals(own[k], (long) fx(() -> window.events().table().getItems().get(line).index()));
        }
        fxRun(() -> window.events().table().getSelectionModel().clearAndSelect(0));
        Event first = fx(() -> window.model().trace().event(own[0]));
        List<String> frames = fx(() -> window.model().trace().stack(first.site()).stream().map(fr -> fr.label()).toList());
        assertTrue(frames.size() > 3, "a deep Python stack: " + frames);
        waitForSettled(10, "the detail pane of the first row", () -> window.events().detailEventProperty().get() == own[0]
                && window.events().detailPane().getText().contains(frames.getLast()), () -> window.events().detailPane().getText());
        String detail = fx(() -> window.events().detailPane().getText());
        for (String fr : frames) {
            assertTrue(detail.contains("    " + fr), "every frame on its own line: " + fr + "\n" + detail);
        }
        assertTrue(detail.contains(frames.size() + " frames"), detail);
        // a free names the allocation it freed, with that allocation's stack
        long freeIndex = Arrays.stream(own).filter(i -> fx(() -> window.model().trace().event(i).kind()) == EventKind.FREE)
                .findFirst().orElse(-1);
        assertTrue(freeIndex >= 0, "the top site's blocks are freed later in the snapshot");
        {
            int freeRow = Arrays.binarySearch(own, freeIndex);
            fxRun(() -> window.events().table().getSelectionModel().clearAndSelect(freeRow));
            // the pane is the selected free's whole text once the window has settled: wait for that, then read it
            waitForSettled(10, "the free's detail", () -> window.events().detailEventProperty().get() == freeIndex
                    && window.events().table().getSelectionModel().getSelectedIndex() == freeRow,
                    () -> "row " + window.events().table().getSelectionModel().getSelectedIndex() + ", pane of #"
                            + window.events().detailEventProperty().get() + ": " + window.events().detailPane().getText());
            String freeDetail = fx(() -> window.events().detailPane().getText());
            assertTrue(freeDetail.contains("frees the allocation of #"), freeDetail);
            assertTrue(freeDetail.contains("allocated at ("), "its allocation's stack: " + freeDetail);
        }
        fxRun(() -> window.events().siteFilterChip().fire());
        waitForSettled(30, "every event again", () -> window.events().table().getItems().size() == window.model().trace().eventCount());
        fxRun(() -> window.tabs().getSelectionModel().select(window.sitesTab()));

        // a selection made elsewhere (a stripe clicked on the timeline: every allocation of a site) selects its line here
        fxRun(() -> window.sites().table().getSelectionModel().clearSelection());
        waitForSettled(10, "nothing selected", () -> window.model().selectedSiteProperty().get() == null);
        SiteSelection fromStripe = fx(() -> {
            var sa = SiteAnalysis.of(window.model().trace(), window.model().trace().memories().getFirst(), false);
            var second = sa.ask(new SiteQuestion.AtPeak()).rows().get(1);
            var ms = sa.members(new SiteQuestion.AllocatedIn(0, sa.endNs()),
                    SiteAnalysis.By.SITE, (label, fr) -> fr.equals(second.frames()));
            return new SiteSelection(0, second.label(), "every allocation made at this site", ms);
        });
        fxRun(() -> window.model().selectedSiteProperty().set(fromStripe));
        waitForSettled(10, "the site view follows", () -> window.sites().table().getSelectionModel().getSelectedIndex() == 1);
        assertEquals(fromStripe, fx(() -> window.model().selectedSiteProperty().get()), "and leaves the stripe's selection as it is");
        assertTrue(fx(() -> window.sites().flameSelected() > 0));

        // the same question as call trees: the trees' totals are the peak, and the first bottom-up frame is the top site's
        ask(SiteRequest.Question.PEAK, SiteRequest.Shape.BOTTOM_UP);
        List<String[]> up = shownRows();
        assertTrue(up.get(0)[0].startsWith("einsum ("), up.get(0)[0]);
        long upTotal = up.stream().mapToLong(r -> Long.parseLong(r[4])).sum();
        assertEquals(MAGMA27_PEAK, upTotal, "bottom-up roots add up to the peak");
        ask(SiteRequest.Question.PEAK, SiteRequest.Shape.TOP_DOWN);
        assertEquals(MAGMA27_PEAK, shownRows().stream().mapToLong(r -> Long.parseLong(r[4])).sum());

        // leaks of the snapshot, as the CLI answers them
        ask(SiteRequest.Question.LEAKS, SiteRequest.Shape.SITES);
        assertSameAsCli(cli("sites", f.toString(), "--leaks", "--format", "json"), "leaks");
        ask(SiteRequest.Question.PEAK, SiteRequest.Shape.CATEGORY);
        assertSameAsCli(cli("sites", f.toString(), "--by", "category", "--format", "json"), "by category");
    }

    /** The rows of the HTML report's table {@code id}: each row's cells as text, a cell's second line left out. */
    private static List<List<String>> htmlTable(String html, String id) {
        int at = html.indexOf("<section id=\"" + id + "\">");
        assertTrue(at >= 0, "the report has the table " + id);
        String sec = html.substring(at, html.indexOf("</section>", at));
        List<List<String>> rows = new ArrayList<>();
        var tr = Pattern.compile("<tr>(.*?)</tr>").matcher(sec.substring(sec.indexOf("<tbody>")));
        while (tr.find()) {
            List<String> cells = new ArrayList<>();
            var td = Pattern.compile("<td[^>]*>(.*?)</td>").matcher(tr.group(1));
            while (td.find()) {
                cells.add(unescape(td.group(1).replaceAll("<span class=\"sub\">.*?</span>", "")));
            }
            rows.add(cells);
        }
        return rows;
    }

    private static String unescape(String s) {
        return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&");
    }

    @Test
    void theHtmlReportsSiteTablesAreTheWindowsAnswerAtThePeak() throws Exception {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openAndShowSites(f);
        SiteAnswer a = waitForAnswer(SiteRequest.Question.PEAK, SiteRequest.Shape.SITES);
        Path out = dir.resolve("magma27.html");
        CliRun r = CliRun.of("report", f.toString(), "--format", "html", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        String html = Files.readString(out);
        List<List<String>> table = htmlTable(html, "sites-cuda_0");
        List<String[]> shown = shownRows();
        assertEquals(16, table.size(), "the top 15 sites and one row for the others");
        long rest = 0;
        for (int i = 0; i < shown.size(); i++) {
            if (i < 15) {
                List<String> row = table.get(i);
                assertEquals(List.of(shown.get(i)[0], shown.get(i)[1], shown.get(i)[2], shown.get(i)[3]), row,
                        "report line " + i + " is the window's line (site, bytes, share, allocations)");
            } else {
                rest += Long.parseLong(shown.get(i)[4]);
            }
        }
        List<String> others = table.get(15);
        assertEquals("(" + (shown.size() - 15) + " other sites)", others.get(0));
        assertEquals(Bytes.format(rest), others.get(1), "the others' row holds the rest of the window's sites");
        String total = a.sites().question();
        assertTrue(html.contains(escaped(Character.toUpperCase(total.charAt(0)) + total.substring(1) + ": "
                + Bytes.format(a.sites().totalBytes()) + " in " + String.format("%,d", a.sites().totalCount()) + " allocations")),
                "the report states the window's question and total: " + total);

        ask(SiteRequest.Question.PEAK, SiteRequest.Shape.CATEGORY);
        List<List<String>> cats = htmlTable(html, "categories-cuda_0");
        List<String[]> shownCats = shownRows();
        assertEquals(shownCats.size(), cats.size());
        for (int i = 0; i < cats.size(); i++) {
            assertEquals(List.of(shownCats.get(i)[0], shownCats.get(i)[1], shownCats.get(i)[2], shownCats.get(i)[3]), cats.get(i),
                    "category line " + i);
        }
    }

    /** The text as the report's HTML writes it (its escaping of {@code <}, {@code >}, {@code &}, quotes). */
    private static String escaped(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&#39;");
    }

    private static String key(JsonNode frames, String label) {
        if (frames.isEmpty()) {
            return label;
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode fr : frames) {
            sb.append(fr.get("function").asText()).append('|').append(fr.get("file").asText()).append('|').append(fr.get("line").asInt()).append(';');
        }
        return sb.toString();
    }

    private static String key(SiteRow r) {
        if (r.siteFrames().isEmpty()) {
            return r.label();
        }
        StringBuilder sb = new StringBuilder();
        for (var fr : r.siteFrames()) {
            sb.append(fr.function()).append('|').append(fr.file()).append('|').append(fr.line()).append(';');
        }
        return sb.toString();
    }

    @Test
    void theCursorTheSelectionTheTreesAndCompareModeAnswerAsTheCli() throws Exception {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openAndShowSites(f);
        waitForAnswer(SiteRequest.Question.PEAK, SiteRequest.Shape.SITES);
        // live at the cursor
        fxRun(() -> window.model().cursorProperty().set(100_000_000L));
        ask(SiteRequest.Question.CURSOR, SiteRequest.Shape.SITES);
        assertSameAsCli(cli("sites", f.toString(), "--at", "100ms", "--format", "json"), "live at 100 ms");
        fxRun(() -> window.model().cursorProperty().set(180_000_000L));
        waitForSettled(30, "the answer follows the cursor", () -> window.sites().answerProperty().get().question()
                .equals(new SiteQuestion.LiveAt(180_000_000L)));
        assertSameAsCli(cli("sites", f.toString(), "--at", "180ms", "--format", "json"), "live at 180 ms");
        // allocated in the selected range (the selection is half-open, the CLI's range takes both ends)
        fxRun(() -> window.model().selectionProperty().set(new TimeRange(50_000_000L, 120_000_000L)));
        ask(SiteRequest.Question.RANGE, SiteRequest.Shape.SITES);
        assertSameAsCli(cli("sites", f.toString(), "--range", "50000000ns..119999999ns", "--format", "json"), "allocated in the range");
        // the bottom-up tree's first level is the CLI's
        ask(SiteRequest.Question.PEAK, SiteRequest.Shape.BOTTOM_UP);
        JsonNode up = cli("sites", f.toString(), "--bottom-up", "--format", "json").get("bottom_up").get("children");
        List<TreeItem<SiteRow>> shown = fx(() -> List.copyOf(window.sites().table().getRoot().getChildren()));
        for (int i = 0; i < up.size(); i++) {
            JsonNode n = up.get(i);
            SiteRow r = shown.get(i).getValue();
            assertEquals(n.get("function").asText(), r.frame().function(), "bottom-up node " + i);
            assertEquals(n.get("total_bytes").asLong(), r.bytes());
            assertEquals(n.get("self_bytes").asLong(), r.self());
            assertEquals(n.get("count").asLong(), r.count());
        }

        // compare mode against the other snapshot: per site, the baseline's bytes and the change, as the CLI's diff says
        Path base = Fixtures.torch("cs336-a2-bcrafton.pickle");
        fxRun(() -> window.compareWith(base));
        waitForSettled(60, "the baseline", () -> window.model().baselineProperty().get() != null);
        ask(SiteRequest.Question.PEAK, SiteRequest.Shape.SITES);
        waitForSettled(30, "the compared answer", () -> window.sites().answerProperty().get().comparing());
        JsonNode diff = cli("sites", f.toString(), "--baseline", base.toString(), "--format", "json").get("diff");
        Map<String, JsonNode> byKey = new HashMap<>();
        for (JsonNode e : diff) {
            byKey.put(key(e.get("frames"), e.get("label").asText()), e);
        }
        List<TreeItem<SiteRow>> rows = fx(() -> List.copyOf(window.sites().table().getRoot().getChildren()));
        int removed = 0;
        boolean grew = false;
        boolean shrank = false;
        for (TreeItem<SiteRow> it : rows) {
            SiteRow r = it.getValue();
            JsonNode e = byKey.get(key(r));
            assertNotNull(e, "the CLI's diff has " + r.label());
            assertEquals(e.get("baseline_bytes").asLong(), r.baselineBytes(), "baseline bytes of " + r.label());
            assertEquals(e.get("delta_bytes").asLong(), r.delta(), "change of " + r.label());
            removed += r.kind() == SiteRow.Kind.REMOVED ? 1 : 0;
            String change = fx(() -> String.valueOf(window.sites().table().getColumns().get(7).getCellData(it)));
            assertEquals((r.delta() > 0 ? "+" : r.delta() < 0 ? "−" : "±") + Bytes.format(Math.abs(r.delta())), change);
            grew |= r.delta() > 0;
            shrank |= r.delta() < 0;
        }
        assertEquals(diff.size(), rows.size(), "one line per site of either trace");
        long removedInCli = 0;
        for (JsonNode e : diff) {
            removedInCli += e.get("status").asText().equals("removed") ? 1 : 0;
        }
        assertEquals(removedInCli, removed, "sites only the baseline has are listed too");
        assertTrue(grew && shrank, "this pair has growth and shrink");
        int firstGrowth = rows.stream().filter(it -> it.getValue().delta() > 0).findFirst().map(rows::indexOf).orElseThrow();
        int firstShrink = rows.stream().filter(it -> it.getValue().delta() < 0).findFirst().map(rows::indexOf).orElseThrow();
        fxRun(() -> window.sites().table().scrollTo(firstGrowth));
        waitFor(10, "growth in red", () -> !window.sites().table().lookupAll(".site-growth").isEmpty());
        fxRun(() -> window.sites().table().scrollTo(firstShrink));
        waitFor(10, "shrink in green", () -> !window.sites().table().lookupAll(".site-shrink").isEmpty());
        assertTrue(fx(() -> window.sites().flameDescribe(1)).contains("baseline"), "the flame graph's boxes carry the change");
    }

    @Test
    void aLiveSessionIsAnsweredWhileItsEventsStream() {
        fxRun(() -> window.startLive(new NewSessionDialog.Choice("particles", "virtual:1GiB",
                Map.of("steps", "100000"))));
        waitFor(30, "live events", () -> window.model().eventCountProperty().get() > 2_000);
        fxRun(() -> window.tabs().getSelectionModel().select(window.sitesTab()));
        long first = fx(() -> window.model().eventCountProperty().get());
        waitFor(60, "an answer about the streaming session", () -> {
            SiteAnswer a = window.sites().answerProperty().get();
            return a != null && a.request().trace() == window.model().trace() && a.analysis().allocations() > 0;
        });
        long answered = fx(() -> window.sites().answerProperty().get().analysis().allocations());
        waitFor(60, "a later answer over the grown session", () -> window.model().eventCountProperty().get() > first
                && window.sites().answerProperty().get().analysis().allocations() > answered);
        SiteAnswer a = fx(() -> window.sites().answerProperty().get());
        assertEquals(a.sites().totalBytes(), a.sites().rows().stream().mapToLong(r -> r.bytes()).sum(), "the rows add up");
        fxRun(() -> window.live().stop());
    }

    @Test
    void searchKeepsTheMatchingSites() throws Exception {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openAndShowSites(f);
        waitForAnswer(SiteRequest.Question.PEAK, SiteRequest.Shape.SITES);
        int all = shownRows().size();
        fxRun(() -> window.sites().searchField().setText("functional.py"));
        waitForSettled(10, "the search filters", () -> window.sites().table().getRoot().getChildren().size() < all);
        List<String[]> rows = shownRows();
        assertFalse(rows.isEmpty());
        for (TreeItem<SiteRow> it : fx(() -> List.copyOf(window.sites().table().getRoot().getChildren()))) {
            assertTrue(it.getValue().siteFrames().stream().anyMatch(fr -> fr.file().contains("functional.py")), it.getValue().label());
        }
        assertTrue(fx(() -> window.sites().flameMatches("functional.py") > 0), "the flame graph finds it too");
    }

    @Test
    void particlesPoolRunLeaksAndTemporariesMatchTheCli() throws Exception {
        Path t = dir.resolve("particles.astrace");
        CliRun rec = CliRun.of("record", "particles", "--device", "virtual", "--steps", "120", "--stacks", "--out", t.toString());
        assertEquals(0, rec.code(), rec.err());
        openAndShowSites(t);
        waitForAnswer(SiteRequest.Question.PEAK, SiteRequest.Shape.SITES);
        assertSameAsCli(cli("sites", t.toString(), "--format", "json"), "particles at the peak");
        ask(SiteRequest.Question.TEMPORARIES, SiteRequest.Shape.SITES);
        JsonNode temps = cli("sites", t.toString(), "--temporary", "--format", "json");
        assertTrue(temps.get("total_count").asLong() > 0, "a pool run's per-step buffers are temporaries");
        assertSameAsCli(temps, "temporaries");
        fxRun(() -> window.sites().thresholdField().setText("50us"));
        waitForSettled(30, "the new threshold's answer", () -> window.sites().answerProperty().get() != null
                && window.sites().answerProperty().get().request().shorterThanNs() == 50_000);
        assertSameAsCli(cli("sites", t.toString(), "--temporary", "--shorter-than", "50us", "--format", "json"), "temporaries < 50us");
        ask(SiteRequest.Question.LEAKS, SiteRequest.Shape.SITES);
        assertSameAsCli(cli("sites", t.toString(), "--leaks", "--format", "json"), "leaks");
        ask(SiteRequest.Question.TEMPORARIES, SiteRequest.Shape.CATEGORY);
        assertSameAsCli(cli("sites", t.toString(), "--temporary", "--shorter-than", "50us", "--by", "category", "--format", "json"),
                "temporaries < 50us by category");
        assertNotNull(fx(() -> window.sites().answerProperty().get().analysis()));
    }
}
