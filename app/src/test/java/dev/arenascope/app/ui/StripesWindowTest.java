package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import javafx.geometry.Bounds;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.Region;

import org.junit.jupiter.api.Test;
import org.testfx.util.WaitForAsyncUtils;

import dev.arenascope.app.ui.events.EventRow;
import dev.arenascope.app.ui.model.AllocationSelection;
import dev.arenascope.app.ui.model.FreeRequests;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.StripeLayer;
import dev.arenascope.app.ui.timeline.TimelineView;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.Fixtures;

/**
 * The allocation stripes on a real PyTorch snapshot (magma27): drawn by default, the peak's stripes
 * name the sites the site analysis (and {@code arenascope sites --at peak}) puts on top, a click selects
 * the allocation (its rows in the Events table, its site in the session), and the lane switches back to
 * the occupancy area.
 */
class StripesWindowTest extends WindowTestBase {

    private DrawList.Lane stripedLane() {
        DrawList d = window.timeline().drawListProperty().get();
        if (d == null) {
            return null;
        }
        return d.lanes().stream().filter(l -> l.memory().kind() == MemoryKind.SEGMENTED && l.stripes() != null).findFirst().orElse(null);
    }

    /** Per legend chip shown, its group key and the figure it reads (the text after its label). */
    private java.util.Map<String, String> legendFigures() {
        return fx(() -> {
            java.util.Map<String, String> out = new java.util.TreeMap<>();
            for (var chip : window.timeline().legend().chips()) {
                String text = chip.getText();
                out.put((String) chip.getUserData(), text.substring(text.lastIndexOf("  ") + 2));
            }
            return out;
        });
    }

    /** The legend's key for a Sites row: {@code site:} and its frames one a line. */
    private static String keyOf(SiteBreakdown.Row r) {
        if (r.frames().isEmpty()) {
            return "site:(no site)";
        }
        StringBuilder d = new StringBuilder("site:");
        for (int i = 0; i < r.frames().size(); i++) {
            d.append(i == 0 ? "" : "\n").append(r.frames().get(i).label());
        }
        return d.toString();
    }

