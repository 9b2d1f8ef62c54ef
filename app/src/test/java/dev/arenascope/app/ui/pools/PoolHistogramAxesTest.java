package dev.arenascope.app.ui.pools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The pool histogram's axes: decade ticks on its log scale, bin-size labels that never overlap. */
class PoolHistogramAxesTest {
    @Test
    void decadeTicksReachTheLargestCountAndNoFurther() {
        assertEquals(List.of(1L), PoolView.logTicks(0));
        assertEquals(List.of(1L), PoolView.logTicks(9));
        assertEquals(List.of(1L, 10L, 100L, 1000L), PoolView.logTicks(4321));
        assertEquals(19, PoolView.logTicks(Long.MAX_VALUE).size(), "no overflow past 10^18");
        assertEquals("1", PoolView.countLabel(1));
        assertEquals("100", PoolView.countLabel(100));
        assertEquals("10k", PoolView.countLabel(10_000));
        assertEquals("1M", PoolView.countLabel(1_000_000));
        assertEquals("1G", PoolView.countLabel(1_000_000_000));
    }

    @Test
    void binLabelsAreSpacedSoTheyDoNotOverlapAndTheLastBinIsNamedWhenThereIsRoom() {
        assertEquals(List.of(0, 1, 2), PoolView.labelledBins(3, 100, 56), "wide bins: every one");
        List<Integer> dense = PoolView.labelledBins(200, 2.5, 56);
        for (int k = 1; k < dense.size(); k++) {
            assertTrue((dense.get(k) - dense.get(k - 1)) * 2.5 >= 56, "labels " + dense.get(k - 1) + " and " + dense.get(k) + " overlap");
        }
        assertEquals(0, dense.getFirst());
        assertTrue(199 - dense.getLast() < 23, "the labels run to the end: " + dense);
        assertEquals(List.of(), PoolView.labelledBins(0, 10, 56));
        assertEquals(List.of(0), PoolView.labelledBins(1, 0.5, 56));
    }

    @Test
    void theChartsTitleSaysWhereTheWhatIfIsWhenItHasNoRoom() {
        String same = PoolView.histogramTitle(4, 4, false);
        assertTrue(same.startsWith("requests per bin (recorded, 4 mantissa bits"), same);
        String drawn = PoolView.histogramTitle(4, 2, true);
        assertEquals(same, drawn, "the what-if's own title is drawn over its bins");
        String summarised = PoolView.histogramTitle(4, 2, false);
        assertTrue(summarised.contains("the what-if at 2 bits is summarised above"), summarised);
    }

    /** The title fits the chart at every width down to a narrow pane, and still says where the what-if is (it was cut at 1280 px). */
    @Test
    void theChartsTitleFitsItsWidth() throws Exception {
        org.testfx.api.FxToolkit.registerPrimaryStage();
        for (double room = 320; room <= 1900; room += 50) {
            double r = room;
            String summarised = org.testfx.util.WaitForAsyncUtils.asyncFx(() -> PoolView.fittedTitle(5, 3, false, r)).get(30, java.util.concurrent.TimeUnit.SECONDS);
            double w = org.testfx.util.WaitForAsyncUtils.asyncFx(() -> PoolView.textWidth(summarised)).get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(w <= r, r + " px: '" + summarised + "' is " + w + " px");
            assertTrue(summarised.contains("what-if at 3 bits"), "says where the what-if is: " + summarised);
            assertTrue(summarised.contains("5 ") && summarised.contains("bits"), "and the recorded bits: " + summarised);
        }
        String wide = org.testfx.util.WaitForAsyncUtils.asyncFx(() -> PoolView.fittedTitle(5, 3, false, 5000)).get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(PoolView.histogramTitle(5, 3, false), wide, "whole where there is room");
    }
}
