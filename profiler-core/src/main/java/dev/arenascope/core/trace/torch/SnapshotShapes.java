package dev.arenascope.core.trace.torch;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded generator of PyTorch memory snapshots of many shapes, for the bench's {@code torch.shape.*}
 * family and for the tests that check the import against Python's own reading of the same file. Where
 * {@link SyntheticSnapshot} draws every stack from 4,096, a {@link Shape} chooses along each axis real
 * snapshots vary in:
 * <ul>
 *   <li><b>distinct stacks</b>: every entry's stack drawn from a pool of {@code distinct} stacks, or
 *       ({@code distinct} 0) a new random stack for every entry, alloc and free alike;</li>
 *   <li><b>depth</b>: 3 to 12 Python frames drawn from {@value #FILES} files × {@value #LINES} lines ×
 *       {@value #FUNCTIONS} function names, or ({@code cpp}) 60 to 100 frames as
 *       {@code stacks="all"} writes them: PyTorch's capture machinery and other C++ frames (from a pool
 *       of {@value #CPP_FRAMES}, file {@code ??}, line 0) ahead of the Python frames;</li>
 *   <li><b>sharing</b>: frame dicts shared through the pickle memo as PyTorch's pickler writes them (a
 *       frame dict is written once and fetched with BINGET after), or written anew for every entry
 *       (their strings still shared);</li>
 *   <li><b>devices</b>: entries spread over {@code devices} device traces in turn;</li>
 *   <li><b>segments</b>: one plain segment per pool; one expandable segment per device that the trace
 *       grows with {@code segment_map} entries; or private pools ({@code segment_pool_id} (1, 0) and
 *       (2, 0), as CUDA graphs make) taking every tenth allocation in turn.</li>
 * </ul>
 * A {@linkplain #pathological pathological} shape puts a new frame (its own function name) in every
 * slot of 1,000-frame stacks.
 *
 * <p>Each allocation is an {@code alloc} entry and, unless it is live at the end, a
 * {@code free_completed}; 64 blocks per device are live before the trace begins (in the final state or
 * freed in the trace), so the backwards replay is exercised. The {@link Summary} holds what a correct
 * import must find: peaks of bytes in use per device and pool, counting blocks from the trace's start.
 */
public final class SnapshotShapes {
    public static final int FILES = 40;
    public static final int LINES = 900;
    public static final int FUNCTIONS = 61;
    /** Distinct Python frames a stack is drawn from. */
    public static final int PYTHON_FRAMES = FILES * LINES * FUNCTIONS;
    public static final int CPP_FRAMES = 2000;
    private static final String[] CAPTURE = {"torch::unwind::unwind()", "torch::CapturedTraceback::gather(bool, bool, bool)",
        "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)"};
    private static final long BASE = 0x7f00_0000_0000L;
    private static final long DEVICE_SPAN = 1L << 46;
    private static final long POOL_SPAN = 1L << 43;
    private static final long MAP_CHUNK = 32L << 20;
    private static final int LIVE = 2000;
    private static final int INITIAL = 64;
    private static final long T0 = 1_700_000_000_000_000L;
    private static final int PATHOLOGICAL_DEPTH = 1000;

    /** How the final state's segments look and how the trace grows them. */
    public enum Segments { PLAIN, EXPANDABLE, POOLS }

    /**
     * A snapshot's shape.
     *
     * @param name     the bench's name for it ({@code torch.shape.NAME.*})
     * @param distinct stacks drawn from; 0 for a new stack every entry
     * @param cpp      60 to 100 frames a stack, C++ ahead of Python ({@code stacks="all"}), instead of 3 to 12 Python frames
     * @param memo     frame dicts shared through the memo (as PyTorch writes them) instead of written anew
     * @param devices  device traces (1 or more)
     * @param segments the segments' kind
     */
    public record Shape(String name, int distinct, boolean cpp, boolean memo, int devices, Segments segments) {
        public Shape {
            if (distinct < 0 || devices < 1) {
                throw new IllegalArgumentException("distinct >= 0 and devices >= 1");
            }
        }
    }

    /** The bench family's shapes: each axis moved on its own from the 4,096-stack shape, and the worst of them together. */
    public static List<Shape> shapes() {
        return List.of(
                new Shape("stacks_1", 1, false, false, 1, Segments.PLAIN),
                new Shape("stacks_4096", 4096, false, false, 1, Segments.PLAIN),
                new Shape("stacks_100k", 100_000, false, false, 1, Segments.PLAIN),
                new Shape("stacks_all", 0, false, false, 1, Segments.PLAIN),
                new Shape("stacks_all_memo", 0, false, true, 1, Segments.PLAIN),
                new Shape("cpp_100k_memo", 100_000, true, true, 1, Segments.PLAIN),
                new Shape("devices_8", 100_000, false, true, 8, Segments.PLAIN),
                new Shape("expandable", 4096, false, true, 1, Segments.EXPANDABLE),
                new Shape("private_pools", 4096, false, true, 1, Segments.POOLS));
    }

    /** The worst shape for the reader: every entry's stack new, its frame dicts written anew. */
    public static Shape worst() {
        return shapes().get(3);
    }

    /** The shape named {@code name} in {@link #shapes()}. */
    public static Shape shape(String name) {
        for (Shape s : shapes()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no snapshot shape '" + name + "'");
    }

    /**
     * Stacks of {@value #PATHOLOGICAL_DEPTH} frames in which every frame is new (its own function name),
     * frame dicts written anew: the input a reader must get through in time proportional to its size.
     */
    public static Shape pathological() {
        return new Shape("pathological", 0, false, false, 1, Segments.PLAIN);
    }

    /**
     * What was generated.
     *
     * @param bytes       size of the pickle
     * @param entries     trace entries over all devices
     * @param allocations {@code alloc} entries over all devices
     * @param peaks       per device, per pool (0 the default pools, then the private pools in order): the peak bytes in use
     * @param initial     blocks live before the trace began, over all devices
     */
    public record Summary(long bytes, long entries, long allocations, long[][] peaks, int initial) {}

    private SnapshotShapes() {}

    /** Writes {@code allocations} allocations of {@code shape} from {@code seed} to {@code file}. */
    public static Summary write(Path file, Shape shape, long seed, int allocations) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            return write(out, shape, seed, allocations);
        }
    }

    /** A block: where, how big, which device and pool, and its stack (frame ids, innermost first). */
    private record Block(long addr, long size, int device, int pool, int[] stack) {}

    /** Writes {@code allocations} allocations of {@code shape} from {@code seed} to {@code out} (not closed). */
    public static Summary write(OutputStream out, Shape shape, long seed, int allocations) throws IOException {
        Gen g = new Gen(shape, seed, allocations, "pathological".equals(shape.name()));
        // the final state comes first in PyTorch's layout: the trace is run once to know it, then run again
        // from the same seed to write it
        Run first = g.run(null, null);
        PickleWriter w = new PickleWriter(out);
        FrameWriter fw = new FrameWriter(w, shape.memo(), g.patho);
        w.dict().mark();
        w.str("segments").list().mark();
        for (int d = 0; d < shape.devices(); d++) {
            for (int p = 0; p < g.pools; p++) {
                boolean expandable = shape.segments() == Segments.EXPANDABLE;
                long total = expandable ? first.mapped[d] : POOL_SPAN;
                w.dict().mark();
                w.str("device").integer(d).str("address").integer(g.base(d, p)).str("total_size").integer(total)
                        .str("allocated_size").integer(0).str("active_size").integer(0).str("requested_size").integer(0)
                        .str("stream").integer(0).str("segment_type").str("large")
                        .str("segment_pool_id").integer(p).integer(0).tuple2()
                        .str("is_expandable").bool(expandable).str("frames").list();
                w.str("blocks").list();
                boolean any = false;
                for (Block b : first.endLive) {
                    if (b.device != d || b.pool != p) {
                        continue;
                    }
                    if (!any) {
                        w.mark();
                        any = true;
                    }
                    w.dict().mark().str("address").integer(b.addr).str("size").integer(b.size).str("requested_size").integer(b.size)
                            .str("state").str("active_allocated").str("frames");
                    fw.frames(b.stack);
                    w.setItems();
                }
                if (any) {
                    w.appends();
                }
                w.setItems();
            }
        }
        w.appends();
        w.str("device_traces").list().mark();
        Run second = g.run(w, fw);
        w.appends();
        w.str("allocator_settings").dict().mark().str("PYTORCH_CUDA_ALLOC_CONF")
                .str(shape.segments() == Segments.EXPANDABLE ? "expandable_segments:True" : "").str("max_split_size").integer(-1)
                .str("expandable_segments").bool(shape.segments() == Segments.EXPANDABLE).setItems();
        w.setItems().stop();
        return new Summary(w.written(), second.entries, second.allocs, first.peaks, first.initial);
    }

    /** What one run of the trace found. */
    private static final class Run {
        long[][] peaks;
        long[] mapped;
        List<Block> endLive = new ArrayList<>();
        long entries;
        long allocs;
        int initial;
    }

    /** The generator's state: the shape, the stack pool, and the allocator model run from the seed. */
    private static final class Gen {
        final Shape shape;
        final long seed;
        final int allocations;
        final boolean patho;
        final int pools;
        final int[][] pool;

        Gen(Shape shape, long seed, int allocations, boolean patho) {
            this.shape = shape;
            this.seed = seed;
            this.allocations = allocations;
            this.patho = patho;
            this.pools = shape.segments() == Segments.POOLS ? 3 : 1;
            SplittableRandom r = new SplittableRandom(seed);
            if (shape.distinct() > 0 && !patho) {
                pool = new int[shape.distinct()][];
                for (int i = 0; i < pool.length; i++) {
                    pool[i] = newStack(r);
                }
            } else {
                pool = null;
            }
        }

        long base(int device, int pool) {
            return BASE + device * DEVICE_SPAN + pool * POOL_SPAN;
        }

        private long frameCounter;

        /** A new random stack: frame ids, innermost first (C++ frames are ids past the Python ones). */
        int[] newStack(SplittableRandom r) {
            if (patho) {
                int[] s = new int[PATHOLOGICAL_DEPTH];
                for (int i = 0; i < s.length; i++) {
                    s[i] = (int) (frameCounter++ & Integer.MAX_VALUE); // every frame new: the writer names it by its id
                }
                return s;
            }
            int python = 3 + r.nextInt(10);
            int total = shape.cpp() ? 60 + r.nextInt(41) : python;
            int[] s = new int[total];
            int cpp = total - python;
            for (int i = 0; i < cpp; i++) {
                s[i] = PYTHON_FRAMES + (i < CAPTURE.length ? i : CAPTURE.length + r.nextInt(CPP_FRAMES - CAPTURE.length));
            }
            for (int i = cpp; i < total; i++) {
                s[i] = r.nextInt(PYTHON_FRAMES);
            }
            return s;
        }

        int[] stack(SplittableRandom r) {
            return pool == null ? newStack(r) : pool[r.nextInt(pool.length)];
        }

        /**
         * Runs the allocator model from the seed, device after device (each its own random stream; device
         * d's entries at times interleaved with the others'); writes each device's list of entries when
         * {@code w} is given.
         */
        Run run(PickleWriter w, FrameWriter fw) throws IOException {
            int devices = shape.devices();
            Run run = new Run();
            run.peaks = new long[devices][pools];
            run.mapped = new long[devices];
            boolean expandable = shape.segments() == Segments.EXPANDABLE;
            for (int d = 0; d < devices; d++) {
                SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL ^ (long) d * 0x9E3779B97F4A7C15L);
                long[] used = new long[pools];
                long[] bump = new long[pools];
                long[] peak = run.peaks[d];
                for (int p = 0; p < pools; p++) {
                    bump[p] = base(d, p);
                }
                List<Block> l = new ArrayList<>();
                for (int i = 0; i < INITIAL; i++) {
                    Block b = new Block(bump[0], 512L * (1 + r.nextInt(4096)), d, 0, stack(r));
                    bump[0] += b.size;
                    used[0] += b.size;
                    l.add(b);
                    run.initial++;
                }
                peak[0] = used[0];
                long mapped = (bump[0] - base(d, 0) + MAP_CHUNK - 1) / MAP_CHUNK * MAP_CHUNK;
                int quota = allocations / devices + (d < allocations % devices ? 1 : 0);
                int allocs = 0;
                long step = 0;
                int batch = 0;
                if (w != null) {
                    w.list().mark();
                }
                while (allocs < quota || l.size() > LIVE / 4) {
                    boolean alloc = allocs < quota && (l.size() < LIVE || r.nextInt(3) == 0);
                    long time = T0 + 4 * (step++ * devices + d);
                    String action;
                    Block b;
                    int[] stack;
                    if (alloc) {
                        int p = pools > 1 && allocs % 10 == 9 ? 1 + (allocs / 10) % (pools - 1) : 0;
                        long size = 512L * (1 + r.nextInt(r.nextInt(8) == 0 ? 1 << 17 : 1 << 10));
                        b = new Block(bump[p], size, d, p, stack(r));
                        bump[p] += size;
                        if (expandable && p == 0 && bump[0] - base(d, 0) > mapped) {
                            long need = bump[0] - base(d, 0) - mapped;
                            long map = (need + MAP_CHUNK - 1) / MAP_CHUNK * MAP_CHUNK;
                            if (w != null) {
                                entry(w, fw, "segment_map", base(d, 0) + mapped, map, time, null);
                                batch = batch(w, batch);
                            }
                            run.entries++;
                            mapped += map;
                        }
                        l.add(b);
                        used[p] += size;
                        peak[p] = Math.max(peak[p], used[p]);
                        allocs++;
                        run.allocs++;
                        action = "alloc";
                        stack = b.stack;
                    } else {
                        int i = r.nextInt(l.size());
                        b = l.get(i);
                        l.set(i, l.getLast());
                        l.removeLast();
                        used[b.pool] -= b.size;
                        action = "free_completed";
                        stack = stack(r);
                    }
                    if (w != null) {
                        entry(w, fw, action, b.addr, b.size, time, stack);
                        batch = batch(w, batch);
                    }
                    run.entries++;
                }
                if (w != null) {
                    w.appends(); // the open batch (MARK APPENDS of none is what Python writes for an empty one too)
                }
                run.mapped[d] = mapped;
                run.endLive.addAll(l);
            }
            run.endLive.sort((a, b) -> Long.compare(a.addr, b.addr));
            return run;
        }

        /** Counts an entry into the open batch; every 1,000 the batch is closed and another opened, as Python's pickler does. */
        private static int batch(PickleWriter w, int batch) throws IOException {
            if (++batch == 1000) {
                w.appends().mark();
                return 0;
            }
            return batch;
        }

        private static void entry(PickleWriter w, FrameWriter fw, String action, long addr, long size, long time, int[] stack)
                throws IOException {
            w.dict().mark().str("action").str(action).str("addr").integer(addr).str("size").integer(size).str("stream").integer(0)
                    .str("time_us").integer(time).str("compile_context").str("N/A").str("user_metadata").str("").str("frames");
            if (stack == null) {
                w.list();
            } else {
                fw.frames(stack);
            }
            w.setItems();
        }
    }

    /** Writes frames lists: each frame dict anew, or once and then from the memo. */
    private static final class FrameWriter {
        private final PickleWriter w;
        private final boolean memo;
        private final boolean patho;
        private int[] memoOf = new int[0];

        FrameWriter(PickleWriter w, boolean memo, boolean patho) {
            this.w = w;
            this.memo = memo;
            this.patho = patho;
        }

        void frames(int[] stack) throws IOException {
            w.list().mark();
            for (int f : stack) {
                frame(f);
            }
            w.appends();
        }

        private void frame(int f) throws IOException {
            if (memo) {
                if (f >= memoOf.length) {
                    int old = memoOf.length;
                    memoOf = Arrays.copyOf(memoOf, Math.max(f + 1, 2 * old));
                    Arrays.fill(memoOf, old, memoOf.length, -1);
                }
                if (memoOf[f] >= 0) {
                    w.get(memoOf[f]);
                    return;
                }
                memoOf[f] = w.nextMemo();
            }
            w.dict().mark();
            if (patho) {
                w.str("name").freshStr("fn_" + f).str("filename").str("/work/project/src/deep.py").str("line").integer(f % 100_000);
            } else if (f >= PYTHON_FRAMES) {
                int c = f - PYTHON_FRAMES;
                w.str("name").str(c < CAPTURE.length ? CAPTURE[c] : "at::native::op_" + c + "(at::Tensor const&)")
                        .str("filename").str("??").str("line").integer(0);
            } else {
                int file = f % FILES;
                int line = 1 + (f / FILES) % LINES;
                int fn = f / (FILES * LINES);
                w.str("name").str("fn_" + fn).str("filename").str("/work/project/src/module_" + file + ".py").str("line").integer(line);
            }
            w.setItems();
        }
    }
}
