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
 * A seeded generator of PyTorch memory snapshots in PyTorch's own pickle layout, for the bench and for
 * tests: one device, {@code allocations} allocations (each an {@code alloc} and a
 * {@code free_completed} entry, or left live at the end), stacks of 3 to 12 frames drawn from
 * {@value #FILES} source files, frame dicts written anew per entry (the strings shared through the
 * memo), as a pickler writes frames that are equal but not the same object. Optional: a
 * {@code user_metadata} phase name that changes every {@code phaseEvery} entries, ProfilerStep
 * {@code external_annotations}, and private pools ({@code segment_pool_id} (1, 0), (2, 0), …) that take
 * every tenth allocation in turn. Some blocks are live before the trace starts (freed in it, never
 * allocated in it) and some stay live at its end, so the backwards replay is exercised.
 *
 * <p>The generator computes what a correct import must find: the peak of bytes in use on the default
 * pools and on each private pool, counting blocks from the start of the trace.
 *
 * @see #write(Path, Spec)
 */
public final class SyntheticSnapshot {
    /** Source files stacks are drawn from. */
    public static final int FILES = 40;
    private static final long BASE = 0x7f00_0000_0000L;
    /** Each pool's address range and segment size (bump allocation: addresses are never reused). */
    private static final long REGION = 1L << 44;

    /**
     * What to generate.
     *
     * @param seed         the random seed (same spec, same bytes)
     * @param allocations  allocations in the trace
     * @param live         allocations live at once, about
     * @param phaseEvery   entries per {@code user_metadata} phase; 0 for none
     * @param annotations  ProfilerStep annotations (START and END each); 0 for none
     * @param privatePools private pools; 0 for none
     * @param timed        whether entries carry {@code time_us}
     * @param history      whether final blocks carry their frames in an older {@code history} list instead of {@code frames}
     */
    public record Spec(long seed, int allocations, int live, int phaseEvery, int annotations, int privatePools,
                       boolean timed, boolean history) {
        /** The bench's snapshot: {@code allocations} allocations, nothing optional. */
        public static Spec plain(long seed, int allocations) {
            return new Spec(seed, allocations, 2000, 0, 0, 0, true, false);
        }
    }

    /**
     * What was generated.
     *
     * @param bytes        size of the pickle
     * @param entries      trace entries written
     * @param peakDefault  peak bytes in use on the default pools ({@code cuda:0})
     * @param peakPools    peak bytes in use per private pool, in pool order
     * @param initial      blocks live before the trace began
     */
    public record Summary(long bytes, long entries, long peakDefault, long[] peakPools, int initial) {}

    private SyntheticSnapshot() {}

