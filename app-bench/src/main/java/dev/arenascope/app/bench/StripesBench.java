package dev.arenascope.app.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import javafx.scene.canvas.Canvas;

import dev.arenascope.app.ui.FxToolkit;
import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.model.BaselinePairing;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.DrawListBuilder;
import dev.arenascope.app.ui.timeline.StripeOptions;
import dev.arenascope.app.ui.timeline.TimelinePainter;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.store.EventStore;

/**
 * {@code ui} (stripes): the timeline's allocation stripes on the generated PyTorch snapshot the torch
 * bench uses ({@link SyntheticSnapshot}, seed {@value TorchBench#SEED}, {@value TorchBench#ALLOCATIONS}
 * allocations; {@value TorchBench#QUICK_ALLOCATIONS} with {@code --quick}), imported into a store once.
 *
 * <p>Figures: {@code ui.stripes_frame_ms}, one frame with the {@code cuda:0} lane drawn as stripes on a
 * 1600×800 canvas: the draw list built (gauges, the stripes' query and raster) and painted, the median
 * over the whole session and zooms to 1/10, 1/100 and 1/10,000 of it (the budget is 16 ms at any zoom);
 * {@code ui.stripes_build_ms} the off-thread build alone; {@code ui.stripes_zoom_max_ms} the slowest
 * zoom's median; {@code ui.stripes_frame_cpu_ms} the same frames in CPU time of the two threads that do the
 * work (the builder's and the FX thread's), which a busy machine inflates less than wall time, and
 * {@code ui.stripes_zoom_max_cpu_ms} the slowest zoom's median in that CPU time;
 * {@code ui.stripes_index_ms} the core's allocation index ({@link SiteAnalysis#of}),
 * built once per session off the FX thread, not per frame; {@code ui.stripes_allocations} the
 * allocations indexed.
 */
final class StripesBench implements BenchSuite {

    @Override
    public String group() {
        return "ui";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        int allocations = quick ? TorchBench.QUICK_ALLOCATIONS : TorchBench.ALLOCATIONS;
        BenchFixtures.GeneratedStore g = BenchFixtures.generatedStore(quick);
        EventStore store = g.store();
        MemoryInfo cuda = g.cuda();
        long t0 = System.nanoTime();
        SiteAnalysis sa = SiteAnalysis.of(store, cuda, false);
        double indexMs = (System.nanoTime() - t0) / 1e6;
        if (sa.allocationTable().size() < allocations) {
            throw new IllegalStateException("bench: the index holds " + sa.allocationTable().size() + " allocations, the generator made "
                    + allocations);
        }
        StripeOptions stripes = new StripeOptions(Set.of(cuda.id()), Map.of(cuda.id(), sa), SiteAnalysis.By.SITE, Set.of(), null);
        FxToolkit.start();
        Canvas canvas = FxToolkit.call(() -> new Canvas(UiBenchSuite.WIDTH, UiBenchSuite.HEIGHT));
        TimeRange full = new TimeRange(store.startNs(), store.endNs() + 1);
        long mid = full.fromNs() + full.duration() / 3;
        TimeRange[] views = {full, zoom(full, mid, 10), zoom(full, mid, 100), zoom(full, mid, 10_000)};
        int warm = quick ? 2 : 5;
        int rounds = quick ? 5 : 21;
        double[] all = new double[views.length * rounds];
        double[] cpu = new double[views.length * rounds];
        double[][] perView = new double[views.length][rounds];
        double[][] perViewCpu = new double[views.length][rounds];
        // the views take turns, so that no frame repeats the one before it (the builder keeps the last
        // query's answer for a frame that samples the same instants: a repeat would measure that)
        for (int i = 0; i < warm; i++) {
            for (TimeRange v : views) {
                frame(store, v, stripes, canvas);
            }
        }
        int k = 0;
        for (int i = 0; i < rounds; i++) {
            for (int j = 0; j < views.length; j++) {
                double[] wallCpu = frame(store, views[j], stripes, canvas);
                perView[j][i] = wallCpu[0];
                perViewCpu[j][i] = wallCpu[1];
                cpu[k] = wallCpu[1];
                all[k++] = wallCpu[0];
            }
        }
        double zoomMax = 0;
        for (double[] one : perView) {
            zoomMax = Math.max(zoomMax, Medians.median(one));
        }
        double zoomMaxCpu = 0;
        for (double[] one : perViewCpu) {
            zoomMaxCpu = Math.max(zoomMaxCpu, Medians.median(one));
        }
        TimeRange[] alternate = {full, views[1]};
        int[] turn = {0};
        double[] fullBuild = new double[rounds];
        for (int i = 0; i < warm + 2 * rounds; i++) {
            // the whole session, every other build (a 1/10 zoom between, so that each one queries)
            TimeRange v = alternate[turn[0]++ % 2];
            long s = System.nanoTime();
            build(store, v, stripes);
            double ms = (System.nanoTime() - s) / 1e6;
            if (v == full && i >= warm) {
                fullBuild[Math.min(rounds - 1, (i - warm) / 2)] = ms;
            }
        }
        double buildMs = Medians.median(fullBuild);
        DrawList check = build(store, full, stripes);
        if (check.lanes().stream().noneMatch(l -> l.stripes() != null && l.stripes().stripes() > 0)) {
            throw new IllegalStateException("bench: the cuda:0 lane drew no stripes");
        }
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ui.stripes_frame_ms", Medians.median(all));
        out.put("ui.stripes_zoom_max_ms", zoomMax);
        out.put("ui.stripes_frame_cpu_ms", Medians.median(cpu));
        out.put("ui.stripes_zoom_max_cpu_ms", zoomMaxCpu);
        out.put("ui.stripes_build_ms", buildMs);
        out.put("ui.stripes_index_ms", indexMs);
        out.put("ui.stripes_allocations", (double) sa.allocationTable().size());
        return out;
    }

    private static TimeRange zoom(TimeRange full, long mid, long factor) {
        long d = Math.max(1000, full.duration() / factor);
        return new TimeRange(mid, Math.min(full.toNs(), mid + d));
    }

    private static DrawList build(EventStore store, TimeRange range, StripeOptions stripes) {
        return DrawListBuilder.build(new DrawListBuilder.Frame(store, range, UiBenchSuite.WIDTH, UiBenchSuite.HEIGHT,
                TraceAggregate.Snapshot.EMPTY, null, null, BaselinePairing.NONE, false, stripes));
    }

    /** One frame: {@code {wall ms, CPU ms}}. */
    private static double[] frame(EventStore store, TimeRange range, StripeOptions stripes, Canvas canvas) throws Exception {
        long t0 = System.nanoTime();
        long c0 = CPU.getCurrentThreadCpuTime();
        DrawList d = build(store, range, stripes);
        long buildCpu = CPU.getCurrentThreadCpuTime() - c0;
        long paintCpu = FxToolkit.call(() -> {
            long p0 = CPU.getCurrentThreadCpuTime();
            TimelinePainter.paint(canvas.getGraphicsContext2D(), d, Palette.LIGHT, false, null, -1);
            return CPU.getCurrentThreadCpuTime() - p0;
        });
        return new double[] {(System.nanoTime() - t0) / 1e6, (buildCpu + paintCpu) / 1e6};
    }

    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
}
