package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import javafx.scene.canvas.Canvas;

import dev.arenascope.app.ui.FxToolkit;
import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.DrawListBuilder;
import dev.arenascope.app.ui.timeline.TimelinePainter;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/**
 * {@code ui}: the occupancy timeline's frame cost on a ten-million-event session (one million with
 * {@code --quick}; {@code ARENASCOPE_UI_EVENTS} sets another size, e.g. {@code 100M}): building the draw list from the store's level-of-detail index and painting it on
 * a 1600×800 canvas, at the full view and zoomed to 1/1000 of it (the median over both zooms and many
 * frames). Headless through Monocle when there is no display.
 *
 * <p>Figures: {@code ui.frame_ms} (build + paint, the FX thread's share), {@code ui.frame_build_ms}
 * (the off-thread draw-list build alone), {@code ui.frame_full_ms}, {@code ui.frame_zoom_ms} (each
 * zoom separately), {@code ui.frame_raster_ms} (paint + the software rasteriser's snapshot of the canvas),
 * {@code ui.frame_events} (the session's size) and {@code ui.store_bytes_per_event} (the store's memory,
 * indexes included, per event).
 */
public final class UiBenchSuite implements BenchSuite {
    static final int WIDTH = 1600;
    static final int HEIGHT = 800;

    @Override
    public String group() {
        return "ui";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        String env = System.getenv("ARENASCOPE_UI_EVENTS");
        long events = env != null && !env.isBlank() ? parseEvents(env) : quick ? 1_000_000 : 10_000_000;
        EventStore store = new EventStore("bench");
        SyntheticTrace.write(7, events, store);
        TraceAggregate digest = new TraceAggregate(store);
        digest.advance(null);
        TraceAggregate.Snapshot snap = digest.snapshot();
        FxToolkit.start();
        TimeRange full = new TimeRange(store.startNs(), store.endNs());
        long mid = full.fromNs() + full.duration() / 3;
        TimeRange zoom = new TimeRange(mid, mid + Math.max(1000, full.duration() / 1000));
        Canvas canvas = FxToolkit.call(() -> new Canvas(WIDTH, HEIGHT));
        int warm = quick ? 3 : 10;
        int rounds = quick ? 9 : 41;
        double fullMs = Medians.medianOf(warm, rounds, () -> frame(store, snap, full, canvas, false));
        double zoomMs = Medians.medianOf(warm, rounds, () -> frame(store, snap, zoom, canvas, false));
        double[] both = new double[2 * rounds];
        for (int i = 0; i < rounds; i++) {
            both[2 * i] = frame(store, snap, full, canvas, false);
            both[2 * i + 1] = frame(store, snap, zoom, canvas, false);
        }
        double buildMs = Medians.medianOf(warm, rounds, () -> {
            long t0 = System.nanoTime();
            DrawListBuilder.build(new DrawListBuilder.Frame(store, full, WIDTH, HEIGHT, snap, null, null));
            return (System.nanoTime() - t0) / 1e6;
        });
        double rasterMs = Medians.medianOf(1, quick ? 3 : 9, () -> frame(store, snap, full, canvas, true));
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ui.frame_ms", Medians.median(both));
        out.put("ui.frame_full_ms", fullMs);
        out.put("ui.frame_zoom_ms", zoomMs);
        out.put("ui.frame_build_ms", buildMs);
        out.put("ui.frame_raster_ms", rasterMs);
        out.put("ui.frame_events", (double) store.eventCount());
        out.put("ui.store_bytes_per_event", store.memoryBytes() / (double) store.eventCount());
        return out;
    }

    /** {@code ARENASCOPE_UI_EVENTS}: the session's size, e.g. {@code 100000000} or {@code 100M}. */
    static long parseEvents(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace("_", "");
        long mul = t.endsWith("M") ? 1_000_000 : t.endsWith("K") ? 1_000 : 1;
        try {
            long n = Long.parseLong(mul == 1 ? t : t.substring(0, t.length() - 1)) * mul;
            if (n < 1_000 || n > 2_000_000_000L) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("ARENASCOPE_UI_EVENTS: expected a count from 1000 to 2000M (e.g. 100M), got '" + text + "'");
        }
    }

    private static double frame(EventStore store, TraceAggregate.Snapshot snap, TimeRange range, Canvas canvas, boolean raster) throws Exception {
        long t0 = System.nanoTime();
        DrawList d = DrawListBuilder.build(new DrawListBuilder.Frame(store, range, WIDTH, HEIGHT, snap, null, null));
        FxToolkit.call(() -> {
            TimelinePainter.paint(canvas.getGraphicsContext2D(), d, Palette.LIGHT, false, null, -1);
            if (raster) {
                canvas.snapshot(null, null);
            }
            return null;
        });
        return (System.nanoTime() - t0) / 1e6;
    }
}
