package dev.arenascope.core.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.MemoryKind;

/**
 * Draws one memory's occupancy over the session as an inline SVG: an arena's forward end from the
 * bottom and its backward end from the top (the two pointers approaching), a pool's reserved and
 * in-use bytes, a plan arena's live bytes against its height; the peak marked, and optionally a
 * baseline's in-use line: aligned at the start on this run's time scale (the window's rule: a longer
 * baseline is cut at this run's end, a shorter one ends early), or stretched over the same width when
 * asked. Pure markup, no script. Stateless.
 */
final class OccupancyChart {
    /** viewBox width of a chart in a two-column grid. */
    static final int WIDTH = 700;
    /** viewBox width of a chart that has a row to itself. */
    static final int WIDE = 1240;
    static final int HEIGHT = 220;
    private static final int LEFT = 70;
    private static final int RIGHT = 14;
    private static final int TOP = 18;
    private static final int BOTTOM = 28;
    private static final int PH = HEIGHT - TOP - BOTTOM;

    private OccupancyChart() {}

    /** A legend entry: CSS class of the swatch and its text. */
    record Legend(String swatch, String text) {}

    /** The legend entries the chart of {@code m} uses. */
    static List<Legend> legend(MemoryAnalysis m, boolean withBaseline) {
        return legend(m, withBaseline, false);
    }

    /** The legend entries, saying how the baseline is drawn. */
    static List<Legend> legend(MemoryAnalysis m, boolean withBaseline, boolean stretched) {
        List<Legend> l = new ArrayList<>();
        switch (m.kind()) {
            case ARENA -> {
                l.add(new Legend("sw-fwd", "forward end (from the bottom)"));
                l.add(new Legend("sw-bwd", "backward end (from the top)"));
            }
            case POOL, SEGMENTED -> {
                l.add(new Legend("sw-res", "reserved"));
                l.add(new Legend("sw-use", "in use"));
            }
            default -> l.add(new Legend("sw-plan", "in use"));
        }
        l.add(new Legend("sw-peak", "peak in use"));
        if (withBaseline) {
            l.add(new Legend("sw-base", stretched ? "baseline in use (stretched to this run's length)" : "baseline in use (aligned at the start)"));
        }
        return l;
    }

    /**
     * The SVG markup for {@code m}.
     *
     * @param baseline the baseline's same memory, or null
     */
    static String svg(MemoryAnalysis m, MemoryAnalysis baseline) {
        return svg(m, baseline, WIDTH);
    }

    /** The SVG markup for {@code m}, {@code width} viewBox units wide (the height stays {@link #HEIGHT}). */
    static String svg(MemoryAnalysis m, MemoryAnalysis baseline, int width) {
        return svg(m, baseline, width, false);
    }

    /** As {@link #svg(MemoryAnalysis, MemoryAnalysis, int)}, the baseline stretched to this run's length when asked. */
    static String svg(MemoryAnalysis m, MemoryAnalysis baseline, int width, boolean stretchBaseline) {
        return svg(m, baseline, width, stretchBaseline, TimeAxis.TIME);
    }

