package dev.arenascope.workloads.render;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.analysis.MemoryModel;
import dev.arenascope.core.analysis.PeakFormula;
import dev.arenascope.core.analysis.ScopeSample;
import dev.arenascope.core.analysis.ScopeSampler;
import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.InsufficientMemoryException;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.arena.Tensor;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Staging;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.WorkloadOption;
import dev.arenascope.workloads.WorkloadOptions;
import dev.arenascope.workloads.WorkloadResult;

/**
 * The arena workload: frames rendered in batches on one {@link ManualMemory}, the way a GPU renderer
 * draws from a single pre-claimed block.
 *
 * <p>Per scene, its inputs (vertices, colours) are persistent tensors from the arena's backward end
 * in scope {@code scene_inputs}; the scene grows every few batches (and starts afresh past {@code max-triangles}, so an endless demo cycles), so they are re-uploaded inside a
 * {@code temp(true)} that clears them. Per batch of {@code frames} frames, in scope {@code batch}:
 * <ul>
 * <li>{@code output} (frames): an RGBA8 frame and a float depth buffer per frame;
 * <li>{@code raster} (instances = frames × num_triangles): the 64-byte raster precompute;
 * <li>{@code tiles} (pool = frames × tiles; fragments, noted inside once the COUNT pass knows it):
 *     wavefront tile state, counts and offsets per tile, then the per-tile triangle lists;
 * <li>{@code blur} and {@code tonemap} (frames): post-processing temporaries, each in its own
 *     {@code temp()}, so they reuse the same bytes.
 * </ul>
 * Pixels are real on the host (the {@link Rasterizer} writes into the arena's bytes) and on CUDA
 * (cleared with cudaMemset, rendered in a staging copy and copied in); the virtual device gets the
 * accounting only.
 *
 * <p><b>Batch size from the memory model.</b> The workload listens to its own events with a
 * {@link ScopeSampler}; after three probe batches (1, 2 and 3 frames) it fits a {@link MemoryModel}
 * and sizes every batch as the largest whose predicted bound, {@code output + raster + tiles +
 * max(blur, tonemap)}, fits the arena's free bytes less the safety margin. The fragment count of a
 * batch not yet drawn is estimated from the last one's fragments per triangle and frame (+15%). When
 * the scene grows, the raster and tile terms grow and the batches shrink. A batch that overruns
 * anyway (it should not) is counted, halved and retried.
 */
public final class RenderWorkload implements Workload {
    /** How scopes add up to a batch's peak: the sizing formula the model is evaluated on. */
    public static final PeakFormula BATCH_FORMULA = PeakFormula.sum(
            PeakFormula.term("output"), PeakFormula.term("raster"), PeakFormula.term("tiles"),
            PeakFormula.max(PeakFormula.term("blur"), PeakFormula.term("tonemap")));
    private static final int[] PROBE_BATCHES = {1, 2, 3};

    @Override
    public String name() {
        return "render";
    }

    @Override
    public String summary() {
        return "frame batches on a ManualMemory arena, sized by the calibrated memory model (scopes, params, temps)";
    }

    @Override
    public List<WorkloadOption> options() {
        return List.of(
                new WorkloadOption("frames", "96", "frames to render (0: until cancelled)"),
                new WorkloadOption("width", "256", "frame width in pixels"),
                new WorkloadOption("height", "144", "frame height in pixels"),
                new WorkloadOption("triangles", "3000", "triangles in the first scene"),
                new WorkloadOption("grow-by", "1500", "triangles added each time the scene grows"),
                new WorkloadOption("grow-every", "4", "batches between scene growths (0: never)"),
                new WorkloadOption("max-triangles", "12000", "a growth past this starts a fresh scene of --triangles (endless runs cycle)"),
                new WorkloadOption("arena", "16MiB", "the arena's size"),
                new WorkloadOption("margin", "0.10", "fraction of the free bytes kept back when sizing a batch"),
                new WorkloadOption("max-batch", "64", "frames per batch at most"),
                new WorkloadOption("seed", "7", "random seed of the scene"));
    }

    @Override
    public void validate(WorkloadOptions options) {
        new Settings(options);
    }