    @Test
    void theLegendsFiguresAreTheSitesViewsAtThePeakAtTwoWindowSizes() {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openUntilLoaded(f);
        MemoryInfo cuda = fx(() -> window.model().trace().memories().stream().filter(m -> m.kind() == MemoryKind.SEGMENTED)
                .findFirst().orElseThrow());
        // the raw events: the most the used gauge reached, and the allocations live right after that event
        var trace = fx(() -> window.model().trace());
        long peak = 0;
        long peakEvent = -1;
        for (long i = 0; i < trace.eventCount(); i++) {
            var e = trace.event(i);
            if (e.memory() == cuda.id() && e.used() > peak) {
                peak = e.used();
                peakEvent = i;
            }
        }
        assertEquals(13_927_831_556L, peak, "the fixture's peak, from its events");
        // the Sites tab at the peak (its default question)
        fxRun(() -> window.tabs().getSelectionModel().select(window.sitesTab()));
        waitForSettled(60, "the Sites view's answer at the peak", () -> {
            var a = window.sites().answerProperty().get();
            return a != null && a.request().trace() == window.model().trace() && a.request().memory() == cuda.id();
        });
        SiteBreakdown sites = fx(() -> window.sites().answerProperty().get().sites());
        assertEquals(peak, sites.totalBytes(), "Sites at the peak adds up to the raw events' peak");
        java.util.Map<String, Long> bySite = new java.util.HashMap<>();
        for (SiteBreakdown.Row r : sites.rows()) {
            bySite.merge(keyOf(r), r.bytes(), Long::sum);
        }
        java.util.Map<String, String> first = null;
        List<Integer> widths = new ArrayList<>();
        for (double[] size : new double[][] {{1920, 1080}, {900, 560}}) {
            fxRun(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            WaitForAsyncUtils.waitForFxEvents();
            waitForSettled(60, "stripes and their legend at " + size[0] + "x" + size[1], () -> stripedLane() != null
                    && window.timeline().legend().isVisible() && window.timeline().idle());
            WaitForAsyncUtils.waitForFxEvents();
            waitForSettled(30, "the frame after the legend's layout", () -> window.timeline().idle() && stripedLane() != null);
            java.util.Map<String, String> shown = legendFigures();
            assertFalse(shown.isEmpty(), "the legend lists groups");
            for (var e : shown.entrySet()) {
                assertEquals(Bytes.format(bySite.getOrDefault(e.getKey(), 0L)), e.getValue(),
                        size[0] + "x" + size[1] + ": the chip of " + e.getKey().replace('\n', '|') + " reads the Sites view's bytes at the peak");
            }
            String line = fx(() -> window.timeline().legend().countsLine());
            assertTrue(line.startsWith("bytes at the peak: " + String.format(java.util.Locale.ROOT, "%,d allocations live, %s;",
                    sites.totalCount(), Bytes.format(peak))), line);
            DrawList.Lane lane = fx(this::stripedLane);
            StripeLayer.AtPeak at = lane.stripes().atPeak();
            assertTrue(line.contains(String.format(java.util.Locale.ROOT, "%,d drawn one by one, %,d in the grey band", at.drawn(),
                    sites.totalCount() - at.drawn())), line);
            widths.add(fx(() -> window.timeline().drawListProperty().get().width()));
            if (first == null) {
                first = shown;
            } else {
                for (var e : shown.entrySet()) {
                    if (first.containsKey(e.getKey())) {
                        assertEquals(first.get(e.getKey()), e.getValue(), "a chip's figure does not change with the window's size");
                    }
                }
            }
        }
        assertTrue(peakEvent >= 0);
        assertTrue(!widths.get(0).equals(widths.get(1)), "the two frames were drawn at two widths: " + widths);
    }

    @Test
    void peakStripesNameTheirSitesAndAClickSelectsTheAllocation() {
        Path f = Fixtures.torch("cs336-a2-magma27.pickle");
        openUntilLoaded(f);
        MemoryInfo cuda = fx(() -> window.model().trace().memories().stream().filter(m -> m.kind() == MemoryKind.SEGMENTED)
                .findFirst().orElseThrow());
        SiteAnalysis sa = SiteAnalysis.of(fx(() -> window.model().trace()), cuda, false);
        SiteBreakdown peak = sa.ask(new SiteQuestion.AtPeak());
        assertEquals(13_927_831_556L, peak.totalBytes(), "the fixture's peak");

        // zoom around the peak, so that a column's instant falls right after it
        long at = sa.peakNs();
        fxRun(() -> window.model().viewRangeProperty().set(new TimeRange(at - 200_000, at + 200_000)));
        waitForSettled(60, "stripes drawn by default for the snapshot, the legend shown", () -> {
            DrawList.Lane l = stripedLane();
            return l != null && window.timeline().drawListProperty().get().range().fromNs() == at - 200_000
                    && window.timeline().legend().isVisible() && window.timeline().idle();
        });
        WaitForAsyncUtils.waitForFxEvents();
        waitForSettled(30, "the frame after the legend's layout", () -> window.timeline().idle() && stripedLane() != null);
        // every stripe in the peak's column, bottom to top, through the hover card, all read in one FX
        // call: the layer scanned is then the one the cards describe (a frame installed between two
        // calls could restack the column under the pointer)
        record Column(DrawList d, DrawList.Lane lane, int col, List<Double> ys, List<String> cards) {}
        Column column = fx(() -> {
            DrawList d0 = window.timeline().drawListProperty().get();
            DrawList.Lane l0 = stripedLane();
            StripeLayer s = l0.stripes();
            int c = (int) Math.ceil(d0.xOf(at));
            while (c < d0.width() - 1 && d0.timeAt(c + 1) - 1 < at) {
                c++;
            }
            List<Double> ys = new ArrayList<>();
            List<String> cards = new ArrayList<>();
            for (int row = s.height() - 1; row >= 0; row--) {
                if (s.stripeAt(c, row) >= 0) {
                    double y = l0.gaugeTop() + row + 0.5;
                    ys.add(y);
                    cards.add(window.timeline().hoverAt(c + 0.5, y));
                }
            }
            return new Column(d0, l0, c, ys, cards);
        });
        DrawList d = column.d();
        DrawList.Lane lane = column.lane();
        int col = column.col();
        Set<String> sites = new LinkedHashSet<>();
        String firstStripeCard = null;
        double firstStripeY = -1;
        for (int i = 0; i < column.cards().size(); i++) {
            String card = column.cards().get(i);
            assertTrue(card.contains("allocation ") && card.contains("allocated ") && card.contains("category "), card);
            for (String line : card.split("\n")) {
                if (line.startsWith("site ")) {
                    sites.add(line.substring(5));
                }
            }
            // (a block live before the trace began has no stack in this file: named so, not the program's)
            if (firstStripeCard == null && !card.contains("site (no site)") && !card.contains("site live before recording began")) {
                firstStripeCard = card;
                firstStripeY = column.ys().get(i);
            }
        }
        assertNotNull(firstStripeCard, "the peak's column holds stripes with sites");
        List<String> top = peak.rows().stream().limit(3).map(SiteBreakdown.Row::label).toList();
        assertTrue(sites.containsAll(top), "the peak's stripes name the top sites " + top + "; hover named " + sites);
        assertTrue(firstStripeCard.contains("in use ") && firstStripeCard.contains("reserved "), firstStripeCard);
        assertTrue(firstStripeCard.contains(".py"), "the stack lists the program's Python frames: " + firstStripeCard);

        // a click on that stripe selects its allocation
        Bounds b = fx(() -> window.timeline().canvas().localToScreen(window.timeline().canvas().getBoundsInLocal()));
        robot.moveTo(b.getMinX() + col + 0.5, b.getMinY() + firstStripeY).clickOn(MouseButton.PRIMARY);
        waitForSettled(10, "an allocation selected", () -> window.model().selectedAllocationProperty().get() != null);
        AllocationSelection sel = fx(() -> window.model().selectedAllocationProperty().get());
        String siteLine = firstStripeCard.lines().filter(l -> l.startsWith("site ")).findFirst().orElseThrow().substring(5);
        assertEquals(siteLine, sel.site().label(), "the selected site is the stripe's");
        assertEquals(sel.site(), fx(() -> window.model().selectedSiteProperty().get()), "published for the site view");
        assertTrue(firstStripeCard.contains(TimelineView.exact(sel.bytes())), "the clicked stripe is the hovered one");
        waitForSettled(20, "the Events table lists the allocation's rows", () -> {
            var items = window.events().table().getItems();
            return !items.isEmpty() && items.getFirst().index() == sel.allocEvent();
        });
        List<EventRow> rows = fx(() -> List.copyOf(window.events().table().getItems()));
        assertEquals(EventKind.ALLOC, rows.getFirst().event().kind());
        assertEquals(sel.bytes(), rows.getFirst().event().b());
        if (sel.freeEvent() >= 0) {
            // magma27 records every free as requested, then completed: the request sits between
            long request = FreeRequests.requestOf(fx(() -> window.model().trace()), sel.allocEvent(), sel.freeEvent());
            assertEquals(request >= 0 ? 3 : 2, rows.size());
            if (request >= 0) {
                assertEquals(EventKind.FREE_REQUESTED, rows.get(1).event().kind());
                assertEquals(request, rows.get(1).index());
                assertEquals(rows.getFirst().event().a(), rows.get(1).event().a(), "requested at the same address");
            }
            assertEquals(EventKind.FREE, rows.getLast().event().kind());
            assertEquals(rows.getFirst().event().a(), rows.getLast().event().a(), "freed at the same address");
            assertEquals(sel.freeEvent(), rows.getLast().index());
        }
        assertEquals(0, fx(() -> window.events().table().getSelectionModel().getSelectedIndex()), "the allocation row is selected");
        // the long summary of the selection gives way; the filter choosers keep their width
        waitForSettled(10, "the filter bar laid out with the choosers whole", () -> Stream.of("#events-kinds", "#events-memory", "#events-scope")
                .map(id -> (Region) window.scene().lookup(id))
                .allMatch(r -> r.getWidth() >= r.prefWidth(-1) - 0.5 && r.getWidth() > 40));

        // the lane's header switch: back to the occupancy area, and stripes again
        double[] toggle = fx(() -> new double[] {d.width() - 6 - 46 - 17, lane.top() + 8});
        robot.moveTo(b.getMinX() + toggle[0], b.getMinY() + toggle[1]).clickOn(MouseButton.PRIMARY);
        waitForSettled(20, "the lane drawn as an area", () -> {
            DrawList dl = window.timeline().drawListProperty().get();
            return dl.lanes().stream().anyMatch(l -> l.memory().id() == cuda.id() && !l.stripesOn() && l.stripes() == null);
        });
        assertFalse(fx(() -> window.timeline().stripesOn(cuda)));
        fxRun(() -> window.timeline().setStripes(cuda.id(), true));
        waitForSettled(20, "stripes again", () -> stripedLane() != null && window.timeline().idle());

        // clearing the selection lists the range again
        DrawList.Lane again = fx(this::stripedLane);
        fxRun(() -> {
            // what a click off the stripes does
            window.model().selectedAllocationProperty().set(null);
            window.model().selectedSiteProperty().set(null);
        });
        waitForSettled(20, "the range listed again", () -> window.events().table().getItems().size() > 2);
        assertNull(fx(() -> window.model().selectedAllocationProperty().get()));
        assertTrue(again.stripes().stripes() > 0);
    }
}
