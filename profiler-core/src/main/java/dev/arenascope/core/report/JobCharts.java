package dev.arenascope.core.report;

import java.util.Locale;

import dev.arenascope.core.analysis.RankSummary;

/**
 * The small multiples of a job: one sparkline of live bytes per rank, every one on the same byte axis
 * (the job's largest peak is full height), each over its own rank's run. As inline SVG for HTML and as
 * a line of block characters for text. Stateless.
 */
final class JobCharts {
    static final int WIDTH = 280;
    static final int HEIGHT = 46;
    private static final String BLOCKS = "▁▂▃▄▅▆▇█";

    private JobCharts() {}

    /** The SVG of {@code r}'s live bytes, {@code axisMax} bytes at full height. */
    static String svg(RankSummary r, long axisMax, boolean worst) {
        long[] v = r.liveOverTime();
        StringBuilder sb = new StringBuilder(64 + v.length * 16);
        sb.append("<svg class=\"spark").append(worst ? " worst" : "").append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
                .append("\" role=\"img\" aria-label=\"live bytes of ").append(Html.esc(r.rank())).append("\">");
        if (v.length > 0 && axisMax > 0) {
            double dx = (double) WIDTH / v.length;
            StringBuilder d = new StringBuilder("M0 " + HEIGHT);
            int peakAt = 0;
            for (int i = 0; i < v.length; i++) {
                double y = HEIGHT - (double) v[i] / axisMax * (HEIGHT - 2);
                d.append(String.format(Locale.ROOT, " L%.1f %.1f L%.1f %.1f", i * dx, y, (i + 1) * dx, y));
                if (v[i] > v[peakAt]) {
                    peakAt = i;
                }
            }
            d.append(" L").append(WIDTH).append(' ').append(HEIGHT).append(" Z");
            sb.append("<path class=\"spark-area\" d=\"").append(d).append("\"/>");
            double py = HEIGHT - (double) v[peakAt] / axisMax * (HEIGHT - 2);
            sb.append(String.format(Locale.ROOT, "<circle class=\"spark-peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\"/>", (peakAt + 0.5) * dx, py));
        }
        sb.append("</svg>");
        return sb.toString();
    }

    /** {@code r}'s live bytes as {@code width} block characters, {@code axisMax} bytes a full block. */
    static String text(RankSummary r, long axisMax, int width) {
        long[] v = r.liveOverTime();
        if (v.length == 0 || axisMax <= 0) {
            return " ".repeat(width);
        }
        StringBuilder sb = new StringBuilder(width);
        for (int c = 0; c < width; c++) {
            int from = (int) ((long) c * v.length / width);
            int to = Math.max(from + 1, (int) ((long) (c + 1) * v.length / width));
            long m = 0;
            for (int i = from; i < to && i < v.length; i++) {
                m = Math.max(m, v[i]);
            }
            if (m <= 0) {
                sb.append(' ');
            } else {
                int level = (int) Math.min(BLOCKS.length() - 1, Math.max(0, Math.ceil((double) m / axisMax * BLOCKS.length()) - 1));
                sb.append(BLOCKS.charAt(level));
            }
        }
        return sb.toString();
    }
}
