package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The job's figures over rows made by hand: worst, lower median, imbalance, outliers, failed ranks, names. */
class JobSummaryTest {

    private static RankSummary row(int r, long peak) {
        return new RankSummary("rank" + r, r, "f" + r, false, null, null, null, "cuda:0", peak, peak + 10, 5, null,
                RankSummary.StepSource.TIME, 0, 100 + r, 1000, 10, new long[] {peak}, null);
    }

    @Test
    void worstMedianImbalanceAndOutliers() {
        List<RankSummary> rows = new ArrayList<>();
        long[] peaks = {100, 102, 98, 101, 99, 100, 160, 100};
        for (int r = 0; r < peaks.length; r++) {
            rows.add(row(r, peaks[r]));
        }
        rows.add(RankSummary.failed("rank8", 8, "f8", false, "f8: no such file"));
        JobSummary s = JobSummary.of(rows);
        assertEquals("rank6", s.worst());
        // sorted by peak, then rank: 98 (rank2) 99 (rank4) 100 (rank0) 100 (rank5) 100 (rank7) ...; the lower median at (8-1)/2 = 3
        assertEquals("rank5", s.median());
        assertEquals(60.0, s.imbalancePct(), 1e-9);
        assertEquals(List.of("rank6"), s.outliers(), "a pipeline-like spread of 2% is not an outlier; 60% is");
        JobSummary.Column live = s.column("peak_live_bytes");
        assertEquals(160, live.max());
        assertEquals("rank6", live.maxRank());
        assertEquals(98, live.min());
        assertEquals(62, live.spread());
        assertEquals(1.6, live.maxOverMedian(), 1e-9);
        assertEquals(8, live.ranks(), "the failed rank is left out of the figures");
        assertEquals(1, s.failed().size());
        assertEquals("rank6", s.rank("WORST").rank());
        assertEquals("rank5", s.rank("median").rank());
        assertEquals("rank3", s.rank("3").rank());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.rank("rank8")).getMessage().contains("could not be read"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.rank("rank99")).getMessage().contains("no rank named 'rank99'"));
        assertEquals(List.of("rank6"), s.over(150).stream().map(RankSummary::rank).toList());
    }

    @Test
    void aJobWithNothingReadHasNoWorstRank() {
        JobSummary s = JobSummary.of(List.of(RankSummary.failed("a.pickle", -1, "a.pickle", false, "a.pickle: not a pickle")));
        assertNull(s.worst());
        assertTrue(s.columns().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> s.rank("WORST"));
    }
}
