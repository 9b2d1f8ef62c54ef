package dev.arenascope.core.pool.torch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.trace.torch.TorchAllocatorTrace;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace.Device;

/**
 * Proves the {@link CachingAllocatorModel} on a snapshot: replays each device's trace under the file's
 * own {@code allocator_settings}, from the state when the trace began, and compares what the model does
 * with what the file recorded, entry by entry: every request's address (so its segment and its offset in
 * it), every {@code segment_alloc} / {@code segment_free} / {@code segment_map} / {@code segment_unmap}
 * (which, of what size, in which order), every out-of-memory, every free of a block the model holds; and
 * at the end the segments and the blocks in use of the file's final state.
 *
 * <p>The device answers as the file says: a {@code cudaMalloc} succeeds when the entries the file recorded
 * just before the request begin with a {@code segment_alloc} (whose address it returns), and fails when
 * they begin with a {@code segment_free} or the request ended in an {@code oom}: so the check needs no
 * capacity, and the releases and retries the model then makes must be the file's. Segment entries before
 * an entry that is not a request are an {@code empty_cache()}.
 *
 * <p>The starting state: segments and blocks in use from {@link TorchAllocatorTrace} (the final state run
 * backwards). A block live at the start and freed in the trace is known by its request alone; the model
 * rounds it and infers its tail: the first request the file places after it, before the next block in use
 * and while it lives, starts where it ends (free blocks always follow a block in use, free neighbours being
 * merged); without one, a remainder too small to have been split off (1 MiB or less in the large pool,
 * under {@code max_non_split_rounding} for an oversize block) is its tail. Where that guess is wrong the
 * check says where the replay first parts from the file.
 */
public final class SnapshotCheck {

    /**
     * The verdict.
     *
     * @param exact   every entry and the final state agree
     * @param device  the device that diverged (-1 when exact)
     * @param entry   the index of the entry in its {@code device_traces} list where they part (-1: in the final state)
     * @param action  that entry's action
     * @param model   what the model did there
     * @param file    what the file says
     * @param entries entries checked
     * @param requests requests checked
     * @param segmentEvents segment entries checked
     * @param inferred start blocks whose size was inferred
     */
    public record Result(boolean exact, int device, long entry, String action, String model, String file, long entries, long requests,
                         long segmentEvents, long inferred) {
        /** {@code model: exact} or the first divergence in one line. */
        public String line() {
            if (exact) {
                return "model: exact";
            }
            String where = entry >= 0 ? "entry " + entry + " (" + action + ")" : "the final state";
            return "model: diverges at " + where + " on device " + device + ": model " + model + "; file " + file;
        }
    }

    private SnapshotCheck() {}

    /** Checks every device, stopping at the first divergence. */
    public static Result check(TorchAllocatorTrace t) {
        AllocatorSettings s = AllocatorSettings.fromSnapshot(t.settings());
        long entries = 0, requests = 0, seg = 0, inferred = 0;
        for (Device d : t.devices()) {
            Replay r = new Replay(d, s);
            Result res = r.run();
            if (!res.exact()) {
                return res;
            }
            entries += res.entries();
            requests += res.requests();
            seg += res.segmentEvents();
            inferred += res.inferred();
        }
        return new Result(true, -1, -1, "", "", "", entries, requests, seg, inferred);
    }

    /** The model after replaying device {@code d} under the file's settings from its starting state, or null where it diverged. */
    public static CachingAllocatorModel replayed(TorchAllocatorTrace t, Device d) {
        Replay r = new Replay(d, AllocatorSettings.fromSnapshot(t.settings()));
        return r.run().exact() ? r.model : null;
    }

