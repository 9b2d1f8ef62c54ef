package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javafx.geometry.Point2D;
import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.MenuBar;
import javafx.scene.image.Image;
import javafx.scene.paint.Color;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.job.Job;
import dev.arenascope.app.ui.timeline.RankLanes;
import dev.arenascope.app.ui.timeline.RankLanesFrame;
import dev.arenascope.app.ui.timeline.RankLanesView;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.torch.SyntheticJob;

/**
 * All ranks in the timeline, in the window: a generated job of 8 ranks, then one of 64, opened as a job; the
 * Ranks view's button (or View ▸ All Ranks in the Timeline) puts every rank's lanes in the timeline's place,
 * grouped under each rank's name, every lane on one byte axis: the worst rank's peak reaches its lane's top
 * and the others stand at their peaks' share of it. Only the lanes scrolled into view are painted; scrolling
 * brings the others. A click on a rank's header shows that rank in the timeline.
 */
class AllRanksTimelineTest extends WindowTestBase {
    @TempDir
    Path dir;

    /** The axis and the canvas's top strip (the time axis) before the first group: RankLanesPainter.AXIS. */
    private static final int AXIS = 22;

    private Job openJob(SyntheticJob.Spec spec) throws Exception {
        SyntheticJob.write(dir, spec);
        fxRun(() -> window.openJob(List.of(dir)));
        waitForSettled(180, "the job open with its worst rank shown", () -> window.ranks().jobProperty().get() != null
                && window.model().trace() != null && window.model().digestProperty().get().events() == window.model().trace().eventCount(),
                () -> window.statusBar().getText());
        return fx(() -> window.ranks().jobProperty().get());
    }

    private RankLanesView lanes() {
        return window.allRanksTimeline();
    }

    /** Waits for the all-ranks timeline in the window with a frame of where it is scrolled to, painted. */
    private RankLanesFrame drawn() {
        waitForSettled(60, "every rank in the timeline, drawn where it is scrolled to", () -> lanes().getScene() != null
                && lanes().frameProperty().get() != null && lanes().frameProperty().get().scrollY() == lanes().scrollBar().getValue()
                && lanes().frameProperty().get().width() == (int) lanes().canvas().getWidth());
        return fx(() -> lanes().frameProperty().get());
    }

    private CheckMenuItem allRanksItem() {
        return fx(() -> ((MenuBar) window.scene().lookup(".menu-bar")).getMenus().stream().flatMap(m -> m.getItems().stream())
                .filter(i -> "menu-all-ranks".equals(i.getId())).map(CheckMenuItem.class::cast).findFirst().orElseThrow());
    }

    /** The colour of canvas pixel {@code (x, y)} in {@code img}. */
    private static Color at(Image img, int x, double y) {
        return img.getPixelReader().getColor(x, (int) Math.floor(y));
    }

    /** Whether a lane's pixel is in its in-use area: neither the lane's background nor a grid line across it. */
    private static boolean filled(Color c) {
        return !c.equals(Palette.LIGHT.laneBackground()) && !c.equals(Palette.LIGHT.grid());
    }

