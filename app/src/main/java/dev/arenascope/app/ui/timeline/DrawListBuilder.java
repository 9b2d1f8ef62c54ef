package dev.arenascope.app.ui.timeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

import dev.arenascope.app.ui.model.BaselinePairing;
import dev.arenascope.app.ui.model.Marker;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.analysis.StepClock;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * Builds a {@link DrawList} from a trace's level-of-detail queries only: one gauge bucket per pixel
 * column ({@link TraceView#gauges}), scope executions at least {@link #FOLD_PX} pixels wide
 * ({@link TraceView#scopes}), markers and highlights found by binary search in the digest and folded to
 * the same width. Its cost depends on the canvas size and what is visible, not on the number of events.
 * Pure; safe to call on any thread while the trace grows.
 */
public final class DrawListBuilder {
    /** Anything narrower than this many pixels is folded. */
    public static final double FOLD_PX = 3.0;
    public static final int AXIS_HEIGHT = 22;
    public static final int BAND_ROW = 13;
    public static final int MAX_BAND_ROWS = 6;
    public static final int MIN_GAUGE = 64;
    /** The tallest a lane's gauge grows: high enough that one lane fills a tall window (400 left a blank band under it). */
    public static final int MAX_GAUGE = 4000;
    private static final int LANE_GAP = 6;
    /** Height of a lane's header strip, where its label goes so that it never covers the data. */
    public static final int LANE_HEADER = 17;

    /**
     * What to draw.
     *
     * @param trace      the session
     * @param range      visible time range
     * @param width      canvas width px (at least 1)
     * @param height     viewport height px; lanes share it, but never below {@link #MIN_GAUGE} each
     * @param digest     markers and scope executions (may be {@link TraceAggregate.Snapshot#EMPTY})
     * @param highlight  the selected scope, or null
     * @param baseline   a trace to compare with, or null
     * @param pairing    which baseline memory each memory is compared with
     * @param stretch    false: the baseline is aligned at its start with the trace's start (the report's
     *                   rule too); true: it is also stretched to the trace's length
     * @param stripes    the lanes drawn as allocation stripes, and how
     * @param byStep     the baseline is aligned by step where both traces have {@code ProfilerStep#N} markers
     *                   (each common step begins at the same x on both; {@code stretch} is then not used),
     *                   else by {@code stretch}'s rule
     */
    public record Frame(TraceView trace, TimeRange range, int width, int height, TraceAggregate.Snapshot digest,
                        ScopeAnalysis highlight, TraceView baseline, BaselinePairing pairing, boolean stretch,
                        StripeOptions stripes, boolean byStep) {

        /** A frame whose baseline is aligned in time ({@code stretch}'s rule), not by step. */
        public Frame(TraceView trace, TimeRange range, int width, int height, TraceAggregate.Snapshot digest,
                     ScopeAnalysis highlight, TraceView baseline, BaselinePairing pairing, boolean stretch, StripeOptions stripes) {
            this(trace, range, width, height, digest, highlight, baseline, pairing, stretch, stripes, false);
        }

        /** A frame without allocation stripes. */
        public Frame(TraceView trace, TimeRange range, int width, int height, TraceAggregate.Snapshot digest,
                     ScopeAnalysis highlight, TraceView baseline, BaselinePairing pairing, boolean stretch) {
            this(trace, range, width, height, digest, highlight, baseline, pairing, stretch, StripeOptions.NONE);
        }

        /** A frame comparing memories paired by {@link BaselinePairing#match}, aligned at start. */
        public Frame(TraceView trace, TimeRange range, int width, int height, TraceAggregate.Snapshot digest,
                     ScopeAnalysis highlight, TraceView baseline) {
            this(trace, range, width, height, digest, highlight, baseline,
                    baseline == null ? BaselinePairing.NONE : BaselinePairing.match(trace.memories(), baseline.memories()), false);
        }
    }

    /** The baseline's time for the trace's {@code ns}: aligned at both starts, optionally stretched to the trace's length. */
    static long baselineTime(TraceView trace, TraceView baseline, boolean stretch, long ns) {
        long t0 = trace.eventCount() > 0 ? trace.startNs() : 0;
        long b0 = baseline.eventCount() > 0 ? baseline.startNs() : 0;
        if (!stretch) {
            return b0 + (ns - t0);
        }
        double span = Math.max(1, trace.endNs() - t0);
        double bspan = Math.max(1, baseline.endNs() - b0);
        return b0 + Math.round((ns - t0) * (bspan / span));
    }

    private DrawListBuilder() {}

    /**
     * The baseline memory {@code bm}'s most in use per column, aligned by step: the columns are cut where a
     * step of the trace begins, and each run of columns asks the baseline for the same part of the same step
     * in its own time ({@link StepClock.Alignment#map}), so a step begins at the same x on both. As many
     * gauge queries as steps begin in view, at most one a column.
     */
    private static long[] baselineByStep(Frame f, int bm, StepClock.Alignment steps, int w) {
        return usedMaxByStep(f.baseline(), bm, steps, f.range(), w);
    }

    /**
     * {@code other}'s memory {@code memory}: its most in use per column of {@code r} (a time range of the trace
     * {@code steps} maps from) aligned by step, as {@link #baselineByStep} draws a compared rank and the
     * all-ranks timeline every rank: the columns are cut where a step begins, each run of columns asks
     * {@code other} for the same part of the same step in its own time. As many gauge queries as steps begin
     * in view, at most one a column.
     */
    static long[] usedMaxByStep(TraceView other, int memory, StepClock.Alignment steps, TimeRange r, int w) {
        double nsPerPx = r.duration() / (double) w;
        long[] out = new long[w];
        int x = 0;
        while (x < w) {
            long t0 = r.fromNs() + Math.round(x * nsPerPx);
            long bend = steps.nextBoundaryAfter(t0);
            int x1 = bend == Long.MAX_VALUE ? w : (int) Math.min(w, Math.max(x + 1, Math.ceil((bend - r.fromNs()) / nsPerPx)));
            long t1 = r.fromNs() + Math.round(x1 * nsPerPx);
            long b0 = steps.map(t0);
            long b1 = Math.max(b0 + 1, steps.map(t1));
            GaugeSeries bg = other.gauges(memory, b0, b1, x1 - x);
            for (int c = x; c < x1; c++) {
                int i = Math.min(bg.buckets() - 1, (int) ((long) (c - x) * bg.buckets() / (x1 - x)));
                out[c] = i < 0 ? 0 : bg.usedMax()[i];
            }
            x = x1;
        }
        return out;
    }

    public static DrawList build(Frame f) {
        int w = Math.max(1, f.width());
        TimeRange r = f.range();
        double nsPerPx = r.duration() / (double) w;
        long foldNs = (long) Math.ceil(nsPerPx * FOLD_PX);
        List<MemoryInfo> memories = f.trace().memories();
        int[] rows = new int[memories.size()];
        int totalRows = 0;
        for (int i = 0; i < memories.size(); i++) {
            int maxDepth = -1;
            for (ScopeAnalysis s : f.digest().scopes()) {
                if (s.memory() == memories.get(i).id()) {
                    maxDepth = Math.max(maxDepth, s.depth());
                }
            }
            rows[i] = Math.min(MAX_BAND_ROWS, maxDepth + 1);
            totalRows += rows[i];
        }
        int n = Math.max(1, memories.size());
        double free = f.height() - AXIS_HEIGHT - totalRows * BAND_ROW - n * (LANE_GAP + LANE_HEADER);
        double gauge = Math.max(MIN_GAUGE, Math.min(MAX_GAUGE, free / n));
        // lanes are independent: build them in parallel (Tracy builds its draw lists the same way)
        double[] tops = new double[memories.size()];
        double y = AXIS_HEIGHT;
        for (int i = 0; i < memories.size(); i++) {
            tops[i] = y;
            y += LANE_HEADER + gauge + rows[i] * BAND_ROW + LANE_GAP;
        }
        DrawList.Lane[] built = new DrawList.Lane[memories.size()];
        IntStream range = IntStream.range(0, memories.size());
        (memories.size() > 1 ? range.parallel() : range)
                .forEach(i -> built[i] = lane(f, memories.get(i), tops[i], gauge, rows[i], w, foldNs));
        List<DrawList.Lane> lanes = Arrays.asList(built);
        return new DrawList(r, w, (int) Math.ceil(Math.max(y, f.height())), Collections.unmodifiableList(lanes),
                AXIS_HEIGHT, f.trace().eventCount(), TimeAxis.of(f.trace().session() == null ? null : f.trace().session().attributes()));
    }

    private static DrawList.Lane lane(Frame f, MemoryInfo m, double top, double gauge, int bandRows, int w, long foldNs) {
        TimeRange r = f.range();
        TraceView t = f.trace();
        GaugeSeries g = t.gauges(m.id(), r.fromNs(), r.toNs(), w);
        int b = Math.min(w, g.buckets());
        long[] usedMin = new long[w];
        long[] usedMax = new long[w];
        long[] auxMax = new long[w];
        long[] auxMin = new long[w];
        long[] forwardLast = new long[w];
        long[] forwardMax = new long[w];
        long[] count = new long[w];
        MemoryKind kind = m.kind();
        for (int x = 0; x < w; x++) {
            int i = b == w ? x : (int) ((long) x * b / w);
            if (i >= b) {
                usedMin[x] = -1;
                continue;
            }
            usedMin[x] = g.usedMin()[i];
            usedMax[x] = g.usedMax()[i];
            auxMax[x] = g.auxMax()[i];
            auxMin[x] = g.auxMin()[i];
            forwardLast[x] = kind.forward(g.usedLast()[i], g.auxLast()[i]);
            forwardMax[x] = Math.max(forwardLast[x], kind.forward(g.usedMax()[i], g.auxMin()[i]));
            count[x] = g.count()[i];
        }
        long peakUsed = t.peakUsed(m.id());
        long peakAux = t.peakAux(m.id());
        long peakForward = f.digest().peakForward(m.id());
        long scale = scale(m, peakUsed, peakAux, peakForward);
        if (!m.kind().twoPointer()) {
            // scaled to what the view shows (in use and reserved): zoomed in time, 65-91 MiB of
            // allocations fill the lane instead of lying in a strip under the session's 1.4 GiB
            long shownUsed = 0;
            long shownAux = 0;
            for (int x = 0; x < w; x++) {
                if (usedMin[x] >= 0) {
                    shownUsed = Math.max(shownUsed, usedMax[x]);
                    shownAux = Math.max(shownAux, auxMax[x]);
                }
            }
            if (shownUsed > 0 || shownAux > 0) {
                scale = scale(m, shownUsed, shownAux, peakForward);
            }
        }

        List<DrawList.Band> bands = new ArrayList<>();
        if (bandRows > 0) {
            for (ScopeAnalysis sc : f.digest().scopes()) {
                if (sc.memory() == m.id() && sc.depth() < bandRows) {
                    bands(sc, r, w, bands);
                }
            }
        }

        List<DrawList.MarkerMark> marks = markers(f.digest().markers(), m.id(), r, w);
        double[] highlights = highlights(f.highlight(), m.id(), r, w);
        long[] baseline = null;
        int bm = f.baseline() == null ? -1 : f.pairing().baselineOf(m.id());
        if (bm >= 0 && bm < f.baseline().memories().size()) {
            StepClock.Alignment steps = f.byStep() ? StepClocks.align(t, f.baseline()) : null;
            baseline = steps != null ? baselineByStep(f, bm, steps, w) : new long[w];
            if (steps == null) {
                long b0 = baselineTime(t, f.baseline(), f.stretch(), r.fromNs());
                long b1 = Math.max(b0 + 1, baselineTime(t, f.baseline(), f.stretch(), r.toNs()));
                GaugeSeries bg = f.baseline().gauges(bm, b0, b1, w);
                for (int x = 0; x < w; x++) {
                    int i = Math.min(bg.buckets() - 1, (int) ((long) x * bg.buckets() / w));
                    baseline[x] = i < 0 ? 0 : bg.usedMax()[i];
                }
            }
            long shownBaseline = 0;
            for (long v : baseline) {
                shownBaseline = Math.max(shownBaseline, v);
            }
            scale = Math.max(scale, shownBaseline + shownBaseline / 8);
        }
        boolean stripesOn = f.stripes().lanes().contains(m.id());
        StripeLayer stripes = null;
        var analysis = stripesOn ? f.stripes().analyses().get(m.id()) : null;
        if (analysis != null) {
            long[] usedLast = new long[w];
            long[] instants = new long[w];
            for (int x = 0; x < w; x++) {
                int i = b == w ? x : (int) ((long) x * b / w);
                usedLast[x] = i >= b || usedMin[x] < 0 ? -1 : g.usedLast()[i];
                // the bucket's last nanosecond: where usedLast is read
                instants[x] = g.fromNs() + (Math.min(i, Math.max(0, b - 1)) + 1) * g.bucketNs() - 1;
                if (x > 0) {
                    instants[x] = Math.max(instants[x], instants[x - 1]);
                }
            }
            stripes = StripeBuilder.build(analysis, t, r, instants, w, (int) Math.round(gauge), scale, usedLast, usedMax, f.stripes());
        }
        return new DrawList.Lane(m, top, gauge, LANE_HEADER + gauge + bandRows * BAND_ROW, scale, peakUsed, peakAux, peakForward,
                usedMin, usedMax, auxMax, auxMin, forwardLast, forwardMax, count, bands, bandRows, marks, highlights, baseline,
                stripesOn, stripes);
    }

    /**
     * The executions of one scope path inside {@code r}, Tracy-style: each execution at least
     * {@link #FOLD_PX} wide becomes a band; a run of narrower ones becomes one folded band with their
     * count, found by binary search so the cost is per pixel, not per execution.
     */
    static void bands(ScopeAnalysis sc, TimeRange r, int w, List<DrawList.Band> out) {
        double pxPerNs = w / (double) r.duration();
        int n = sc.executionTimes().count();
        int i = sc.executionTimes().firstEndingAfter(r.fromNs());
        while (i < n) {
            long a = sc.executionTimes().start(i);
            if (a >= r.toNs()) {
                break;
            }
            long b = sc.executionTimes().end(i);
            double x0 = (a - r.fromNs()) * pxPerNs;
            double x1 = (b - r.fromNs()) * pxPerNs;
            if (x1 - x0 >= FOLD_PX) {
                out.add(new DrawList.Band(Math.max(-1, x0), Math.min(w + 1, x1), sc.depth(), 0, sc.name(), a, b, 1));
                i++;
                continue;
            }
            long foldEnd = r.fromNs() + (long) Math.ceil((Math.max(x0, 0) + FOLD_PX) / pxPerNs);
            int j = Math.max(i + 1, sc.executionTimes().firstEndingAfter(foldEnd));
            j = Math.min(j, n);
            long lastEnd = sc.executionTimes().end(j - 1);
            while (j < n && sc.executionTimes().start(j) < r.toNs() && (sc.executionTimes().end(j) - sc.executionTimes().start(j)) * pxPerNs < FOLD_PX
                    && (sc.executionTimes().start(j) - lastEnd) * pxPerNs < 1) {
                // keep folding while the next narrow execution starts within a pixel of the run
                int k = Math.max(j + 1, sc.executionTimes().firstEndingAfter(sc.executionTimes().end(j) + (long) Math.ceil(FOLD_PX / pxPerNs)));
                k = Math.min(k, n);
                lastEnd = sc.executionTimes().end(k - 1);
                j = k;
            }
            double fx1 = Math.max(x0 + FOLD_PX, (lastEnd - r.fromNs()) * pxPerNs);
            out.add(new DrawList.Band(Math.max(-1, x0), Math.min(w + 1, fx1), sc.depth(), 0, sc.name(), a, lastEnd, j - i));
            i = j;
        }
    }

    /**
     * Bytes at the lane's top: the capacity when the memory comes near it, else the high-water with
     * headroom. An arena is drawn from both ends, whose high-waters need not fall together: it needs
     * room for the forward high-water plus the backward one ({@code peakForward} -1 when not known yet:
     * then the used high-water, which counts both ends, plus the backward one bounds it). A pool or a
     * caching allocator draws its reserved bytes as a line over the in-use area: the axis reaches the
     * larger of the two, so the line is never clipped at the lane's top ("reserved 1.71 MiB" on a
     * 128 KiB axis), unless the reserve is over {@value #RESERVE_CLIP_RATIO} times what is in use (a
     * generated snapshot's one 8 TiB segment): in use would be a strip of under 2% of the lane, so the
     * axis stays on in use and the lane's label gives the reserve.
     */
    static long scale(MemoryInfo m, long peakUsed, long peakAux, long peakForward) {
        long level = m.kind().twoPointer() ? (peakForward >= 0 ? Math.max(peakUsed, peakForward + peakAux) : peakUsed + peakAux)
                : peakUsed <= 0 ? peakAux : peakAux / RESERVE_CLIP_RATIO > peakUsed ? peakUsed : Math.max(peakUsed, peakAux);
        long cap = m.capacity();
        if (cap > 0 && level >= cap / 8) {
            return cap;
        }
        return Math.max(1, level + level / 8);
    }

    /** How many times in use a pool's or caching allocator's reserve may be and still set the lane's scale. */
    static final long RESERVE_CLIP_RATIO = 64;

    /** Binary units, {@code 1024^i} bytes each. */
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    /** Steps of the byte axis in its unit: round numbers, a quarter and a half among them. */
    private static final double[] STEPS = {0.1, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500};

    /** The unit a lane scaled to {@code scaleBytes} speaks in: the largest binary unit not above the scale. */
    static int unitOf(long scaleBytes) {
        int u = 0;
        while (u < UNITS.length - 1 && scaleBytes >= 1L << (10 * (u + 1))) {
            u++;
        }
        return u;
    }

    /**
     * The byte axis of a lane scaled to {@code scaleBytes}: tick values 0, step, 2·step, … up to the
     * scale, the step a round number of the axis's one unit ({@link #unitOf}: 0.5 GiB, 256 MiB, 2 KiB,
     * never 512 MiB steps labelled 4608 MiB, 5632 MiB), giving at most {@code maxTicks} ticks above 0.
     */
    public static long[] byteTicks(long scaleBytes, int maxTicks) {
        if (scaleBytes <= 0 || maxTicks <= 0) {
            return new long[] {0};
        }
        int u = unitOf(scaleBytes);
        double unit = Math.pow(1024, u);
        long step = -1;
        for (double c : STEPS) {
            long s = Math.max(1, Math.round(c * unit));
            if (u == 0 && c < 1) {
                continue; // no fractions of a byte
            }
            if (scaleBytes / s <= maxTicks) {
                step = s;
                break;
            }
        }
        if (step < 0) {
            step = Math.max(1, Math.round(1000 * unit));
            while (scaleBytes / step > maxTicks && step < Long.MAX_VALUE / 2) {
                step *= 2;
            }
        }
        int n = (int) (scaleBytes / step);
        long[] out = new long[n + 1];
        for (int i = 0; i <= n; i++) {
            out[i] = i * step;
        }
        return out;
    }

    /**
     * A tick's label in the unit of its axis (a lane scaled to {@code scaleBytes}): {@code 4.5 GiB},
     * {@code 5 GiB}, {@code 0.25 MiB} on one axis, never units mixed along it.
     */
    public static String tickLabel(long bytes, long scaleBytes) {
        int u = unitOf(scaleBytes);
        double v = bytes / Math.pow(1024, u);
        String num = v == Math.rint(v) ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.2f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
        return num + " " + UNITS[u];
    }

    private static List<DrawList.MarkerMark> markers(List<Marker> all, int memory, TimeRange r, int w) {
        List<DrawList.MarkerMark> out = new ArrayList<>();
        int lo = 0;
        int hi = all.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (all.get(mid).timeNs() < r.fromNs()) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        double lastX = Double.NEGATIVE_INFINITY;
        for (int i = lo; i < all.size(); i++) {
            Marker mk = all.get(i);
            if (mk.timeNs() >= r.toNs()) {
                break;
            }
            if (mk.memory() != memory && mk.memory() >= 0) {
                continue;
            }
            double x = (mk.timeNs() - r.fromNs()) * (double) w / r.duration();
            if (!out.isEmpty() && x - lastX < FOLD_PX) {
                DrawList.MarkerMark prev = out.remove(out.size() - 1);
                out.add(new DrawList.MarkerMark(prev.x(), prev.kind(), prev.count() + 1, prev.text()));
                continue;
            }
            String text = mk.kind().name().toLowerCase().replace('_', ' ') + (mk.text().isEmpty() ? "" : ": " + mk.text());
            out.add(new DrawList.MarkerMark(x, mk.kind(), 1, text));
            lastX = x;
        }
        return out;
    }

    private static double[] highlights(ScopeAnalysis s, int memory, TimeRange r, int w) {
        if (s == null || s.memory() != memory) {
            return new double[0];
        }
        double[] out = new double[16];
        int n = 0;
        for (int i = s.executionTimes().firstEndingAfter(r.fromNs()); i < s.executionTimes().count(); i++) {
            long a = s.executionTimes().start(i);
            if (a >= r.toNs()) {
                break;
            }
            double x0 = Math.max(0, (a - r.fromNs()) * (double) w / r.duration());
            double x1 = Math.min(w, (s.executionTimes().end(i) - r.fromNs()) * (double) w / r.duration());
            x1 = Math.max(x1, x0 + 2);
            if (n > 0 && x0 - out[n - 1] < 1) {
                out[n - 1] = Math.max(out[n - 1], x1);
                continue;
            }
            if (n + 2 > out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            out[n++] = x0;
            out[n++] = x1;
        }
        return Arrays.copyOf(out, n);
    }
}
