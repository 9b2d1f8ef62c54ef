package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The stripe legend says what its figures measure, at one instant: the memory's peak, where the Sites
 * tab answers too ("762 drawn of 762 seen" beside a grey band of 287 allocations read as a
 * contradiction, and its bytes, the most live at once in view, were taken for the Sites tab's).
 */
class StripeLegendTextTest {
    @Test
    void theCountLineNamesTheInstantAndCountsTheGreyBandThere() {
        // 1,049 allocations live at the peak, 762 of them drawn: the grey band holds the other 287
        String one = StripeLegend.countsText(1, 1_049, 1_106_000_000L, 762, 30, 12);
        assertTrue(one.startsWith("bytes at the peak: 1,049 allocations live, 1.03 GiB;"), one);
        assertTrue(one.contains("762 drawn one by one, 287 in the grey band"), one);
        assertTrue(one.contains("30 groups in view (the 12 largest listed)"), one);
        assertFalse(one.contains("seen"), one);
        String two = StripeLegend.countsText(2, 1, 4096, 1, 1, 1);
        assertTrue(two.startsWith("bytes at the peak of each memory: 1 allocation live, 4.00 KiB; 1 drawn one by one, 0 in the grey band · 1 group in view"), two);
    }

    @Test
    void longSiteNamesAreCutInTheMiddleSoTheirLinesTellThemApart() {
        java.util.Set<String> chips = new java.util.HashSet<>();
        for (int line : new int[] {88, 93, 101, 117}) {
            String label = "ParticlesWorkload.run (ParticlesWorkload.java:" + line + ")";
            String chip = StripeLegend.chipLabel(label);
            assertTrue(chip.length() <= 40, chip);
            assertTrue(chip.endsWith(":" + line + ")"), chip);
            chips.add(chip);
        }
        assertTrue(chips.size() == 4, "four sites, four labels: " + chips);
        assertTrue(StripeLegend.chipLabel("nn_utils.py:12").equals("nn_utils.py:12"));
    }
}
