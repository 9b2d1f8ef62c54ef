package dev.arenascope.app.ui.timeline;

import java.util.List;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;

/**
 * One timeline frame, ready to paint: per lane the gauges folded to one column per pixel (exact byte
 * figures kept for tooltips), the scope bands wider than the fold width, markers folded the same way,
 * and highlighted intervals. Built off the FX thread by {@link DrawListBuilder}, painted in one pass by
 * {@link TimelinePainter}. Immutable once built.
 *
 * @param range    the time range drawn
 * @param width    canvas width in px (one column per px)
 * @param height   total height in px
 * @param lanes    one per memory
 * @param axisHeight height of the time axis at the top
 * @param events   events in the whole trace when built
 * @param time     what the time axis counts: time, or entries where the trace has no timestamps
 */
public record DrawList(TimeRange range, int width, int height, List<Lane> lanes, int axisHeight, long events, TimeAxis time) {

    /** Time at pixel column {@code x}. */
    public long timeAt(double x) {
        return range.fromNs() + Math.round(x / width * range.duration());
    }

    /** Pixel column of {@code ns} (may be outside the canvas). */
    public double xOf(long ns) {
        return (ns - range.fromNs()) * (double) width / range.duration();
    }

    /** The lane at {@code y}, or null. */
    public Lane laneAt(double y) {
        for (Lane l : lanes) {
            if (y >= l.top() && y < l.top() + l.height()) {
                return l;
            }
        }
        return null;
    }

    /**
     * A memory's lane.
     *
     * @param memory     the memory drawn
     * @param top        y of the lane's top edge (its header strip with the label comes first)
     * @param gaugeHeight height of the occupancy area
     * @param height     header strip, gauge area and scope band rows
     * @param scaleBytes bytes at the top of the gauge area (in use, not reserved, for pools and caching
     *                   allocators: reserved is drawn as a line and may run off the top)
     * @param peakUsed   session high-water of {@code used} (all bytes in use; an arena's two ends together)
     * @param peakAux    session high-water of {@code aux}
     * @param peakForward session high-water of the forward end ({@link dev.arenascope.core.trace.MemoryKind#forward}),
     *                   -1 while the digest has not read the memory's events yet
     * @param usedMin    per column, least bytes in use (-1 where the column is before the first event)
     * @param usedMax    per column, most bytes in use
     * @param auxMax     per column, most of the second gauge (backward end or reserved)
     * @param auxMin     per column, least of the second gauge
     * @param forwardLast per column, the forward end at the column's end (exact)
     * @param forwardMax per column, an upper bound of the forward end in the column
     *                   ({@code usedMax - auxMin}; exact where the column holds at most one event)
     * @param count      per column, events folded into it
     * @param bands      scope bands, by depth
     * @param bandRows   scope rows drawn beneath
     * @param markers    folded markers
     * @param highlights x spans (pairs) of the selected scope's executions, merged
     * @param baselineUsed per column, the baseline's most in use, or null without a baseline
     * @param stripesOn  the lane is switched to allocation stripes
     * @param stripes    its stripes, null when drawn as an area (also while a switched lane's allocations
     *                   are being indexed)
     */
    public record Lane(MemoryInfo memory, double top, double gaugeHeight, double height, long scaleBytes,
                       long peakUsed, long peakAux, long peakForward, long[] usedMin, long[] usedMax, long[] auxMax,
                       long[] auxMin, long[] forwardLast, long[] forwardMax, long[] count,
                       List<Band> bands, int bandRows, List<MarkerMark> markers, double[] highlights,
                       long[] baselineUsed, boolean stripesOn, StripeLayer stripes) {

        /** y of the gauge area's top: below the lane's header strip, which holds its label. */
        public double gaugeTop() {
            return top + DrawListBuilder.LANE_HEADER;
        }

        /** y where the scope band rows start, beneath the gauge area. */
        public double bandsTop() {
            return gaugeTop() + gaugeHeight;
        }

        /**
         * The first column where in use reaches the session's peak ({@link #peakUsed}), or -1 when the
         * peak is not in view: where the timeline marks it.
         */
        public int peakColumn() {
            if (peakUsed <= 0) {
                return -1;
            }
            for (int x = 0; x < usedMax.length; x++) {
                if (usedMin[x] >= 0 && usedMax[x] >= peakUsed) {
                    return x;
                }
            }
            return -1;
        }

        /** y of {@code bytes} measured up from the gauge area's bottom. */
        public double yUp(long bytes) {
            return gaugeTop() + gaugeHeight - gaugeHeight * Math.min(1.0, bytes / (double) Math.max(1, scaleBytes));
        }

        /** y of {@code bytes} measured down from the gauge area's top. */
        public double yDown(long bytes) {
            return gaugeTop() + gaugeHeight * Math.min(1.0, bytes / (double) Math.max(1, scaleBytes));
        }
    }

    /**
     * A scope execution wide enough to draw (or a run of narrow ones folded together, {@code folded > 1}).
     *
     * @param x0     left px
     * @param x1     right px
     * @param depth  band row
     * @param nameId scope name's string id (colour)
     * @param name   scope name
     * @param startNs start
     * @param endNs  end
     * @param folded executions this rectangle stands for
     */
    public record Band(double x0, double x1, int depth, int nameId, String name, long startNs, long endNs, int folded) {}

    /**
     * A marker, or several within the fold width.
     *
     * @param x     px
     * @param kind  the first marker's kind
     * @param count markers folded here
     * @param text  the first marker's description
     */
    public record MarkerMark(double x, EventKind kind, int count, String text) {}
}
