package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.job.Job;
import dev.arenascope.app.ui.job.RanksView;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.SyntheticJob;
import dev.arenascope.core.util.Progress;

/**
 * The all-ranks timeline's layout and frames, against the job generator's own figures: every rank a group
 * under its name, every lane on one byte axis (the worst rank's peak at its lane's top, every other rank's
 * peak at the same bytes-per-pixel), ranks that share steps aligned by step, and a frame that builds only the
 * lanes its viewport shows.
 */
class RankLanesTest {
    @TempDir
    Path dir;

    private Job job(SyntheticJob.Spec spec) throws Exception {
        SyntheticJob.write(dir, spec);
        return Job.load(List.of(dir), Progress.NONE);
    }

    /** A time range of {@code t}'s clock wide enough to hold every rank's whole run, however it is aligned to {@code t}. */
    private static TimeRange wide(TraceView t, Job j) {
        long longest = j.stores().values().stream().mapToLong(s -> s.endNs() - s.startNs()).max().orElse(1);
        return new TimeRange(t.startNs() - 2 * longest, t.endNs() + 2 * longest);
    }

    @Test
    void everyRankIsAGroupUnderItsNameOnOneByteAxisTheWorstReachingTheTop() throws Exception {
        SyntheticJob.Spec spec = SyntheticJob.Spec.of(5, 8, 3);
        SyntheticJob.Truth truth = SyntheticJob.write(dir, spec);
        Job j = Job.load(List.of(dir), Progress.NONE);
        RankLanes layout = RankLanes.of(RanksView.lanesOf(j));

        List<String> names = layout.groups().stream().map(g -> g.rank().name()).toList();
        List<String> expected = new ArrayList<>();
        for (int r = 0; r < spec.ranks(); r++) {
            expected.add("rank" + r);
        }
        assertEquals(expected, names, "one group a rank, in the job's order, under the rank's name");
        long worstPeak = truth.rank(truth.worstRank()).peakBytes();
        assertEquals(worstPeak, layout.axisBytes(), "the one byte axis is the worst rank's peak");
        assertTrue(layout.groups().get(truth.worstRank()).rank().worst());
        assertTrue(RankLanesPainter.header(layout.groups().get(truth.worstRank()).rank()).startsWith("rank" + truth.worstRank() + " — peak "));

        TraceView shown = j.store("rank" + truth.worstRank());
        RankLanesFrame f = RankLanesFrame.build(layout, shown, wide(shown, j), 600, 0, layout.height(), true);
        assertEquals(layout.lanes().size(), f.lanes().size(), "a viewport as tall as the stack holds every lane");
        for (int r = 0; r < spec.ranks(); r++) {
            int rank = r;
            RankLanesFrame.LaneColumns main = f.lanes().stream().filter(lc -> lc.lane().group() == rank)
                    .max((a, b) -> Long.compare(a.lane().peakUsed(), b.lane().peakUsed())).orElseThrow();
            long peak = truth.rank(r).peakBytes();
            assertEquals(peak, main.lane().peakUsed(), "rank " + r + "'s lane peaks where the generator says");
            assertEquals(peak, main.shownPeak(), "rank " + r + "'s whole run is drawn, its peak in it");
            int at = -1;
            for (int x = 0; x < f.width(); x++) {
                if (main.usedMax()[x] == peak) {
                    at = x;
                }
            }
            assertTrue(at >= 0);
            // the same factor for every rank: the lane's height at the peak is peak / worst peak of the gauge
            assertEquals(peak / (double) worstPeak, main.share(at, layout.axisBytes()), 1e-12, "rank " + r + " on the job's axis");
            assertTrue(f.byStep().get(r), "rank " + r + " shares the generator's steps: aligned by step");
        }
        assertEquals(1.0, f.lanes().stream().filter(lc -> lc.lane().group() == truth.worstRank())
                .mapToDouble(lc -> lc.share(argmax(lc.usedMax()), layout.axisBytes())).max().orElseThrow(), 1e-12,
                "the worst rank's peak reaches its lane's top");
    }