    /** Writes the snapshot of {@code spec} to {@code file}. */
    public static Summary write(Path file, Spec spec) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            return write(out, spec);
        }
    }

    private record Block(long addr, long size, int pool, int stack) {}

    /** Writes the snapshot of {@code spec} to {@code out} (not closed). */
    public static Summary write(OutputStream out, Spec spec) throws IOException {
        SplittableRandom rnd = new SplittableRandom(spec.seed());
        // frames: FILES files x 25 functions; stacks: 3-12 frames each
        int fnPerFile = 25;
        int[][] stacks = new int[4096][];
        for (int s = 0; s < stacks.length; s++) {
            int n = 3 + rnd.nextInt(10);
            stacks[s] = new int[n];
            for (int i = 0; i < n; i++) {
                stacks[s][i] = rnd.nextInt(FILES * fnPerFile);
            }
        }
        int[] lines = new int[FILES * fnPerFile];
        for (int i = 0; i < lines.length; i++) {
            lines[i] = 1 + rnd.nextInt(2000);
        }
        int pools = spec.privatePools();
        long[] bump = new long[pools + 1];
        for (int p = 0; p <= pools; p++) {
            bump[p] = BASE + p * REGION;
        }
        // the trace, simulated first: who is live when, so the final state and the peaks are known
        List<Block> liveNow = new ArrayList<>();
        List<Block> initial = new ArrayList<>();
        for (int i = 0; i < Math.min(64, spec.live()); i++) {
            Block b = new Block(bump[0], 512L * (1 + rnd.nextInt(4096)), 0, rnd.nextInt(stacks.length));
            bump[0] += b.size;
            initial.add(b);
            liveNow.add(b);
        }
        long[] used = new long[pools + 1];
        long[] peak = new long[pools + 1];
        for (Block b : initial) {
            used[0] += b.size;
        }
        peak[0] = used[0];

        // the final state comes first in PyTorch's layout: simulate the trace once to know it, then
        // write the trace by replaying the same decisions from the same seed
        List<Block> endLive = simulate(spec, new SplittableRandom(spec.seed() ^ TRACE_SEED), stacks.length, liveNow, bump.clone(), used, peak);
        PickleWriter w = new PickleWriter(out);
        w.dict().mark();
        w.str("segments").list().mark();
        for (int p = 0; p <= pools; p++) {
            w.dict().mark();
            w.str("device").integer(0).str("address").integer(BASE + p * REGION).str("total_size").integer(REGION)
                    .str("allocated_size").integer(0).str("active_size").integer(0).str("requested_size").integer(0)
                    .str("stream").integer(0).str("segment_type").str("large").str("segment_pool_id").integer(p).integer(0).tuple2()
                    .str("is_expandable").bool(false).str("frames").list();
            w.str("blocks").list().mark();
            for (Block b : endLive) {
                if (b.pool != p) {
                    continue;
                }
                w.dict().mark().str("address").integer(b.addr).str("size").integer(b.size).str("requested_size").integer(b.size)
                        .str("state").str("active_allocated");
                if (spec.history()) {
                    w.str("history").list().dict().mark().str("addr").integer(b.addr).str("real_size").integer(b.size).str("frames");
                    frames(w, stacks[b.stack], lines, fnPerFile);
                    w.setItems().append();
                } else {
                    w.str("frames");
                    frames(w, stacks[b.stack], lines, fnPerFile);
                }
                w.setItems();
            }
            w.appends();
            w.setItems();
        }
        w.appends();
        // the trace, replayed with the same seed as the simulation
        w.str("device_traces").list().list();
        long entries = writeTrace(w, spec, new SplittableRandom(spec.seed() ^ TRACE_SEED), stacks, lines, fnPerFile, new ArrayList<>(initial));
        w.append(); // device 0's list into device_traces
        w.str("allocator_settings").dict().mark().str("PYTORCH_CUDA_ALLOC_CONF").str("").str("max_split_size").integer(-1)
                .str("expandable_segments").bool(false).setItems();
        w.str("external_annotations").list();
        if (spec.annotations() > 0) {
            w.mark();
            long step = Math.max(1, entries / spec.annotations());
            for (int i = 0; i < spec.annotations(); i++) {
                for (String stage : new String[] {"START", "END"}) {
                    long at = stage.equals("START") ? i * step : (i + 1) * step - 1;
                    w.dict().mark().str("version").integer(1).str("name").str("ProfilerStep#" + i).str("stage").str(stage)
                            .str("device").integer(0).str("time_us").integer(T0 + 4 * (at + 1)).setItems();
                }
            }
            w.appends();
        }
        w.setItems().stop();
        return new Summary(w.written(), entries, peak[0], Arrays.copyOfRange(peak, 1, peak.length), initial.size());
    }

    private static final long T0 = 1_700_000_000_000_000L;
    private static final long TRACE_SEED = 0x5DEECE66DL;

    /** One step of the allocator model: allocate (pool every tenth in turn) or free a random live block. */
    private static List<Block> simulate(Spec spec, SplittableRandom rnd, int stackCount, List<Block> live, long[] bump,
                                        long[] used, long[] peak) {
        List<Block> l = new ArrayList<>(live);
        int pools = spec.privatePools();
        int allocs = 0;
        while (allocs < spec.allocations() || !l.isEmpty() && l.size() > spec.live() / 4) {
            boolean alloc = allocs < spec.allocations() && (l.size() < spec.live() || rnd.nextInt(3) == 0);
            if (alloc) {
                int pool = pools > 0 && allocs % 10 == 9 ? 1 + (allocs / 10) % pools : 0;
                long size = 512L * (1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 1 << 17 : 1 << 10));
                Block b = new Block(bump[pool], size, pool, rnd.nextInt(stackCount));
                bump[pool] += size;
                l.add(b);
                used[pool] += size;
                peak[pool] = Math.max(peak[pool], used[pool]);
                allocs++;
            } else {
                int i = rnd.nextInt(l.size());
                Block b = l.get(i);
                l.set(i, l.getLast());
                l.removeLast();
                used[b.pool] -= b.size;
            }
            if (allocs >= spec.allocations() && l.size() <= spec.live() / 4) {
                break;
            }
        }
        return l;
    }

    private static long writeTrace(PickleWriter w, Spec spec, SplittableRandom rnd, int[][] stacks, int[] lines, int fnPerFile,
                                   List<Block> live) throws IOException {
        int pools = spec.privatePools();
        long[] bump = new long[pools + 1];
        for (int p = 0; p <= pools; p++) {
            bump[p] = BASE + p * REGION;
        }
        for (Block b : live) {
            bump[0] = Math.max(bump[0], b.addr + b.size);
        }
        int allocs = 0;
        long entries = 0;
        long time = T0;
        int batch = 0;
        w.mark();
        while (allocs < spec.allocations() || !live.isEmpty() && live.size() > spec.live() / 4) {
            boolean alloc = allocs < spec.allocations() && (live.size() < spec.live() || rnd.nextInt(3) == 0);
            Block b;
            String action;
            if (alloc) {
                int pool = pools > 0 && allocs % 10 == 9 ? 1 + (allocs / 10) % pools : 0;
                long size = 512L * (1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 1 << 17 : 1 << 10));
                b = new Block(bump[pool], size, pool, rnd.nextInt(stacks.length));
                bump[pool] += size;
                live.add(b);
                allocs++;
                action = "alloc";
            } else {
                int i = rnd.nextInt(live.size());
                b = live.get(i);
                live.set(i, live.getLast());
                live.removeLast();
                action = "free_completed";
            }
            time += 4;
            w.dict().mark().str("action").str(action).str("addr").integer(b.addr).str("size").integer(b.size).str("stream").integer(0);
            if (spec.timed()) {
                w.str("time_us").integer(time);
            }
            w.str("compile_context").str("N/A");
            String meta = spec.phaseEvery() > 0 ? "train/phase" + (entries / spec.phaseEvery()) % 5 : "";
            w.str("user_metadata").str(meta);
            w.str("frames");
            frames(w, stacks[b.stack], lines, fnPerFile);
            w.setItems();
            entries++;
            if (++batch == 1000) {
                w.appends().mark();
                batch = 0;
            }
            if (allocs >= spec.allocations() && live.size() <= spec.live() / 4) {
                break;
            }
        }
        w.appends();
        return entries;
    }

    private static void frames(PickleWriter w, int[] stack, int[] lines, int fnPerFile) throws IOException {
        w.list().mark();
        for (int f : stack) {
            int file = f / fnPerFile;
            w.dict().mark().str("name").str("fn_" + file + "_" + (f % fnPerFile))
                    .str("filename").str("/work/project/src/module_" + file + ".py").str("line").integer(lines[f]).setItems();
        }
        w.appends();
    }
}