    @Override
    public WorkloadResult run(Session session, MemoryDevice device, WorkloadOptions options, Progress progress) {
        Settings s = new Settings(options);
        long free = device.freeBytes();
        if (s.arenaBytes > free) {
            // an option the device cannot honour: said as the option's error (exit 2), not an internal one
            throw new IllegalArgumentException(name() + ": --arena " + Bytes.format(s.arenaBytes) + " is more than the "
                    + Bytes.format(free) + " free on " + device.info().id());
        }
        session.addDevice(device.info());
        ScopeSampler sampler = new ScopeSampler();
        session.addSink(sampler);
        try (ManualMemory arena = ManualMemory.builder().device(device).numBytes(s.arenaBytes).session(session)
                .name("render.arena").noPoison().build()) {
            return new Run(s, session, device, arena, sampler, progress).render();
        } finally {
            session.removeSink(sampler);
        }
    }

    private record Settings(long frames, int width, int height, int triangles, int growBy, int growEvery, int maxTriangles,
                            long arenaBytes, double margin, int maxBatch, long seed) {
        Settings(WorkloadOptions o) {
            this(o.longValue("frames", 0, Long.MAX_VALUE), o.intValue("width", 16, 8192), o.intValue("height", 16, 8192),
                    o.intValue("triangles", 1, 50_000_000), o.intValue("grow-by", 0, 50_000_000), o.intValue("grow-every", 0, 1_000_000),
                    o.intValue("max-triangles", 1, 50_000_000),
                    o.bytes("arena", 1 << 20, Long.MAX_VALUE), o.doubleValue("margin", 0, 0.9), o.intValue("max-batch", 1, 100_000),
                    o.longValue("seed", Long.MIN_VALUE, Long.MAX_VALUE));
        }
    }

    /** One run's state. */
    private static final class Run {
        final Settings s;
        final Session session;
        final MemoryDevice device;
        final ManualMemory arena;
        final ScopeSampler sampler;
        final Progress progress;
        final Rasterizer raster;
        Scene scene;
        int scenes = 1;
        final boolean pixels;
        long rendered;
        int batches;
        int overruns;
        long pixelsWritten;
        double fragmentRate = -1; // fragments per triangle and frame, from the last batch
        double worstPredictionError; // |predicted - measured| / measured over model-sized batches
        MemoryModel model;

        Run(Settings s, Session session, MemoryDevice device, ManualMemory arena, ScopeSampler sampler, Progress progress) {
            this.s = s;
            this.session = session;
            this.device = device;
            this.arena = arena;
            this.sampler = sampler;
            this.progress = progress;
            this.raster = new Rasterizer(s.width, s.height);
            this.scene = new Scene(s.seed, s.triangles);
            this.pixels = device.info().kind() != DeviceKind.VIRTUAL;
        }

        WorkloadResult render() {
            int sceneBatches = 0;
            while ((s.frames == 0 || rendered < s.frames) && !progress.isCancelled()) {
                if (s.growEvery > 0 && sceneBatches >= s.growEvery && s.growBy > 0) {
                    if ((long) scene.triangles() + s.growBy > s.maxTriangles) {
                        scene = new Scene(s.seed + scenes++, s.triangles); // cycle: a fresh scene
                    } else {
                        scene.grow(scene.triangles() + s.growBy);
                    }
                    sceneBatches = 0;
                }
                // one scene: its inputs persist at the backward end until the scene changes
                try (var sceneTemp = arena.temp(true)) {
                    try (var scope = arena.scope("scene_inputs", "num_triangles", scene.triangles())) {
                        upload(arena.getPersistentTensor(DType.FLOAT32, scene.triangles(), Scene.VERTEX_FLOATS), scene.vertices());
                        upload(arena.getPersistentTensor(DType.FLOAT32, scene.triangles(), Scene.COLOR_FLOATS), scene.colors());
                    }
                    int limit = s.growEvery > 0 && s.growBy > 0 ? s.growEvery : Integer.MAX_VALUE;
                    while (sceneBatches < limit && (s.frames == 0 || rendered < s.frames) && !progress.isCancelled()) {
                        int n = chooseBatch();
                        renderBatchWithRetry(n);
                        sceneBatches++;
                    }
                }
            }
            Map<String, Long> figures = new LinkedHashMap<>();
            figures.put("frames", rendered);
            figures.put("batches", (long) batches);
            figures.put("triangles", (long) scene.triangles());
            figures.put("scenes", (long) scenes);
            figures.put("arena_bytes", arena.capacity());
            figures.put("arena_peak_bytes", arena.highWaterMark());
            figures.put("overruns", (long) overruns);
            figures.put("pixels_written", pixelsWritten);
            figures.put("worst_prediction_error_ppm", Math.round(worstPredictionError * 1e6));
            String summary = rendered + " frames of " + s.width + "x" + s.height + " in " + batches + " batches, scene grew to "
                    + scene.triangles() + " triangles, arena peak " + Bytes.format(arena.highWaterMark()) + " of "
                    + Bytes.format(arena.capacity()) + (overruns > 0 ? ", " + overruns + " overruns" : "");
            return new WorkloadResult("render", device.info().id(), summary, figures);
        }

