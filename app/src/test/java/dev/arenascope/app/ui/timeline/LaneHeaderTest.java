package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.util.WaitForAsyncUtils;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/**
 * A lane's header at the window's least width: its label ends at a word, with an ellipsis, short of the
 * line keys and the area / stripes switch (it ran into the switch, "by sitearea stripes"; then, clipped,
 * read "2,924 dra---- peak in use"). Text is measured in the label's own font (Monocle's toolkit).
 */
class LaneHeaderTest {
    /** The timeline's canvas at the window's least width (720 px less the lane scroll bar and borders). */
    private static final int LEAST_CANVAS = 700;

    @BeforeAll
    static void toolkit() throws Exception {
        org.testfx.api.FxToolkit.registerPrimaryStage();
    }

    @Test
    void aLongLabelEndsAtAWordWithAnEllipsisShortOfTheSwitch() throws Exception {
        String label = "pool  ·  pool  ·  peak 214 MiB, reserved 247 MiB  ·  stripes by site: 2,924 drawn one by one in view, the rest in the grey band";
        double switchX = StripePainter.toggleBounds(LEAST_CANVAS)[0];
        for (double room = 40; room <= switchX; room += 7) {
            double r = room;
            String shown = WaitForAsyncUtils.asyncFx(() -> TimelinePainter.fitLabel(label, r)).get(30, TimeUnit.SECONDS);
            double width = WaitForAsyncUtils.asyncFx(() -> TimelinePainter.labelWidth(shown)).get(30, TimeUnit.SECONDS);
            assertTrue(width <= r, r + " px: '" + shown + "' is " + width + " px");
            if (!shown.isEmpty()) {
                assertTrue(shown.endsWith("…"), "cut with an ellipsis: '" + shown + "'");
                String head = shown.substring(0, shown.length() - 1);
                assertTrue(label.startsWith(head), "a prefix of the label: '" + shown + "'");
                char next = label.charAt(head.length());
                assertTrue(next == ' ' || next == ',' || next == ':' || next == '·', "cut at a word, not inside one: '" + shown + "'");
                assertTrue(!head.endsWith(" ") && !head.endsWith("·") && !head.endsWith(":"), "no dangling separator: '" + shown + "'");
            }
        }
        assertEquals(label, WaitForAsyncUtils.asyncFx(() -> TimelinePainter.fitLabel(label, 5000)).get(30, TimeUnit.SECONDS), "whole where it fits");
    }

    @Test
    void everyLanesLabelAtTheLeastWidthStopsBeforeItsSwitch() throws Exception {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(5, 30_000, s);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, new TimeRange(s.startNs(), s.endNs() + 1), LEAST_CANVAS, 480,
                d.snapshot(), null, null));
        double switchX = StripePainter.toggleBounds(LEAST_CANVAS)[0];
        for (DrawList.Lane lane : dl.lanes()) {
            String label = TimelinePainter.laneLabel(lane) + "  ·  stripes by site: 2,924 drawn one by one in view, the rest in the grey band";
            double room = switchX - 10 - TimelinePainter.HEADER_GAP - 6; // the painter's room with no line keys drawn
            String shown = WaitForAsyncUtils.asyncFx(() -> TimelinePainter.fitLabel(label, room)).get(30, TimeUnit.SECONDS);
            double end = 6 + WaitForAsyncUtils.asyncFx(() -> TimelinePainter.labelWidth(shown)).get(30, TimeUnit.SECONDS);
            assertTrue(end + TimelinePainter.HEADER_GAP <= switchX, lane.memory().name() + ": '" + shown + "' ends at " + end
                    + " px, the switch starts at " + switchX);
            assertTrue(shown.endsWith("…"), "shortened where it does not fit: " + shown);
        }
    }
}
