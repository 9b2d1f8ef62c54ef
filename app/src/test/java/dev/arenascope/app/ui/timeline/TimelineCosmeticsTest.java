package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Small things a user sees on the timeline: band labels, the wheel's zoom step. */
class TimelineCosmeticsTest {
    @Test
    void bandLabelsNeverCutTheirCount() {
        assertEquals("batch ×3", TimelinePainter.bandLabel("batch", 3, 200, 6));
        for (double w = 0; w < 80; w += 1) {
            String s = TimelinePainter.bandLabel("batch", 312, w, 6);
            assertTrue(s.isEmpty() || s.endsWith("×312") || s.equals("×312") || s.equals("batch ×312"), w + " px: '" + s + "'");
            assertTrue(s.length() * 6 <= w, "fits " + w + " px: '" + s + "'");
        }
        assertEquals("bat… ×3", TimelinePainter.bandLabel("batch", 3, 7 * 6, 6));
        assertEquals("frame", TimelinePainter.bandLabel("frame", 1, 60, 6));
        assertEquals("fr…", TimelinePainter.bandLabel("frame", 1, 3 * 6, 6));
    }

    @Test
    void oneWheelNotchZoomsByMoreThanTwentyPercent() {
        double in = TimelineView.wheelFactor(40);
        assertEquals(1 / TimelineView.WHEEL_ZOOM, in, 1e-12);
        assertTrue(1 / in >= 1.5, "one notch zooms in 1.5x or more: " + 1 / in);
        assertEquals(TimelineView.WHEEL_ZOOM, TimelineView.wheelFactor(-40), 1e-12, "and back out");
        assertEquals(1 / TimelineView.WHEEL_ZOOM, TimelineView.wheelFactor(1), 1e-12, "a platform reporting ±1 a notch zooms one notch");
    }
}
