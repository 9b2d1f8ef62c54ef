package dev.arenascope.core.pool.torch;

import java.util.ArrayList;
import java.util.List;

import dev.arenascope.core.trace.torch.TorchAllocatorTrace;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace.Device;
import dev.arenascope.core.util.LongLongMap;

/**
 * What a recorded run would have reserved under other allocator settings: the device's requests and
 * frees, in the file's order, through a {@link CachingAllocatorModel} on a {@link VirtualGpu} of the
 * settings' capacity. The replay starts from no segments: the blocks in use when the trace began are
 * requested first (in address order), then the trace's {@code alloc}, {@code free_requested} and
 * {@code free_completed} entries follow; the file's own segment entries and {@code oom}s are the
 * recording's decisions, not the program's, and are not replayed. Each request goes to the pool the
 * recording served it from ({@link SegmentPools}). At the first request the model cannot serve the
 * replay stops: the program would have raised {@code OutOfMemoryError} there.
 *
 * <p>{@link #recorded} gives the same figures for the file itself, from its segment entries and the state
 * at the start; where {@link SnapshotCheck} proves the model exact, the make-up of the recorded peak is
 * the model's replay of the file from that state.
 */
public final class WhatIfReplay {

    /**
     * What one replay found.
     *
     * @param settings       the settings replayed
     * @param reservedPeak   the most bytes reserved at once
     * @param peak           the reserved bytes at that peak, taken apart
     * @param requestedPeak  the most bytes requested and in use at once (the live peak)
     * @param segmentAllocs  {@code cudaMalloc}s (or page mappings) made
     * @param segmentFrees   {@code cudaFree}s (or unmappings) made
     * @param oomEntry       the trace entry whose request ran out of memory, -1 when none (-2: a block in use at the start)
     * @param oomBytes       that request's bytes
     * @param oomReserved    bytes reserved when it failed
     * @param requests       requests served
     * @param nanos          wall time of the replay
     */
    public record Outcome(AllocatorSettings settings, long reservedPeak, CachingAllocatorModel.Peak peak, long requestedPeak, long segmentAllocs,
                          long segmentFrees, long oomEntry, long oomBytes, long oomReserved, long requests, long nanos) {
        public boolean outOfMemory() {
            return oomEntry != -1;
        }
    }

    private WhatIfReplay() {}

    /**
     * A device's trace made ready for replays, built once and shared by every replay of it (read-only, so
     * replays on several threads may share it): each request, free request and free of the trace is given
     * a register, a small number that names the request's block for as long as it lives (registers are
     * reused once a block is freed, so a replay keeps its blocks in an array as long as the most blocks
     * live at once, not a map of addresses); and the pool each request was served from.
     */
    public static final class Prepared {
        final TorchAllocatorTrace.Device d;
        /** Per start block: its register (the first {@code startBlocks.size()} registers). */
        final List<TorchAllocatorTrace.Block> start;
        final int[] startPool;
        /** Per entry: the register its request, free request or free names, -1 for an entry a replay skips. */
        final int[] reg;
        /** Per entry: its request's pool, null when the snapshot has no private pools (every pool is 0). */
        final int[] pool;
        /** How many registers a replay needs. */
        final int registers;

        private Prepared(TorchAllocatorTrace.Device d) {
            this.d = d;
            this.start = d.startBlocks();
            SegmentPools pools = new SegmentPools(d);
            int n = d.entries();
            byte[] action = d.action();
            long[] address = d.address();
            reg = new int[n];
            pool = pools.any() ? new int[n] : null;
            startPool = new int[start.size()];
            LongLongMap live = new LongLongMap(); // recorded address -> register
            int[] spare = new int[64];
            int spareCount = 0;
            int next = 0;
            for (int k = 0; k < start.size(); k++) {
                TorchAllocatorTrace.Block b = start.get(k);
                startPool[k] = pools.poolOf(b.address());
                live.put(b.address(), next++, -1);
            }
            for (int i = 0; i < n; i++) {
                switch (action[i]) {
                    case TorchAllocatorTrace.ALLOC -> {
                        int r = spareCount > 0 ? spare[--spareCount] : next++;
                        // an address recorded twice without a free between: the older block stays in use, its register too
                        live.put(address[i], r, -1);
                        reg[i] = r;
                        if (pool != null) {
                            pool[i] = pools.poolOf(address[i]);
                        }
                    }
                    case TorchAllocatorTrace.FREE_REQUESTED -> reg[i] = (int) live.get(address[i], -1);
                    case TorchAllocatorTrace.FREE_COMPLETED -> {
                        int r = (int) live.remove(address[i], -1);
                        reg[i] = r;
                        if (r >= 0) {
                            if (spareCount == spare.length) {
                                spare = java.util.Arrays.copyOf(spare, spareCount * 2);
                            }
                            spare[spareCount++] = r;
                        }
                    }
                    default -> reg[i] = -1;
                }
            }
            registers = next;
        }