    private static int argmax(long[] v) {
        int k = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[k]) {
                k = i;
            }
        }
        return k;
    }

    @Test
    void aFrameBuildsOnlyTheLanesItsViewportShows() throws Exception {
        Job j = job(SyntheticJob.Spec.of(3, 64, 2));
        RankLanes layout = RankLanes.of(RanksView.lanesOf(j));
        assertEquals(64, layout.groups().size());
        TraceView shown = j.store(j.summary().worst());
        TimeRange range = new TimeRange(shown.startNs(), shown.endNs());
        double view = 600;

        RankLanesFrame top = RankLanesFrame.build(layout, shown, range, 400, 0, view, true);
        assertEquals(inView(layout, 0, view), top.lanes().stream().map(RankLanesFrame.LaneColumns::lane).toList());
        assertTrue(top.lanes().size() < 64 / 4, "a screenful of lanes, not the job's 64: " + top.lanes().size());
        assertEquals("rank0", top.rankNames().getFirst());
        assertFalse(top.rankNames().contains("rank63"));

        double bottom = layout.height() - view;
        RankLanesFrame end = RankLanesFrame.build(layout, shown, range, 400, bottom, view, true);
        assertEquals(inView(layout, bottom, bottom + view), end.lanes().stream().map(RankLanesFrame.LaneColumns::lane).toList());
        assertTrue(end.rankNames().contains("rank63"), end.rankNames().toString());
        assertFalse(end.rankNames().contains("rank0"));
        assertEquals(top.lanes().size(), end.lanes().size(), 1, "as many lanes at the end as at the top");
    }

    /** The lanes of {@code layout} that reach into {@code [y0, y1)}, found by looking at every one. */
    private static List<RankLanes.Lane> inView(RankLanes layout, double y0, double y1) {
        return layout.lanes().stream().filter(l -> l.bottom() > y0 && l.top() < y1).toList();
    }

    @Test
    void aRankWithoutStepsIsAlignedAtItsStartAndABadMemberIsItsHeaderAlone() throws Exception {
        EventStore a = StepAlignmentTest.rank("a", 1_000, 100_000, 4, 1 << 20);
        EventStore plain = new EventStore("plain");
        // the same memory without markers: no step to align by
        EventStore b = StepAlignmentTest.rank("b", 50_000, 200_000, 4, 2 << 20);
        List<RankLanes.Rank> ranks = List.of(new RankLanes.Rank("rank0", a, "", false), new RankLanes.Rank("rank1", b, "", true),
                new RankLanes.Rank("rank2", null, "could not be read: it is text", false), new RankLanes.Rank("rank3", plain, "", false));
        RankLanes layout = RankLanes.of(ranks);
        assertEquals(4, layout.groups().size());
        assertEquals(2, layout.lanes().size(), "rank2 (unreadable) and rank3 (no memory) have no lane");
        assertEquals(8L << 20, layout.axisBytes(), "rank1's pool peaks at 4 steps x 2 MiB");
        RankLanes.Group bad = layout.group("rank2");
        assertEquals(bad.top() + RankLanes.GROUP_HEADER, bad.bottom(), "a bad member is its header alone");
        assertNotNull(layout.headerAt(bad.top() + 1));

        RankLanesFrame f = RankLanesFrame.build(layout, a, new TimeRange(a.startNs(), a.endNs()), 400, 0, layout.height(), true);
        assertEquals(Map.of(0, true, 1, true, 3, false), f.byStep());
        RankLanesFrame off = RankLanesFrame.build(layout, a, new TimeRange(a.startNs(), a.endNs()), 400, 0, layout.height(), false);
        assertEquals(Map.of(0, false, 1, false, 3, false), off.byStep(), "aligning by step switched off: every rank at its start");
        // by step, rank1's last step (4 x 2 MiB) is reached within rank0's run though rank1's steps take twice as long
        long[] byStep = f.lanes().get(1).usedMax();
        long[] atStart = off.lanes().get(1).usedMax();
        assertEquals(8L << 20, byStep[byStep.length - 1]);
        assertTrue(atStart[atStart.length - 1] < 8L << 20, "at its start, rank1 is half-way through its run when rank0 ends");
    }
}