    @Test
    void eightRanksEachUnderItsNameOnOneByteAxisAndAClickOnAHeaderShowsThatRank() throws Exception {
        SyntheticJob.Spec spec = SyntheticJob.Spec.of(17, 8, 3);
        Job job = openJob(spec);
        assertTrue(fx(() -> window.ranksTab().isSelected()));
        assertTrue(fx(() -> window.timeline().getScene() != null), "the timeline shows one rank until asked for all");
        assertFalse(fx(() -> allRanksItem().isSelected()));

        robot.clickOn("#ranks-all-in-timeline");
        RankLanesFrame first = drawn();
        assertTrue(fx(() -> window.timeline().getScene() == null), "every rank's lanes take the timeline's place");
        assertTrue(fx(() -> allRanksItem().isSelected()), "View ▸ All Ranks in the Timeline says so");

        RankLanes layout = first.layout();
        List<String> rows = job.summary().ranks().stream().map(RankSummary::rank).toList();
        assertEquals(rows, layout.groups().stream().map(g -> g.rank().name()).toList(), "a group for every rank of the table, by its name");
        long worstPeak = job.row(job.summary().worst()).peakLiveBytes();
        assertEquals(worstPeak, layout.axisBytes(), "one byte axis: the worst rank's peak");

        // scrolled through, every rank comes into view under its name, each painted on the same axis
        List<String> seen = new ArrayList<>();
        boolean worstAtTop = false;
        for (String rank : rows) {
            fxRun(() -> lanes().scrollTo(rank));
            RankLanesFrame f = drawn();
            assertTrue(f.rankNames().contains(rank), rank + " in view: " + f.rankNames());
            assertEquals(f.lanes().size(), fx(() -> lanes().paintedLanes()), "the frame's lanes, and only those, painted");
            assertTrue(f.lanes().size() < layout.lanes().size(), "not every lane of 8 ranks fits: only those in view are painted");
            seen.add(rank);
            RankLanesFrame.LaneColumns main = f.lanes().stream().filter(lc -> layout.groups().get(lc.lane().group()).rank().name().equals(rank))
                    .findFirst().orElseThrow();
            long peak = job.row(rank).peakLiveBytes();
            int x = -1;
            for (int c = 0; c < f.width(); c++) {
                if (main.usedMax()[c] == peak) {
                    x = c;
                    break;
                }
            }
            assertTrue(x >= 0, rank + "'s peak is drawn");
            assertEquals(peak / (double) worstPeak, main.share(x, layout.axisBytes()), 1e-12, rank + " stands at its peak's share of the job's axis");
            int col = x;
            double gaugeTop = main.lane().gaugeTop() - f.scrollY() + AXIS;
            double gaugeBottom = gaugeTop + RankLanes.LANE_GAUGE;
            String hover = fx(() -> lanes().describe(col + 0.5, gaugeTop + RankLanes.LANE_GAUGE / 2.0));
            assertTrue(hover.startsWith(rank + " · "), hover);
            assertTrue(hover.contains("in use " + Bytes.format(peak)), hover);
            Image img = fx(() -> lanes().canvas().snapshot(null, null));
            // painted from the lane's bottom up to its peak's height, the same pixels per byte on every rank
            assertTrue(filled(at(img, col, gaugeBottom - 1)), rank + " filled at its peak's column");
            double peakY = gaugeBottom - RankLanes.LANE_GAUGE * (peak / (double) worstPeak);
            if (peakY > gaugeTop + 2) {
                assertFalse(filled(at(img, col, peakY - 2)), rank + " empty above its peak");
            } else {
                worstAtTop = true;
                assertTrue(filled(at(img, col, gaugeTop + 0.5)), rank + "'s peak reaches the lane's top");
            }
        }
        assertEquals(rows, seen);
        assertTrue(worstAtTop, "the worst rank's peak reached its lane's top");

        // a click on a rank's header shows that rank in the timeline
        String other = rows.stream().filter(r -> !r.equals(job.summary().worst())).findFirst().orElseThrow();
        fxRun(() -> lanes().scrollTo(other));
        RankLanesFrame f = drawn();
        double headerY = f.layout().group(other).top() - f.scrollY() + AXIS + 5;
        Point2D p = fx(() -> lanes().canvas().localToScreen(40, headerY));
        robot.clickOn(p);
        waitForSettled(60, other + " shown in the timeline", () -> window.model().trace() == job.store(other) && window.timeline().getScene() != null);
        assertFalse(fx(() -> allRanksItem().isSelected()));
        assertTrue(fx(() -> window.model().titleProperty().get()).endsWith(" · " + other));
    }

    @Test
    void sixtyFourRanksPaintOnlyTheLanesInViewAndTheViewMenuTurnsThemOnAndOff() throws Exception {
        Job job = openJob(SyntheticJob.Spec.of(23, 64, 2));
        assertEquals(64, job.summary().read().size());
        CheckMenuItem item = allRanksItem();
        assertFalse(fx(item::isDisable), "a job is open: every rank can be drawn");
        fxRun(() -> choose(item)); // what a click on the menu item does
        RankLanesFrame top = drawn();
        RankLanes layout = top.layout();
        assertEquals(64, layout.groups().size());
        for (int r = 0; r < 64; r++) {
            assertEquals("rank" + r, layout.groups().get(r).rank().name());
        }
        assertEquals(job.axisBytes(), layout.axisBytes(), "the rank table's sparklines and the lanes share one axis");
        double view = fx(() -> lanes().canvas().getHeight()) - AXIS;
        int painted = fx(() -> lanes().paintedLanes());
        assertEquals(inView(layout, 0, view), top.lanes().stream().map(RankLanesFrame.LaneColumns::lane).toList());
        assertEquals(top.lanes().size(), painted, "painted: the lanes in view");
        assertTrue(painted > 0 && painted < 64 / 4, "a screenful of the 64 ranks' lanes: " + painted);
        assertEquals("rank0", top.rankNames().getFirst());

        fxRun(() -> lanes().scrollBar().setValue(lanes().scrollBar().getMax()));
        RankLanesFrame end = drawn();
        double y0 = end.scrollY();
        assertEquals(inView(layout, y0, y0 + view), end.lanes().stream().map(RankLanesFrame.LaneColumns::lane).toList());
        assertTrue(end.rankNames().contains("rank63"), end.rankNames().toString());
        assertFalse(end.rankNames().contains("rank0"));
        assertEquals(end.lanes().size(), fx(() -> lanes().paintedLanes()));
        assertTrue(end.layout().groups().getLast().bottom() <= y0 + view, "scrolled to the end, the last rank's lanes are in view");

        fxRun(() -> choose(item));
        waitForSettled(30, "the timeline back", () -> window.timeline().getScene() != null && lanes().getScene() == null);
        assertSame(job.store(job.summary().worst()), fx(() -> window.model().trace()), "the shown rank unchanged");
    }

    /** A click on a check item of the menu: its tick switched, then its action. */
    private static void choose(CheckMenuItem item) {
        item.setSelected(!item.isSelected());
        item.fire();
    }

    /** The lanes of {@code layout} reaching into {@code [y0, y1)}, found by looking at each. */
    private static List<RankLanes.Lane> inView(RankLanes layout, double y0, double y1) {
        return layout.lanes().stream().filter(l -> l.bottom() > y0 && l.top() < y1).toList();
    }
}
