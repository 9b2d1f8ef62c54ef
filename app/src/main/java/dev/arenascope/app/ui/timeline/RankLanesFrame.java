package dev.arenascope.app.ui.timeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.analysis.StepClock;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.TraceView;

/**
 * One frame of the all-ranks timeline, ready to paint: the lanes a viewport shows (and only those), each
 * its memory's most in use per pixel column, on the job's one byte axis. The x axis is the reference
 * rank's time (the rank the window shows, whose view range the frame draws): every other rank is carried
 * to it by the steps both have ({@code ProfilerStep#N}: each common step begins at the same x on every
 * rank), or, when it shares no step with the reference, aligned at its start. Built off the FX thread by
 * {@link #build}; immutable.
 *
 * @param layout      where every group and lane is (the whole job)
 * @param range       the reference rank's time range drawn
 * @param width       canvas width px (one column per px)
 * @param scrollY     content y at the viewport's top
 * @param viewHeight  viewport height px
 * @param lanes       the lanes reaching into the viewport, in order: nothing is built for the others
 * @param groups      the groups reaching into the viewport
 * @param byStep      per group index, whether that rank is aligned by step (false: at its start; the
 *                    reference rank counts as aligned by step when it has steps)
 */
public record RankLanesFrame(RankLanes layout, TimeRange range, int width, double scrollY, double viewHeight,
                             List<LaneColumns> lanes, List<RankLanes.Group> groups, Map<Integer, Boolean> byStep) {

    /**
     * A lane's columns.
     *
     * @param lane    where it is and what it draws
     * @param usedMax per column, the most bytes in use (0 before the rank's first event)
     */
    public record LaneColumns(RankLanes.Lane lane, long[] usedMax) {
        /** The height of column {@code x}'s area as a share of the lane's gauge (1: the job's axis reached). */
        public double share(int x, long axisBytes) {
            return Math.min(1.0, usedMax[x] / (double) Math.max(1, axisBytes));
        }

        /** The most in use over the columns. */
        public long shownPeak() {
            long m = 0;
            for (long v : usedMax) {
                m = Math.max(m, v);
            }
            return m;
        }
    }

    /** Time at pixel column {@code x} (the reference rank's clock). */
    public long timeAt(double x) {
        return range.fromNs() + Math.round(x / width * range.duration());
    }

    /**
     * Builds the frame of the viewport {@code [scrollY, scrollY + viewHeight)} over {@code layout}: the lanes in
     * it only, in parallel (each asks its rank's level-of-detail index, per column or per step in view).
     *
     * @param reference the trace whose clock the x axis is (the shown rank); null: each rank at its own start
     * @param steps     align ranks by step where they share steps with the reference
     */
    public static RankLanesFrame build(RankLanes layout, TraceView reference, TimeRange range, int width, double scrollY,
                                       double viewHeight, boolean steps) {
        int w = Math.max(1, width);
        List<RankLanes.Lane> shown = layout.visible(scrollY, scrollY + viewHeight);
        List<RankLanes.Group> groups = layout.visibleGroups(scrollY, scrollY + viewHeight);
        Map<Integer, StepClock.Alignment> alignments = new HashMap<>();
        Map<Integer, Boolean> byStep = new HashMap<>();
        for (RankLanes.Group g : groups) {
            TraceView t = g.rank().store();
            if (t == null) {
                continue;
            }
            StepClock.Alignment a = steps && reference != null ? StepClocks.align(reference, t) : null;
            if (a != null) {
                alignments.put(g.index(), a);
            }
            byStep.put(g.index(), a != null);
        }
        LaneColumns[] built = new LaneColumns[shown.size()];
        IntStream ix = IntStream.range(0, shown.size());
        (shown.size() > 1 ? ix.parallel() : ix).forEach(i -> {
            RankLanes.Lane lane = shown.get(i);
            TraceView t = layout.groups().get(lane.group()).rank().store();
            StepClock.Alignment a = alignments.get(lane.group());
            long[] used = a != null ? DrawListBuilder.usedMaxByStep(t, lane.memory().id(), a, range, w)
                    : atStart(t, lane.memory().id(), reference, range, w);
            built[i] = new LaneColumns(lane, used);
        });
        return new RankLanesFrame(layout, range, w, scrollY, viewHeight, List.of(built), List.copyOf(groups), Map.copyOf(byStep));
    }

    /** {@code t}'s memory over {@code range} of the reference's clock, the two aligned at their first events. */
    private static long[] atStart(TraceView t, int memory, TraceView reference, TimeRange range, int w) {
        long t0 = reference != null && reference.eventCount() > 0 ? reference.startNs() : 0;
        long b0 = t.eventCount() > 0 ? t.startNs() : 0;
        long from = b0 + (range.fromNs() - t0);
        long to = Math.max(from + 1, b0 + (range.toNs() - t0));
        GaugeSeries g = t.gauges(memory, from, to, w);
        long[] out = new long[w];
        for (int x = 0; x < w; x++) {
            int i = Math.min(g.buckets() - 1, (int) ((long) x * g.buckets() / w));
            out[x] = i < 0 ? 0 : g.usedMax()[i];
        }
        return out;
    }

    /** The names of the ranks whose header or lanes this frame draws, in order. */
    public List<String> rankNames() {
        List<String> out = new ArrayList<>(groups.size());
        for (RankLanes.Group g : groups) {
            out.add(g.rank().name());
        }
        return out;
    }
}
