package dev.arenascope.app.ui.timeline;

import java.util.ArrayList;
import java.util.List;

import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * Where every rank of a job goes in the all-ranks timeline: one group per rank, in the job's order, a header
 * strip with the rank's name and then one lane per memory of its trace (a rank that could not be read is its
 * header alone, with the reason). Every lane is drawn on one byte axis, {@link #axisBytes()}: the largest
 * peak in use of any lane of any rank, so the worst rank's peak reaches its lane's top and every other lane
 * is scaled by the same factor, and ranks compare by height. Positions are in content pixels from the top
 * of the whole stack (the view scrolls over it); {@link #visible} finds the lanes a viewport shows by
 * binary search, so a frame of a 64-rank job costs the lanes on screen, not the job. Immutable.
 */
public final class RankLanes {
    /** Height of a rank's header strip (its name, peak and alignment), px. */
    public static final int GROUP_HEADER = 20;
    /** Height of one lane's gauge area, px. */
    public static final int LANE_GAUGE = 48;
    /** Height of a lane's label strip above its gauge, px. */
    public static final int LANE_LABEL = 14;
    /** Space under each group, px. */
    public static final int GROUP_GAP = 6;

    /**
     * One rank of the job as the timeline shows it.
     *
     * @param name   the rank's name (the rank table's)
     * @param store  its trace, or null when it could not be read
     * @param detail what the header adds after the name (its peak and step; a failed rank's reason)
     * @param worst  whether it is the job's worst rank (its header is marked)
     */
    public record Rank(String name, TraceView store, String detail, boolean worst) {}

    /**
     * A rank's group: its header at {@code top}, its lanes after it.
     *
     * @param index  the rank's place in the job
     * @param rank   the rank
     * @param top    y of the header strip
     * @param bottom y just under the group's last lane (before the gap)
     */
    public record Group(int index, Rank rank, double top, double bottom) {}

    /**
     * One memory of one rank.
     *
     * @param group    index of its rank's group
     * @param memory   the memory
     * @param top      y of the lane's label strip; the gauge follows it
     * @param peakUsed the memory's peak in use over the rank's whole run, bytes
     */
    public record Lane(int group, MemoryInfo memory, double top, long peakUsed) {
        /** y of the gauge area's top. */
        public double gaugeTop() {
            return top + LANE_LABEL;
        }

        /** y just under the lane. */
        public double bottom() {
            return gaugeTop() + LANE_GAUGE;
        }
    }

    private final List<Group> groups;
    private final List<Lane> lanes;
    private final long axisBytes;
    private final double height;

    private RankLanes(List<Group> groups, List<Lane> lanes, long axisBytes, double height) {
        this.groups = groups;
        this.lanes = lanes;
        this.axisBytes = axisBytes;
        this.height = height;
    }

    /** The layout of {@code ranks}, in that order, each memory of each readable rank a lane. Reads each store's peaks (indexed, no pass over events). */
    public static RankLanes of(List<Rank> ranks) {
        List<Group> groups = new ArrayList<>(ranks.size());
        List<Lane> lanes = new ArrayList<>();
        long axis = 0;
        double y = 0;
        for (int i = 0; i < ranks.size(); i++) {
            Rank r = ranks.get(i);
            double top = y;
            y += GROUP_HEADER;
            if (r.store() != null) {
                for (MemoryInfo m : r.store().memories()) {
                    long peak = Math.max(0, r.store().peakUsed(m.id()));
                    axis = Math.max(axis, peak);
                    lanes.add(new Lane(i, m, y, peak));
                    y += LANE_LABEL + LANE_GAUGE;
                }
            }
            groups.add(new Group(i, r, top, y));
            y += GROUP_GAP;
        }
        return new RankLanes(List.copyOf(groups), List.copyOf(lanes), Math.max(1, axis), y);
    }

    public List<Group> groups() {
        return groups;
    }

    public List<Lane> lanes() {
        return lanes;
    }

    /** Bytes at the top of every lane: the largest peak in use of any lane, at least 1. */
    public long axisBytes() {
        return axisBytes;
    }

    /** Height of the whole stack, px. */
    public double height() {
        return height;
    }

    /** The lanes that reach into {@code [y0, y1)} (content px), in order. */
    public List<Lane> visible(double y0, double y1) {
        int lo = firstEndingAfter(y0);
        List<Lane> out = new ArrayList<>();
        for (int i = lo; i < lanes.size() && lanes.get(i).top() < y1; i++) {
            out.add(lanes.get(i));
        }
        return out;
    }

    /** The groups whose header or lanes reach into {@code [y0, y1)}, in order. */
    public List<Group> visibleGroups(double y0, double y1) {
        int lo = 0;
        int hi = groups.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (groups.get(mid).bottom() <= y0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        List<Group> out = new ArrayList<>();
        for (int i = lo; i < groups.size() && groups.get(i).top() < y1; i++) {
            out.add(groups.get(i));
        }
        return out;
    }

    /** The group whose header strip is at content {@code y}, or null. */
    public Group headerAt(double y) {
        for (Group g : visibleGroups(y, y + 1)) {
            if (y >= g.top() && y < g.top() + GROUP_HEADER) {
                return g;
            }
        }
        return null;
    }

    /** The lane at content {@code y}, or null. */
    public Lane laneAt(double y) {
        for (Lane l : visible(y, y + 1)) {
            if (y >= l.top() && y < l.bottom()) {
                return l;
            }
        }
        return null;
    }

    /** The group of rank {@code name}, or null. */
    public Group group(String name) {
        return groups.stream().filter(g -> g.rank().name().equals(name)).findFirst().orElse(null);
    }

    private int firstEndingAfter(double y) {
        int lo = 0;
        int hi = lanes.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (lanes.get(mid).bottom() <= y) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
