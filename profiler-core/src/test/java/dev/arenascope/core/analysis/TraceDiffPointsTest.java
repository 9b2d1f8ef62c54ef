package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.report.UnitsAccess;

/** A share (fragmentation, hit rate) changes in percentage points, not in percent of itself. */
class TraceDiffPointsTest {
    private static TraceDiff.Change change(Figure now, Figure was) {
        return new TraceDiff.Change("memory", "frame", now, was, TraceDiff.Presence.BOTH);
    }

    @Test
    void aFragmentationChangeIsRankedInPoints() {
        TraceDiff.Change frag = change(Figure.ratio("fragmentation", "fragmentation", 0.0096, Figure.Better.LOWER),
                Figure.ratio("fragmentation", "fragmentation", 0.0048, Figure.Better.LOWER));
        assertEquals(0.48, frag.change(), 1e-9, "0.48 percentage points");
        assertEquals(100.0, frag.deltaPct(), 1e-9, "(the JSON key deltaPct keeps its meaning)");
        assertEquals(0.48, frag.severity(), 1e-9);
        assertTrue(frag.regression());
        TraceDiff.Change peak = change(Figure.bytes("peakUsedBytes", "peak in use", 1_100, true),
                Figure.bytes("peakUsedBytes", "peak in use", 1_000, true));
        assertTrue(peak.severity() > frag.severity(), "a 10% larger peak is worse than a 0.48-point fragmentation change");
        assertEquals("+0.48 pt", UnitsAccess.changePct(frag));
    }
}