    /** The starting state of device {@code d} for the model: sizes of blocks freed in the trace inferred as described above. */
    static List<CachingAllocatorModel.StartBlock> startBlocks(Device d, AllocatorSettings s, long[] inferredOut) {
        List<TorchAllocatorTrace.Block> blocks = d.startBlocks();
        List<TorchAllocatorTrace.Segment> segs = d.startSegments();
        int n = blocks.size();
        long[] addr = new long[n];
        long[] end = new long[n];
        long[] limit = new long[n];
        long[] freeRow = new long[n];
        boolean[] open = new boolean[n];
        long[] segBase = new long[segs.size()];
        for (int i = 0; i < segs.size(); i++) {
            segBase[i] = segs.get(i).address();
        }
        for (int i = 0; i < n; i++) {
            TorchAllocatorTrace.Block b = blocks.get(i);
            addr[i] = b.address();
            end[i] = b.sizeKnown() ? b.address() + b.size() : b.address() + CachingAllocatorModel.roundSize(s, b.requested());
            int si = floor(segBase, b.address());
            long segEnd = si < 0 ? end[i] : segs.get(si).address() + segs.get(si).size();
            limit[i] = i + 1 < n ? Math.min(segEnd, blocks.get(i + 1).address()) : segEnd;
            open[i] = !b.sizeKnown();
            freeRow[i] = Long.MAX_VALUE;
        }
        long inferred = 0;
        if (n > 0) {
            // the row that frees each inferred block, then the first request placed in its tail while it lives
            for (int r = 0; r < d.entries(); r++) {
                byte a = d.action()[r];
                if (a != TorchAllocatorTrace.FREE_COMPLETED && a != TorchAllocatorTrace.ALLOC) {
                    continue;
                }
                int k = floor(addr, d.address()[r]);
                if (k < 0 || !open[k]) {
                    continue;
                }
                if (a == TorchAllocatorTrace.FREE_COMPLETED && addr[k] == d.address()[r] && freeRow[k] == Long.MAX_VALUE) {
                    freeRow[k] = r;
                    open[k] = false; // no evidence while it lived
                } else if (a == TorchAllocatorTrace.ALLOC && d.address()[r] >= end[k] && d.address()[r] < limit[k]) {
                    end[k] = d.address()[r];
                    open[k] = false;
                    freeRow[k] = -1; // resolved
                }
            }
        }
        List<CachingAllocatorModel.StartBlock> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            TorchAllocatorTrace.Block b = blocks.get(i);
            long size = end[i] - addr[i];
            if (!b.sizeKnown()) {
                inferred++;
                if (freeRow[i] != -1) {
                    int si = floor(segBase, b.address());
                    boolean small = si >= 0 && segs.get(si).small();
                    long rest = limit[i] - end[i];
                    long rounded = size;
                    boolean oversize = rounded >= s.maxSplitSize();
                    if (!small && !s.expandableSegments() && rest > 0
                            && (oversize ? rest < s.maxNonSplitRounding() : rest <= CachingAllocatorModel.SMALL_SIZE)) {
                        size = limit[i] - addr[i]; // too small a remainder to have been split off
                    }
                }
            }
            out.add(new CachingAllocatorModel.StartBlock(b.address(), size, b.requested(), b.pending()));
        }
        if (inferredOut != null) {
            inferredOut[0] = inferred;
        }
        return out;
    }

    private static int floor(long[] sorted, long v) {
        int i = Arrays.binarySearch(sorted, v);
        return i >= 0 ? i : -i - 2;
    }

    /** A device that answers as the file recorded: the segment entries just before the current entry. */
    private static final class FileDevice implements SegmentDevice {
        final Device d;
        int pos;
        int end;
        String problem;

        FileDevice(Device d) {
            this.d = d;
        }

        void run(int from, int to) {
            pos = from;
            end = to;
        }

        boolean next(byte action) {
            return pos < end && d.action()[pos] == action;
        }

        void differ(String what) {
            if (problem == null) {
                problem = what;
            }
        }

        String nextText() {
            return pos < end ? Device.actionName(d.action()[pos]) + " " + Fmt.bytes(d.size()[pos]) + " at " + Fmt.hex(d.address()[pos])
                    : "nothing more before the entry";
        }

        @Override
        public long malloc(long bytes) {
            if (next(TorchAllocatorTrace.SEGMENT_ALLOC)) {
                if (d.size()[pos] != bytes) {
                    differ("cudaMalloc " + Fmt.bytes(bytes) + "; file segment_alloc " + Fmt.bytes(d.size()[pos]) + " at " + Fmt.hex(d.address()[pos]));
                }
                return d.address()[pos++];
            }
            return -1;
        }

        @Override
        public void free(long address, long bytes) {
            if (next(TorchAllocatorTrace.SEGMENT_FREE) && d.address()[pos] == address && d.size()[pos] == bytes) {
                pos++;
                return;
            }
            differ("segment_free " + Fmt.bytes(bytes) + " at " + Fmt.hex(address) + "; file " + nextText());
        }

        @Override
        public long reserve(long bytes) {
            return next(TorchAllocatorTrace.SEGMENT_MAP) ? d.address()[pos] : -1;
        }

        @Override
        public boolean map(long address, long bytes) {
            if (next(TorchAllocatorTrace.SEGMENT_MAP)) {
                if (d.address()[pos] == address && d.size()[pos] == bytes) {
                    pos++;
                    return true;
                }
                differ("segment_map " + Fmt.bytes(bytes) + " at " + Fmt.hex(address) + "; file " + nextText());
            }
            return false;
        }

        @Override
        public void unmap(long address, long bytes) {
            if (next(TorchAllocatorTrace.SEGMENT_UNMAP) && d.address()[pos] == address && d.size()[pos] == bytes) {
                pos++;
                return;
            }
            differ("segment_unmap " + Fmt.bytes(bytes) + " at " + Fmt.hex(address) + "; file " + nextText());
        }

        @Override
        public long freeBytes() {
            return 0;
        }
    }

    private static boolean segmentAction(byte a) {
        return a == TorchAllocatorTrace.SEGMENT_ALLOC || a == TorchAllocatorTrace.SEGMENT_FREE || a == TorchAllocatorTrace.SEGMENT_MAP
                || a == TorchAllocatorTrace.SEGMENT_UNMAP;
    }

    private static final class Replay {
        final Device d;
        final AllocatorSettings s;
        final SegmentPools pools;
        final FileDevice dev;
        final CachingAllocatorModel model;
        long requests;
        long segEvents;
        long inferred;

        Replay(Device d, AllocatorSettings s) {
            this.d = d;
            this.s = s;
            this.pools = new SegmentPools(d);
            this.dev = new FileDevice(d);
            this.model = new CachingAllocatorModel(s, dev, null);
        }

        Result differ(long entry, String model, String file) {
            String action = entry >= 0 ? Device.actionName(d.action()[(int) entry]) : "";
            return new Result(false, d.index(), entry, action, model, file, d.entries(), requests, segEvents, inferred);
        }

        Result run() {
            List<CachingAllocatorModel.StartSegment> segs = new ArrayList<>();
            for (TorchAllocatorTrace.Segment g : d.startSegments()) {
                segs.add(new CachingAllocatorModel.StartSegment(g.address(), g.size(), g.stream(), pools.id(g.pool()), g.small(), g.expandable()));
            }
            long[] inf = new long[1];
            try {
                model.start(segs, startBlocks(d, s, inf));
            } catch (IllegalArgumentException e) {
                return differ(0, "cannot build the state at the first entry: " + e.getMessage(), "its segments and blocks as above");
            }
            inferred = inf[0];
            int n = d.entries();
            int runFrom = 0;
            for (int i = 0; i < n; i++) {
                byte a = d.action()[i];
                if (segmentAction(a)) {
                    segEvents++;
                    continue;
                }
                dev.run(runFrom, i);
                runFrom = i + 1;
                long addr = d.address()[i];
                long size = d.size()[i];
                switch (a) {
                    case TorchAllocatorTrace.ALLOC, TorchAllocatorTrace.OOM -> {
                        requests++;
                        int pool = a == TorchAllocatorTrace.ALLOC ? pools.poolOf(addr) : 0;
                        long got = model.malloc(size, d.stream()[i], pool);
                        String where = got < 0 ? "ran out of memory" : "placed it at " + Fmt.hex(got);
                        if (dev.problem != null) {
                            return differ(i, dev.problem.split("; file ")[0] + " for a request of " + Fmt.bytes(size),
                                    dev.problem.contains("; file ") ? dev.problem.split("; file ")[1] : "");
                        }
                        if (dev.pos < dev.end) {
                            return differ(i, "made no more segment changes for a request of " + Fmt.bytes(size) + " (" + where + ")",
                                    "next " + dev.nextText());
                        }
                        if (a == TorchAllocatorTrace.OOM) {
                            if (got >= 0) {
                                return differ(i, where + " (" + Fmt.bytes(size) + ")", "out of memory");
                            }
                        } else if (got != addr) {
                            return differ(i, where + " (" + Fmt.bytes(size) + ")", "placed it at " + Fmt.hex(addr));
                        }
                    }
                    default -> {
                        if (dev.pos < dev.end) { // segments given back outside a request: empty_cache()
                            model.emptyCache();
                            if (dev.problem != null || dev.pos < dev.end) {
                                return differ(i, "empty_cache: " + (dev.problem != null ? dev.problem : "gave back less"), "next " + dev.nextText());
                            }
                        }
                        if (a == TorchAllocatorTrace.FREE_REQUESTED) {
                            if (!model.inUse(addr)) {
                                return differ(i, "holds no block at " + Fmt.hex(addr), "frees one there");
                            }
                            model.freeRequested(addr);
                        } else if (a == TorchAllocatorTrace.FREE_COMPLETED) {
                            if (!model.freeCompleted(addr)) {
                                return differ(i, "holds no block at " + Fmt.hex(addr), "frees one there");
                            }
                        }
                    }
                }
            }
            if (runFrom < n) {
                dev.run(runFrom, n);
                model.emptyCache();
                if (dev.problem != null || dev.pos < dev.end) {
                    return differ(runFrom, "empty_cache: " + (dev.problem != null ? dev.problem : "gave back less"), "next " + dev.nextText());
                }
            }
            return compareFinal();
        }

        Result compareFinal() {
            List<CachingAllocatorModel.SegmentInfo> mine = model.segments();
            List<TorchAllocatorTrace.Segment> theirs = d.finalSegments();
            int k = 0;
            List<TorchAllocatorTrace.Block> fb = d.finalBlocks();
            for (int i = 0; i < Math.max(mine.size(), theirs.size()); i++) {
                if (i >= mine.size()) {
                    return differ(-1, "has no segment at " + Fmt.hex(theirs.get(i).address()), "a segment of " + Fmt.bytes(theirs.get(i).size()));
                }
                CachingAllocatorModel.SegmentInfo m = mine.get(i);
                if (i >= theirs.size() || theirs.get(i).address() != m.address() || theirs.get(i).size() != m.size()) {
                    String f = i >= theirs.size() ? "none" : "a segment of " + Fmt.bytes(theirs.get(i).size()) + " at " + Fmt.hex(theirs.get(i).address());
                    return differ(-1, "a segment of " + Fmt.bytes(m.size()) + " at " + Fmt.hex(m.address()), f);
                }
                for (CachingAllocatorModel.BlockInfo b : m.blocks()) {
                    if (!b.inUse()) {
                        continue;
                    }
                    TorchAllocatorTrace.Block f = k < fb.size() ? fb.get(k) : null;
                    if (f == null || f.address() != b.address() || f.size() != b.size() || f.pending() != b.pending()) {
                        return differ(-1, "a block in use of " + Fmt.bytes(b.size()) + " at " + Fmt.hex(b.address()),
                                f == null ? "none" : "a block in use of " + Fmt.bytes(f.size()) + " at " + Fmt.hex(f.address()));
                    }
                    k++;
                }
            }
            if (k < fb.size()) {
                return differ(-1, "no block in use at " + Fmt.hex(fb.get(k).address()), "one of " + Fmt.bytes(fb.get(k).size()));
            }
            return new Result(true, -1, -1, "", "", "", d.entries(), requests, segEvents, inferred);
        }
    }

    /** Byte counts and addresses as the check's lines print them. */
    static final class Fmt {
        static String bytes(long b) {
            return String.format(Locale.ROOT, "%,d B", b);
        }

        static String hex(long a) {
            return String.format(Locale.ROOT, "0x%x", a);
        }
    }
}