        /** The batch size: a probe size until the model can be fitted, then the largest that fits. */
        int chooseBatch() {
            long left = s.frames == 0 ? Long.MAX_VALUE : s.frames - rendered;
            if (batches < PROBE_BATCHES.length) {
                return (int) Math.min(left, Math.min(s.maxBatch, PROBE_BATCHES[batches]));
            }
            session.flush();
            model = MemoryModel.fit(sampler.samples());
            long free = arena.getNumBytesRemaining();
            int n = model.largestBatch(BATCH_FORMULA, this::paramsFor, free, s.margin, s.maxBatch);
            if (n == 0) {
                throw new IllegalStateException("render: one frame of " + scene.triangles() + " triangles needs about "
                        + Bytes.format(model.bound(BATCH_FORMULA, paramsFor(1))) + " but the arena has "
                        + Bytes.format(free) + " free; give a larger --arena");
            }
            return (int) Math.min(left, n);
        }

        /** The params of a batch of {@code frames} frames of the current scene. */
        Map<String, Long> paramsFor(long frames) {
            long tris = scene.triangles();
            double rate = fragmentRate < 0 ? 2.0 : fragmentRate;
            return Map.of("frames", frames, "instances", frames * tris, "pool", frames * raster.tiles(),
                    "fragments", (long) Math.ceil(frames * tris * rate * 1.15));
        }

        void renderBatchWithRetry(int n) {
            while (true) {
                try {
                    renderBatch(n);
                    return;
                } catch (InsufficientMemoryException e) {
                    overruns++;
                    if (n == 1) {
                        throw e;
                    }
                    n = Math.max(1, n / 2);
                }
            }
        }

