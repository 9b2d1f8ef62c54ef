package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.analysis.RankPass;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.file.AstraceWriter;
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

    /**
     * A rank's row taken while its snapshot imports ({@link RankPass} beside the store: the events read
     * once) is the row of a pass over the store afterwards, field by field, and the generator's books:
     * peak, reserved peak, step of the peak, out-of-memory events, live bytes per site at the peak. Saved
     * as an {@code .astrace}, whose chunks the store adopts unread, the same row comes from the store.
     */
    @Test
    void aRankRowTakenAsTheSnapshotImportsIsTheStoresAndTheGenerators() throws Exception {
        SyntheticJob.Spec spec = new SyntheticJob.Spec(11, 3, 4, 4, 3, 3, 2, true);
        SyntheticJob.Truth truth = SyntheticJob.write(dir, spec);
        for (int r = 0; r < spec.ranks(); r++) {
            SyntheticJob.RankTruth t = truth.rank(r);
            Path file = dir.resolve(SyntheticJob.fileName(r));
            RankPass pass = new RankPass();
            LoadedTrace lt = TraceFormats.load(file, pass, null);
            assertEquals(lt.store().eventCount(), pass.events(), "the tap saw every event");
            RankSummary tapped = pass.summary("rank" + r, r, file.toString(), false, null, lt.store());
            RankSummary stored = RankSummary.of("rank" + r, r, file.toString(), false, null, lt.store());
            assertEquals(row(stored), row(tapped), "rank " + r);
            assertEquals(t.peakBytes(), tapped.peakLiveBytes());
            assertEquals(t.reservedPeak(), tapped.peakReservedBytes());
            assertEquals("ProfilerStep#" + t.peakStep(), tapped.step());
            assertEquals(t.outOfMemory(), tapped.outOfMemory());
            // by innermost frame (sites of different layers may share one)
            Map<SyntheticJob.Frame, Long> expected = new HashMap<>();
            for (int site = 0; site < t.liveAtPeak().length; site++) {
                if (t.liveAtPeak()[site] > 0) {
                    expected.merge(truth.sites().get(site), t.liveAtPeak()[site], Long::sum);
                }
            }
            Map<SyntheticJob.Frame, Long> got = new HashMap<>();
            for (SiteBreakdown.Row row : tapped.sitesAtPeak().rows()) {
                StackFrame f = row.frames().getFirst();
                got.merge(new SyntheticJob.Frame(f.function(), f.file(), f.line()), row.bytes(), Long::sum);
            }
            assertEquals(expected, got, "rank " + r + " live per site at the peak");

            Path saved = dir.resolve("saved_rank" + r + ".astrace");
            lt.store().replayTo(new AstraceWriter(saved));
            RankPass unread = new RankPass();
            LoadedTrace back = TraceFormats.load(saved, unread, null);
            assertEquals(row(stored), row(unread.summary("rank" + r, r, file.toString(), false, null, back.store())),
                    "rank " + r + " from its .astrace");
        }
    }

    /** A row as text, every field (arrays by content). */
    private static String row(RankSummary s) {
        return List.of(s.rank(), s.memory(), s.peakLiveBytes(), s.peakReservedBytes(), s.peakAtNs(), String.valueOf(s.step()),
                s.stepSource(), s.outOfMemory(), s.allocations(), s.events(), s.durationNs(), Arrays.toString(s.liveOverTime()),
                s.sitesAtPeak().rows().stream().map(x -> x.label() + "=" + x.bytes() + "/" + x.count()).toList()).toString();
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
