package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The stripe legend says what its figures measure ("762 drawn of 762 seen" beside a grey band of 287
 * allocations read as a contradiction, and its bytes were taken for the Sites tab's).
 */
class StripeLegendTextTest {
    @Test
    void theCountLineNamesTheGreyBandAndWhatTheBytesAre() {
        String all = StripeLegend.countsText(762, 762, 30, 12);
        assertTrue(all.startsWith("762 drawn one by one;"), all);
        assertTrue(all.contains("the grey band"), all);
        assertTrue(all.contains("bytes: most live at once in view"), all);
        assertTrue(all.contains("30 groups (the 12 largest listed)"), all);
        assertFalse(all.contains("seen"), all);
        String some = StripeLegend.countsText(500, 1_234, 1, 1);
        assertTrue(some.contains("500 drawn one by one (of 1,234 a pixel tall or more)") && some.contains("1 group ·"), some);
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