        /** The device prepared. */
        public TorchAllocatorTrace.Device device() {
            return d;
        }
    }

    /** Prepares device {@code d} for replays ({@link Prepared}): O(entries), once per device. */
    public static Prepared prepare(Device d) {
        return new Prepared(d);
    }

    /** Replays device {@code d} under {@code s}. */
    public static Outcome run(Device d, AllocatorSettings s) {
        return run(prepare(d), s);
    }

    /** Replays a prepared device under {@code s}. */
    public static Outcome run(Prepared p, AllocatorSettings s) {
        return run(p, s, null);
    }

    /**
     * Replays a prepared device under {@code s}, telling {@code events} what the model does (null: nothing).
     */
    public static Outcome run(Prepared p, AllocatorSettings s, AllocatorEvents events) {
        long t0 = System.nanoTime();
        Replay r = replay(p, s, events, p.d.entries(), null);
        return outcome(s, r.model, r.oomEntry, r.oomBytes, t0);
    }

    /**
     * The model's state after the first {@code entries} entries of a prepared device replayed under
     * {@code s} (the same replay as {@link #run}; where it runs out of memory before, its state there):
     * what the allocator state view draws for a what-if at an instant.
     */
    public static CachingAllocatorModel stateAfter(Prepared p, AllocatorSettings s, int entries) {
        return replay(p, s, null, Math.max(0, Math.min(entries, p.d.entries())), null).model;
    }

    /**
     * The bytes reserved after each entry of a prepared device replayed under {@code s} (the same replay
     * as {@link #run}): one value per entry, the last one repeated after an out-of-memory, where the replay
     * stops. What the timeline draws as the what-if's reserved line.
     */
    public static long[] reservedAfterEach(Prepared p, AllocatorSettings s) {
        long[] out = new long[p.d.entries()];
        Replay r = replay(p, s, null, p.d.entries(), out);
        if (r.oomEntry >= 0) {
            java.util.Arrays.fill(out, (int) r.oomEntry, out.length, r.model.reserved());
        } else if (r.oomEntry == -2) {
            java.util.Arrays.fill(out, r.model.reserved());
        }
        return out;
    }

    private record Replay(CachingAllocatorModel model, long oomEntry, long oomBytes) {}

    /** The replay of the first {@code upTo} entries; {@code reservedAfter}, where not null, gets the reserved bytes after each. */
    private static Replay replay(Prepared p, AllocatorSettings s, AllocatorEvents events, int upTo, long[] reservedAfter) {
        Device d = p.d;
        CachingAllocatorModel m = new CachingAllocatorModel(s, new VirtualGpu(s.capacity()), events, false);
        int[] slot = new int[Math.max(1, p.registers)];
        for (int k = 0; k < p.start.size(); k++) {
            TorchAllocatorTrace.Block b = p.start.get(k);
            int got = m.mallocSlot(b.requested(), b.stream(), p.startPool[k]);
            if (got < 0) {
                return new Replay(m, -2, b.requested());
            }
            slot[k] = got;
            if (b.pending()) {
                m.freeRequestedSlot(got);
            }
        }
        byte[] action = d.action();
        long[] size = d.size();
        long[] stream = d.stream();
        int[] reg = p.reg;
        int[] pool = p.pool;
        for (int i = 0; i < upTo; i++) {
            int r = reg[i];
            if (r >= 0) {
                switch (action[i]) {
                    case TorchAllocatorTrace.ALLOC -> {
                        int got = m.mallocSlot(size[i], stream[i], pool == null ? 0 : pool[i]);
                        if (got < 0) {
                            return new Replay(m, i, size[i]);
                        }
                        slot[r] = got;
                    }
                    case TorchAllocatorTrace.FREE_REQUESTED -> m.freeRequestedSlot(slot[r]);
                    case TorchAllocatorTrace.FREE_COMPLETED -> m.freeCompletedSlot(slot[r]);
                    default -> { }
                }
            }
            if (reservedAfter != null) {
                reservedAfter[i] = m.reserved();
            }
        }
        return new Replay(m, -1, 0);
    }