        void renderBatch(int frames) {
            long startFrame = rendered;
            int tris = scene.triangles();
            long tiles = raster.tiles();
            long px = raster.pixels();
            long predicted = -1;
            try (var batchTemp = arena.temp(); var batch = arena.scope("batch", "frames", frames)) {
                Tensor rgba;
                Tensor depth;
                try (var scope = arena.scope("output", "frames", frames)) {
                    rgba = arena.getTensor(DType.UINT8, frames, s.height, s.width, 4);
                    depth = arena.getTensor(DType.FLOAT32, frames, s.height, s.width);
                    device.memset(rgba.buffer(), rgba.byteOffset(), rgba.byteSize(), (byte) 0); // clear to black
                }
                Tensor setup;
                try (var scope = arena.scope("raster", "instances", (long) frames * tris)) {
                    setup = arena.getTensor(DType.FLOAT32, frames, tris, Rasterizer.SETUP_BYTES / 4);
                }
                Staging.Window setupW = window(setup, false);
                for (int f = 0; f < frames; f++) {
                    raster.setup(scene.vertices(), tris, startFrame + f, setupW.segment(), (long) f * tris * Rasterizer.SETUP_BYTES);
                }
                setupW.commit();
                Tensor tileState;
                Tensor lists;
                long fragments = 0;
                long[] frameStart = new long[frames + 1];
                try (var scope = arena.scope("tiles", "pool", (long) frames * tiles)) {
                    tileState = arena.getTensor(DType.INT32, frames, tiles, 2);
                    Staging.Window stateW = window(tileState, false);
                    for (int f = 0; f < frames; f++) {
                        frameStart[f] = fragments;
                        fragments += raster.countTiles(setupW.segment(), (long) f * tris * Rasterizer.SETUP_BYTES, tris,
                                stateW.segment(), (long) f * tiles * 8);
                    }
                    frameStart[frames] = fragments;
                    arena.noteScopeParams("fragments", fragments);
                    lists = arena.getTensor(DType.INT32, Math.max(1, fragments));
                    Staging.Window listW = window(lists, false);
                    for (int f = 0; f < frames; f++) {
                        long base = (long) f * tiles * 8;
                        raster.fillTiles(setupW.segment(), (long) f * tris * Rasterizer.SETUP_BYTES, tris, stateW.segment(),
                                base, base + tiles * 4, listW.segment(), frameStart[f] * 4);
                    }
                    if (pixels) {
                        Staging.Window rgbaW = window(rgba, false);
                        Staging.Window depthW = window(depth, false);
                        for (int f = 0; f < frames; f++) {
                            long base = (long) f * tiles * 8;
                            raster.clearDepth(depthW.segment(), f * px * 4);
                            pixelsWritten += raster.raster(setupW.segment(), (long) f * tris * Rasterizer.SETUP_BYTES, scene.colors(),
                                    stateW.segment(), base, base + tiles * 4, listW.segment(), frameStart[f] * 4,
                                    rgbaW.segment(), f * px * 4, depthW.segment(), f * px * 4);
                        }
                        rgbaW.commit();
                        depthW.commit();
                    }
                    stateW.commit();
                    listW.commit();
                }
                fragmentRate = (double) fragments / ((double) frames * tris);
                // post-processing: each pass's temporaries in its own temp(), reusing the same bytes
                try (var t = arena.temp(); var scope = arena.scope("blur", "frames", frames)) {
                    Tensor tmp = arena.getTensor(DType.FLOAT32, frames, s.height, s.width, 3);
                    if (pixels) {
                        Staging.Window rgbaW = window(rgba, true);
                        Staging.Window tmpW = window(tmp, false);
                        for (int f = 0; f < frames; f++) {
                            raster.blur(rgbaW.segment(), f * px * 4, tmpW.segment(), f * px * 12);
                        }
                        rgbaW.commit();
                        tmpW.commit();
                    }
                }
                try (var t = arena.temp(); var scope = arena.scope("tonemap", "frames", frames)) {
                    Tensor lum = arena.getTensor(DType.FLOAT32, frames, s.height, s.width);
                    Tensor hist = arena.getTensor(DType.INT32, frames, 256);
                    if (pixels) {
                        Staging.Window rgbaW = window(rgba, true);
                        Staging.Window lumW = window(lum, false);
                        Staging.Window histW = window(hist, false);
                        for (int f = 0; f < frames; f++) {
                            raster.tonemap(rgbaW.segment(), f * px * 4, lumW.segment(), f * px * 4, histW.segment(), f * 1024L);
                        }
                        rgbaW.commit();
                        lumW.commit();
                        histW.commit();
                    }
                }
                if (model != null) {
                    predicted = model.predict(BATCH_FORMULA, Map.of("frames", (long) frames, "instances", (long) frames * tris,
                            "pool", frames * tiles, "fragments", fragments));
                }
            }
            rendered += frames;
            batches++;
            if (predicted >= 0) {
                session.flush();
                List<ScopeSample> all = sampler.samples();
                for (int i = all.size() - 1; i >= 0; i--) {
                    ScopeSample b = all.get(i);
                    if (b.name().equals("batch")) {
                        double err = Math.abs(predicted - b.peakBytes()) / (double) Math.max(1, b.peakBytes());
                        worstPredictionError = Math.max(worstPredictionError, err);
                        break;
                    }
                }
            }
            progress.update(rendered, s.frames == 0 ? -1 : s.frames, "frame");
        }

        private Staging.Window window(Tensor t, boolean load) {
            return Staging.open(device, t.buffer(), t.byteOffset(), t.byteSize(), t.hostSegment(), load);
        }

        private void upload(Tensor t, float[] values) {
            t.copyFromHost(values);
        }
    }
}
