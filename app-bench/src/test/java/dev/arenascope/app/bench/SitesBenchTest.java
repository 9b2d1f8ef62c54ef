package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.store.EventStore;

class SitesBenchTest {

    @Test
    void quickRunReportsEveryFigureUnderItsStableName() throws Exception {
        SitesBench bench = new SitesBench();
        Map<String, Double> f = BenchTests.quickRun(bench, "sites");
        assertEquals(List.of("sites.index_ms", "sites.query_ms", "sites.allocations"), List.copyOf(f.keySet()));
        assertTrue(f.get("sites.index_ms") > 0 && f.get("sites.query_ms") > 0, f.toString());
        assertEquals(100_000, f.get("sites.allocations"));
    }

    @Test
    void theBenchStoreIsSoundAndItsPeakIsTheSitesSum() {
        EventStore st = SitesBench.store(20_000);
        SiteAnalysis sa = SiteAnalysis.of(st, st.memories().getFirst(), false);
        assertEquals(0, sa.gaugeMismatches());
        assertEquals(st.peakUsed(0), sa.ask(new SiteQuestion.AtPeak()).totalBytes());
    }
}
