package dev.arenascope.app.ui.timeline;

import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;

/**
 * Paints a {@link RankLanesFrame} on a canvas the size of the viewport: the time axis along the top, then
 * the groups and lanes the frame holds, shifted by the scroll. Nothing is drawn for lanes out of view (the
 * frame does not hold them). Each lane's in-use area is filled on the job's one byte axis, with a grid at
 * round byte values of that axis; the worst rank's header is marked. FX thread.
 */
final class RankLanesPainter {
    /** Height of the time axis strip at the canvas's top, px. */
    static final int AXIS = 22;
    private static final Font LABEL = Font.font("System", 11);
    private static final Font SMALL = Font.font("System", 10);

    private RankLanesPainter() {}

    /**
     * Paints {@code f} and returns how many lanes it painted (those of the frame: the viewport's).
     *
     * @param time what the x axis counts (time, or entries for an untimed trace)
     */
    static int paint(GraphicsContext g, RankLanesFrame f, Palette p, boolean dark, double canvasHeight, TimeAxis time, long cursorNs) {
        double w = f.width();
        g.setFill(p.background());
        g.fillRect(0, 0, w, canvasHeight);
        double dy = AXIS - f.scrollY();
        long axisBytes = f.layout().axisBytes();
        long[] ticks = DrawListBuilder.byteTicks(axisBytes, 3);
        int painted = 0;
        for (RankLanesFrame.LaneColumns lc : f.lanes()) {
            RankLanes.Lane lane = lc.lane();
            double top = lane.gaugeTop() + dy;
            double h = RankLanes.LANE_GAUGE;
            g.setFill(p.laneBackground());
            g.fillRect(0, top, w, h);
            g.setFill(p.grid());
            for (long t : ticks) {
                if (t > 0) {
                    TimelinePainter.hline(g, 0, w, Math.floor(top + h - h * t / (double) axisBytes) + 0.5, 1);
                }
            }
            Color fill = lane.group() >= 0 && f.layout().groups().get(lane.group()).rank().worst() ? p.highWater() : p.forward();
            g.setFill(Color.color(fill.getRed(), fill.getGreen(), fill.getBlue(), dark ? 0.75 : 0.6));
            for (int x = 0; x < f.width(); x++) {
                double s = lc.share(x, axisBytes);
                if (s > 0) {
                    double y = top + h - h * s;
                    g.fillRect(x, y, 1, top + h - y);
                }
            }
            g.setFont(SMALL);
            g.setTextBaseline(VPos.CENTER);
            g.setTextAlign(TextAlignment.LEFT);
            g.setFill(p.mutedText());
            g.fillText(lane.memory().name() + " · peak " + Bytes.format(lane.peakUsed()), 6, lane.top() + dy + RankLanes.LANE_LABEL / 2.0);
            g.setTextAlign(TextAlignment.RIGHT);
            g.fillText(DrawListBuilder.tickLabel(ticks[ticks.length - 1], axisBytes), w - 4, top + 7);
            painted++;
        }
        for (RankLanes.Group grp : f.groups()) {
            double top = grp.top() + dy;
            g.setFill(p.grid());
            g.fillRect(0, top, w, RankLanes.GROUP_HEADER - 2);
            g.setFont(LABEL);
            g.setTextBaseline(VPos.CENTER);
            g.setTextAlign(TextAlignment.LEFT);
            g.setFill(grp.rank().worst() ? p.highWater() : p.text());
            String aligned = grp.rank().store() == null ? "" : Boolean.TRUE.equals(f.byStep().get(grp.index())) ? " · aligned by step" : " · aligned at start";
            g.fillText(header(grp.rank()) + aligned, 6, top + (RankLanes.GROUP_HEADER - 2) / 2.0);
        }
        axis(g, f, p, w, canvasHeight, time);
        if (cursorNs >= 0 && f.range().contains(cursorNs)) {
            g.setFill(p.cursor());
            TimelinePainter.vline(g, Math.floor((cursorNs - f.range().fromNs()) * w / f.range().duration()) + 0.5, AXIS, canvasHeight, 1);
        }
        return painted;
    }

    /** A group's header text: the rank's name, then what the layout says of it. */
    static String header(RankLanes.Rank r) {
        return r.detail().isEmpty() ? r.name() : r.name() + " — " + r.detail();
    }

    private static void axis(GraphicsContext g, RankLanesFrame f, Palette p, double w, double h, TimeAxis time) {
        g.setFill(p.background());
        g.fillRect(0, 0, w, AXIS);
        TimeAxis.Ticks ticks = time.ticks(f.range().fromNs(), f.range().toNs(),
                Math.max(1.0, w / TimelinePainter.TICK_SPACING_PX));
        g.setFont(SMALL);
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        for (int i = 0; i < ticks.count(); i++) {
            long t = ticks.at(i);
            if (t >= f.range().toNs()) {
                break;
            }
            double x = Math.floor((t - f.range().fromNs()) * w / f.range().duration()) + 0.5;
            g.setFill(p.grid());
            TimelinePainter.vline(g, x, AXIS - 6, AXIS, 1);
            g.setFill(p.mutedText());
            g.fillText(ticks.label(t), x + 3, AXIS / 2.0);
        }
        g.setFill(p.grid());
        TimelinePainter.hline(g, 0, w, AXIS - 0.5, 1);
    }
}