    /** As {@link #svg(MemoryAnalysis, MemoryAnalysis, int, boolean)}, its time axis ticked as {@code time} says (entries for an untimed trace). */
    static String svg(MemoryAnalysis m, MemoryAnalysis baseline, int width, boolean stretchBaseline, TimeAxis time) {
        final int PW = width - LEFT - RIGHT;
        MemoryAnalysis.Occupancy o = m.occupancy();
        int n = o.buckets();
        long peakAux = 0;
        for (long v : o.auxMax()) {
            peakAux = Math.max(peakAux, v);
        }
        long top = Math.max(Math.max(m.footprintBytes(), m.peakUsedBytes()), peakAux);
        if (baseline != null) {
            top = Math.max(top, baseline.peakUsedBytes());
        }
        boolean arena = m.kind() == MemoryKind.ARENA;
        long capacity = m.capacityBytes();
        boolean capacityOnScale = capacity > 0 && capacity <= top * 4;
        long yMax;
        if (capacityOnScale) {
            yMax = arena ? capacity : Math.max(capacity, top);
        } else {
            yMax = niceCeiling(Math.max(1, (long) (top * 1.08)));
        }
        StringBuilder sb = new StringBuilder(8192);
        sb.append("<svg class=\"chart\" viewBox=\"0 0 ").append(width).append(' ').append(HEIGHT)
                .append("\" role=\"img\" aria-label=\"").append(Html.esc("occupancy of " + m.name() + " over the session")).append("\">");
        // grid and y labels
        long step = niceStep(yMax, 4);
        for (long v = 0; v <= yMax; v += step) {
            double y = y(v, yMax);
            sb.append("<line class=\"grid\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + PW)
                    .append("\" y1=\"").append(f(y)).append("\" y2=\"").append(f(y)).append("\"/>");
            sb.append("<text class=\"ylab\" x=\"").append(LEFT - 6).append("\" y=\"").append(f(y + 3.5)).append("\">")
                    .append(Html.esc(byteLabel(v))).append("</text>");
            if (step == 0) {
                break;
            }
        }
        long span = Math.max(1, o.toNs() - o.fromNs() + 1);
        // the window's ticks (TimeAxis.ticks): round instants of the session's clock in one unit, at most six
        TimeAxis.Ticks ticks = time.ticks(o.fromNs(), o.toNs() + 1, 6);
        for (int i = 0; i < ticks.count(); i++) {
            long t = ticks.at(i);
            double x = LEFT + (double) (t - o.fromNs()) / span * PW;
            sb.append("<line class=\"tick\" x1=\"").append(f(x)).append("\" x2=\"").append(f(x)).append("\" y1=\"")
                    .append(TOP + PH).append("\" y2=\"").append(TOP + PH + 4).append("\"/>");
            sb.append("<text class=\"xlab\" x=\"").append(f(x)).append("\" y=\"").append(TOP + PH + 18).append("\">")
                    .append(Html.esc(ticks.label(t))).append("</text>");
        }
        if (time == TimeAxis.ENTRIES) {
            // an untimed trace's axis counts entries, and says so, as the window's does
            sb.append("<text class=\"xtitle\" x=\"").append(LEFT + PW).append("\" y=\"").append(TOP - 6).append("\">")
                    .append(Html.esc(time.title())).append("</text>");
        }
        // series
        if (arena) {
            sb.append(area(o.forwardMax(), yMax, false, "a-fwd", PW));
            sb.append(area(o.auxMax(), yMax, true, "a-bwd", PW));
        } else if (m.kind() == MemoryKind.POOL || m.kind() == MemoryKind.SEGMENTED) {
            sb.append(area(o.auxMax(), yMax, false, "a-res", PW));
            sb.append(area(o.usedMax(), yMax, false, "a-use", PW));
        } else {
            sb.append(area(o.usedMax(), yMax, false, "a-plan", PW));
        }
        if (baseline != null) {
            MemoryAnalysis.Occupancy bo = baseline.occupancy();
            double widthShare = stretchBaseline ? 1.0 : (double) Math.max(1, bo.toNs() - bo.fromNs() + 1) / span;
            sb.append(line(bo.usedMax(), yMax, "l-base", PW, widthShare));
        }
        // capacity or height line
        if (capacityOnScale) {
            double y = y(capacity, yMax);
            sb.append("<line class=\"cap\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + PW).append("\" y1=\"")
                    .append(f(y)).append("\" y2=\"").append(f(y)).append("\"/>");
            sb.append("<text class=\"caplab\" x=\"").append(LEFT + PW).append("\" y=\"").append(f(y - 4)).append("\">capacity ")
                    .append(Html.esc(Bytes.format(capacity))).append("</text>");
        }
        // peak marker
        if (m.peakUsedAtNs() >= 0 && m.peakUsedBytes() > 0) {
            double x = LEFT + (double) (m.peakUsedAtNs() - o.fromNs()) / span * PW;
            long shown = arena ? peakForwardAt(m) : m.peakUsedBytes();
            double y = y(Math.min(shown, yMax), yMax);
            sb.append("<line class=\"peak\" x1=\"").append(f(x)).append("\" x2=\"").append(f(x)).append("\" y1=\"").append(TOP + PH)
                    .append("\" y2=\"").append(f(y)).append("\"/>");
            sb.append("<circle class=\"peakdot\" cx=\"").append(f(x)).append("\" cy=\"").append(f(y)).append("\" r=\"3.5\"/>");
            boolean right = x < LEFT + PW * 0.7;
            double ly = Math.max(TOP + 10, y - 6);
            sb.append("<text class=\"peaklab\" x=\"").append(f(right ? x + 7 : x - 7)).append("\" y=\"").append(f(ly))
                    .append("\" text-anchor=\"").append(right ? "start" : "end").append("\">peak ")
                    .append(Html.esc(Bytes.format(m.peakUsedBytes()))).append("</text>");
        }
        sb.append("<rect class=\"frame\" x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(PW)
                .append("\" height=\"").append(PH).append("\"/>");
        sb.append("</svg>");
        return sb.toString();
    }

    /** For an arena drawn against its capacity, the peak marker sits on the forward end at the peak. */
    private static long peakForwardAt(MemoryAnalysis m) {
        MemoryAnalysis.Occupancy o = m.occupancy();
        long span = Math.max(1, o.toNs() - o.fromNs() + 1);
        int i = (int) Math.min(o.buckets() - 1, Math.max(0, (long) ((double) (m.peakUsedAtNs() - o.fromNs()) / span * o.buckets())));
        return o.forwardMax()[i];
    }

    private static double y(double v, long yMax) {
        return TOP + PH - v / yMax * PH;
    }

    /** A step area from the bottom (or hanging from the top) over the plot. */
    private static String area(long[] v, long yMax, boolean fromTop, String cls, int PW) {
        int n = v.length;
        double base = fromTop ? TOP : TOP + PH;
        StringBuilder d = new StringBuilder(n * 16);
        d.append('M').append(LEFT).append(',').append(f(base));
        double prev = Double.NaN;
        for (int i = 0; i < n; i++) {
            double val = Math.min(v[i], yMax);
            double yy = fromTop ? TOP + val / yMax * PH : y(val, yMax);
            double x0 = LEFT + (double) i / n * PW;
            if (yy != prev) {
                d.append('L').append(f(x0)).append(',').append(f(prev == prev ? prev : base));
                d.append('L').append(f(x0)).append(',').append(f(yy));
                prev = yy;
            }
        }
        d.append('L').append(LEFT + PW).append(',').append(f(prev == prev ? prev : base));
        d.append('L').append(LEFT + PW).append(',').append(f(base)).append('Z');
        return "<path class=\"" + cls + "\" d=\"" + d + "\"/>";
    }

    /**
     * A step line over {@code widthShare} of the plot's width from its left edge (1: the whole width),
     * cut at the right edge.
     */
    private static String line(long[] v, long yMax, String cls, int PW, double widthShare) {
        int n = v.length;
        StringBuilder d = new StringBuilder(n * 16);
        double prev = Double.NaN;
        double end = LEFT + Math.min(1.0, widthShare) * PW;
        for (int i = 0; i < n; i++) {
            double yy = y(Math.min(v[i], yMax), yMax);
            double x0 = LEFT + (double) i / n * PW * widthShare;
            if (x0 >= LEFT + PW) {
                break;
            }
            if (i == 0) {
                d.append('M').append(f(x0)).append(',').append(f(yy));
                prev = yy;
            } else if (yy != prev) {
                d.append('L').append(f(x0)).append(',').append(f(prev));
                d.append('L').append(f(x0)).append(',').append(f(yy));
                prev = yy;
            }
        }
        d.append('L').append(f(end)).append(',').append(f(prev));
        return "<path class=\"" + cls + "\" d=\"" + d + "\"/>";
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A round step so that {@code max / step} is about {@code ticks}: 1, 2, 2.5 or 5 times a power of ten of a binary unit. */
    static long niceStep(long max, int ticks) {
        if (max <= 0) {
            return 1;
        }
        double raw = (double) max / ticks;
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double unit = 1;
        // for byte scales prefer steps in binary units when the value is at least 1 KiB
        if (raw >= 1024) {
            unit = Math.pow(1024, Math.floor(Math.log(raw) / Math.log(1024)));
            double r = raw / unit;
            mag = Math.pow(10, Math.floor(Math.log10(r)));
            double s = r / mag;
            double nice = s <= 1 ? 1 : s <= 2 ? 2 : s <= 2.5 ? 2.5 : s <= 5 ? 5 : 10;
            return Math.max(1, (long) (nice * mag * unit));
        }
        double s = raw / mag;
        double nice = s <= 1 ? 1 : s <= 2 ? 2 : s <= 5 ? 5 : 10;
        return Math.max(1, (long) (nice * mag));
    }

    /** The smallest multiple of a nice step at or above {@code v}. */
    static long niceCeiling(long v) {
        long step = niceStep(v, 4);
        return (v + step - 1) / step * step;
    }

    /** A compact byte label for an axis: {@code 0}, {@code 512 MiB}, {@code 2.5 GiB}. */
    static String byteLabel(long v) {
        if (v == 0) {
            return "0";
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int u = 0;
        double x = v;
        while (x >= 1024 && u < units.length - 1) {
            x /= 1024;
            u++;
        }
        String num = x == Math.rint(x) ? Long.toString((long) x) : String.format(Locale.ROOT, x >= 10 ? "%.1f" : "%.2f", x).replaceAll("0+$", "");
        return num + " " + units[u];
    }
}
