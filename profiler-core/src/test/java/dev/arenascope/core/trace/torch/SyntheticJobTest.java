package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * The job generator's snapshots import as PyTorch snapshots whose figures are the generator's books:
 * each rank's peak in use and reserved, its ProfilerStep markers, the stage imbalance (rank r holds
 * S - r micro-batches) and rank 0's own site.
 */
class SyntheticJobTest {
    @TempDir
    Path dir;

    @Test
    void eachRankImportsWithTheGeneratorsPeaksAndSteps() throws Exception {
        SyntheticJob.Spec spec = new SyntheticJob.Spec(7, 4, 5, 6, 4, 3, 2, true);
        SyntheticJob.Truth truth = SyntheticJob.write(dir, spec);
        assertEquals(0, truth.worstRank(), "the first stage holds the most");
        for (int r = 0; r < spec.ranks(); r++) {
            SyntheticJob.RankTruth t = truth.rank(r);
            Path file = dir.resolve(SyntheticJob.fileName(r));
            assertEquals(t.bytes(), Files.size(file));
            LoadedTrace lt = TraceFormats.load(file);
            assertEquals(t.peakBytes(), lt.store().peakUsed(0), "rank " + r + " peak in use");
            assertEquals(t.reservedPeak(), lt.store().peakAux(0), "rank " + r + " peak reserved");
            long markers = 0;
            long ooms = 0;
            for (long i = 0; i < lt.store().eventCount(); i++) {
                Event e = lt.store().event(i);
                markers += e.kind() == EventKind.MARKER ? 1 : 0;
                ooms += e.kind() == EventKind.OUT_OF_MEMORY ? 1 : 0;
            }
            assertEquals(2L * spec.steps(), markers);
            assertEquals(t.outOfMemory(), ooms);
            assertEquals(r == 0 ? 1 : 0, t.outOfMemory());
            if (r > 0) {
                assertTrue(t.peakBytes() < truth.rank(r - 1).peakBytes(), "stage " + r + " holds less than stage " + (r - 1));
            }
            SiteBreakdown atPeak = SiteAnalysis.of(lt.store(), lt.store().memories().getFirst(), false).ask(new SiteQuestion.AtPeak());
            assertEquals(t.peakBytes(), atPeak.totalBytes());
            boolean hasEmbedding = atPeak.rows().stream().anyMatch(row -> row.frames().getFirst().function().equals("embedding_lookup"));
            assertEquals(r == 0, hasEmbedding, "only rank 0 allocates from the embedding site");
        }
        assertEquals(truth.worstOnlySite(), truth.topDifferingSite(), "rank 0's own site is what tells it apart");
        assertTrue(truth.topDifferingDelta() > 0);
    }

    @Test
    void sameSpecSameBytesAndSizedSpecsComeNearTheirSize() throws Exception {
        SyntheticJob.Spec spec = SyntheticJob.Spec.of(3, 2, 2);
        var a = new ByteArrayOutputStream();
        var b = new ByteArrayOutputStream();
        SyntheticJob.writeRank(a, spec, 1);
        SyntheticJob.writeRank(b, spec, 1);
        assertTrue(Arrays.equals(a.toByteArray(), b.toByteArray()));
        SyntheticJob.Spec sized = SyntheticJob.sized(3, 4, 4_000_000);
        long bytes = SyntheticJob.writeRank(OutputStream.nullOutputStream(), sized, 0).bytes();
        assertTrue(bytes > 3_000_000 && bytes < 5_000_000, "rank 0 of a 4 MB job: " + bytes);
    }
}