    /**
     * Replays a prepared device under each of {@code settings}, on up to {@code threads} threads at once
     * (each replay is independent; they share the prepared trace): the outcomes in the order of {@code settings}.
     */
    public static List<Outcome> runAll(Prepared p, List<AllocatorSettings> settings, int threads) {
        int t = Math.max(1, Math.min(threads, settings.size()));
        if (t == 1) {
            List<Outcome> out = new ArrayList<>(settings.size());
            for (AllocatorSettings s : settings) {
                out.add(run(p, s));
            }
            return out;
        }
        Outcome[] out = new Outcome[settings.size()];
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        RuntimeException[] failure = new RuntimeException[1];
        Thread[] workers = new Thread[t];
        for (int w = 0; w < t; w++) {
            workers[w] = Thread.ofPlatform().name("whatif-" + w).daemon().start(() -> {
                for (int k; (k = next.getAndIncrement()) < out.length; ) {
                    try {
                        out[k] = run(p, settings.get(k));
                    } catch (RuntimeException e) {
                        synchronized (failure) {
                            failure[0] = e;
                        }
                    }
                }
            });
        }
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while replaying the grid", e);
            }
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        return List.of(out);
    }

    /** Threads a grid's replays may use: the cores the JVM sees. */
    public static int defaultThreads() {
        return Runtime.getRuntime().availableProcessors();
    }

    private static Outcome outcome(AllocatorSettings s, CachingAllocatorModel m, long oomEntry, long oomBytes, long t0) {
        return new Outcome(s, m.reservedPeak(), m.peak(), m.requestedPeak(), m.segmentAllocs(), m.segmentFrees(), oomEntry, oomBytes,
                oomEntry == -1 ? 0 : m.reserved(), m.requests(), System.nanoTime() - t0);
    }

    /**
     * The recorded run's own figures: its reserved peak from the segments at the start and the segment
     * entries, its live peak from the blocks at the start and the requests and frees; the peak's make-up
     * from {@code replayed} (the model after an exact {@link SnapshotCheck}), or null where the model could
     * not reproduce the file.
     */
    public static Outcome recorded(TorchAllocatorTrace t, Device d, CachingAllocatorModel replayed) {
        long reserved = 0;
        for (TorchAllocatorTrace.Segment g : d.startSegments()) {
            reserved += g.size();
        }
        long live = 0;
        for (TorchAllocatorTrace.Block b : d.startBlocks()) {
            live += b.requested();
        }
        long reservedPeak = reserved, livePeak = live, allocs = 0, frees = 0, requests = 0, oom = -1, oomBytes = 0, oomReserved = 0;
        LongLongMap sizes = new LongLongMap();
        for (TorchAllocatorTrace.Block b : d.startBlocks()) {
            sizes.put(b.address(), b.requested(), 0);
        }
        for (int i = 0; i < d.entries(); i++) {
            long sz = d.size()[i];
            switch (d.action()[i]) {
                case TorchAllocatorTrace.SEGMENT_ALLOC, TorchAllocatorTrace.SEGMENT_MAP -> {
                    reserved += sz;
                    allocs++;
                }
                case TorchAllocatorTrace.SEGMENT_FREE, TorchAllocatorTrace.SEGMENT_UNMAP -> {
                    reserved -= sz;
                    frees++;
                }
                case TorchAllocatorTrace.ALLOC -> {
                    live += sz;
                    requests++;
                    sizes.put(d.address()[i], sz, 0);
                }
                case TorchAllocatorTrace.FREE_COMPLETED -> live -= sizes.remove(d.address()[i], 0);
                case TorchAllocatorTrace.OOM -> {
                    if (oom == -1) {
                        oom = i;
                        oomBytes = sz;
                        oomReserved = reserved;
                    }
                }
                default -> { }
            }
            reservedPeak = Math.max(reservedPeak, reserved);
            livePeak = Math.max(livePeak, live);
        }
        CachingAllocatorModel.Peak p = replayed == null ? null : replayed.peak();
        return new Outcome(AllocatorSettings.fromSnapshot(t.settings()), reservedPeak, p, livePeak, allocs, frees, oom, oomBytes, oomReserved,
                requests, 0);
    }

    /**
     * The common settings a {@code --grid} tries: the defaults, expandable segments, {@code
     * max_split_size_mb} of 64, 128, 256 and 512 (alone and with expandable segments for 128),
     * {@code roundup_power2_divisions} of 2, 4, 8 and 16, and garbage collection at 0.6 and 0.8 of
     * {@code base}'s capacity (where it has one; garbage collection acts only then). Each keeps
     * {@code base}'s capacity.
     */
    public static List<AllocatorSettings> grid(AllocatorSettings base) {
        AllocatorSettings d = new AllocatorSettings(AllocatorSettings.NO_LIMIT, AllocatorSettings.DEFAULTS.maxNonSplitRounding(), new int[16], 0,
                false, base.capacity());
        List<AllocatorSettings> g = new ArrayList<>();
        g.add(d);
        g.add(d.with("expandable_segments", "true"));
        for (String mb : new String[] {"64", "128", "256", "512"}) {
            g.add(d.with("max_split_size_mb", mb));
        }
        g.add(d.with("expandable_segments", "true").with("max_split_size_mb", "128"));
        for (String n : new String[] {"2", "4", "8", "16"}) {
            g.add(d.with("roundup_power2_divisions", n));
        }
        if (base.capacity() > 0) {
            g.add(d.with("garbage_collection_threshold", "0.6"));
            g.add(d.with("garbage_collection_threshold", "0.8"));
        } else {
            g.add(d.with("expandable_segments", "true").with("roundup_power2_divisions", "4"));
        }
        return g;
    }
}
