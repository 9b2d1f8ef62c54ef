package dev.arenascope.app.ui.slots;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.arenascope.core.pool.torch.AllocatorSettings;
import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.SnapshotCheck;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;

/**
 * A PyTorch snapshot made ready for the allocator state view's what-if: the file read as {@code
 * arenascope whatif} reads it, checked against the caching allocator model ({@link SnapshotCheck}), its
 * device prepared once ({@link WhatIfReplay#prepare}); then per setting the same replay the command
 * makes ({@link WhatIfReplay#run}), its reserved bytes after each entry for the timeline, and the model's
 * state at an instant for the map. One model, core's: nothing here decides what the allocator does.
 * Not thread-safe; built and asked on a worker thread.
 */
public final class AllocatorWhatIf {
    /** The settings the view offers, as {@code --set} takes them. */
    public static final List<String> KEYS = List.of("expandable_segments", "max_split_size_mb", "roundup_power2_divisions",
            "garbage_collection_threshold");

    private final TorchAllocatorTrace trace;
    private final TorchAllocatorTrace.Device device;
    private final SnapshotCheck.Result check;
    private final WhatIfReplay.Outcome recorded;
    private final WhatIfReplay.Prepared prepared;
    private final long[] entryNs;

    /**
     * What one what-if found: the outcome as {@code whatif}'s JSON reports it, the replay under the file's
     * own settings (the command's baseline, with the same capacity), and the reserved bytes after each entry.
     */
    public record Result(AllocatorSettings settings, WhatIfReplay.Outcome outcome, WhatIfReplay.Outcome baseline, long[] reservedAfter) {}

    private AllocatorWhatIf(TorchAllocatorTrace trace) {
        this.trace = trace;
        this.device = deviceOf(trace);
        this.check = SnapshotCheck.check(trace);
        CachingAllocatorModel replayed = check.exact() ? SnapshotCheck.replayed(trace, device) : null;
        this.recorded = WhatIfReplay.recorded(trace, device, replayed);
        this.prepared = WhatIfReplay.prepare(device);
        this.entryNs = entryTimes(trace, device);
    }

    /** Reads and checks {@code file} (a PyTorch snapshot); bad input throws as {@link TorchAllocatorTrace#read} does. */
    public static AllocatorWhatIf of(Path file) throws IOException {
        return new AllocatorWhatIf(TorchAllocatorTrace.read(file));
    }

    /** The device {@code whatif} replays by default: the first with trace entries. */
    static TorchAllocatorTrace.Device deviceOf(TorchAllocatorTrace t) {
        if (t.devices().isEmpty()) {
            throw new IllegalArgumentException(t.source() + ": the snapshot has no device");
        }
        for (TorchAllocatorTrace.Device d : t.devices()) {
            if (d.entries() > 0) {
                return d;
            }
        }
        return t.devices().getFirst();
    }

    /**
     * Each entry's instant on the window's time axis, as the import gives it ({@code TorchSnapshotToTrace}):
     * {@code time_us} from the earliest timed entry of any device, made non-decreasing, or one microsecond
     * an entry where the device's entries are not all timed.
     */
    static long[] entryTimes(TorchAllocatorTrace t, TorchAllocatorTrace.Device d) {
        long t0 = Long.MAX_VALUE;
        for (TorchAllocatorTrace.Device x : t.devices()) {
            long min = Long.MAX_VALUE;
            boolean timed = true;
            for (long us : x.time()) {
                if (us < 0) {
                    timed = false;
                    break;
                }
                min = Math.min(min, us);
            }
            if (timed && x.entries() > 0) {
                t0 = Math.min(t0, min);
            }
        }
        boolean timed = t0 != Long.MAX_VALUE;
        for (long us : d.time()) {
            timed &= us >= 0;
        }
        long[] out = new long[d.entries()];
        long last = 0;
        for (int i = 0; i < out.length; i++) {
            long ns = timed ? (d.time()[i] - t0) * 1000 : i * 1000L;
            last = Math.max(last, ns);
            out[i] = last;
        }
        return out;
    }

    /** The settings {@code whatif --capacity C --set K=V ...} replays: the file's own, the capacity, then each {@code KEY=VALUE}. */
    public AllocatorSettings settings(String capacity, List<String> sets) {
        AllocatorSettings s = fileSettings(capacity);
        for (String kv : sets) {
            s = s.withConf(kv);
        }
        return s;
    }

    /** The file's own settings, with {@code capacity} where it is not blank: the command's baseline. */
    public AllocatorSettings fileSettings(String capacity) {
        AllocatorSettings s = AllocatorSettings.fromSnapshot(trace.settings());
        return capacity == null || capacity.isBlank() ? s : s.with("capacity", capacity.strip());
    }

    /** Replays the device under {@code s} (and under the file's settings with the same capacity, the baseline). */
    public Result run(AllocatorSettings s) {
        AllocatorSettings base = AllocatorSettings.fromSnapshot(trace.settings());
        if (s.capacity() > 0) {
            base = base.with("capacity", Long.toString(s.capacity()));
        }
        WhatIfReplay.Outcome o = WhatIfReplay.run(prepared, s);
        WhatIfReplay.Outcome b = base.equals(s) ? o : WhatIfReplay.run(prepared, base);
        return new Result(s, o, b, WhatIfReplay.reservedAfterEach(prepared, s));
    }

    /** The entries at or before {@code atNs} (the map after them is the state at that instant). */
    public int entriesAt(long atNs) {
        int lo = 0;
        int hi = entryNs.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (entryNs[mid] <= atNs) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The instant of each entry ({@link #entryTimes}). */
    public long[] entryNs() {
        return entryNs.clone();
    }

    /**
     * The what-if's state at {@code atNs} as an address map of {@code memory}: the model's segments (their
     * addresses the model's own, not the recording's) and its blocks in use or pending, each its block
     * size with the bytes asked for.
     */
    public AddressMap.Snapshot stateAt(AllocatorSettings s, MemoryInfo memory, long atNs) {
        int n = entriesAt(atNs);
        CachingAllocatorModel m = WhatIfReplay.stateAfter(prepared, s, n);
        List<AddressMap.Block> blocks = new ArrayList<>();
        long gap = 0;
        long largest = 0;
        long lo = Long.MAX_VALUE;
        long hi = 0;
        for (CachingAllocatorModel.SegmentInfo g : m.segments()) {
            blocks.add(new AddressMap.Block(g.address(), g.size(), AddressMap.State.RESERVED, "segment", -1));
            lo = Math.min(lo, g.address());
            hi = Math.max(hi, g.address() + g.size());
            for (CachingAllocatorModel.BlockInfo b : g.blocks()) {
                if (b.pending()) {
                    blocks.add(new AddressMap.Block(b.address(), b.size(), AddressMap.State.PENDING_FREE, "", -1, b.requested(), -1, -1));
                } else if (b.inUse()) {
                    blocks.add(new AddressMap.Block(b.address(), b.size(), AddressMap.State.IN_USE, "", -1, b.requested(), -1, -1));
                } else {
                    gap += b.size();
                    largest = Math.max(largest, b.size());
                }
            }
        }
        blocks.sort((a, b) -> a.start() != b.start() ? Long.compare(a.start(), b.start())
                : Boolean.compare(a.state() != AddressMap.State.RESERVED, b.state() != AddressMap.State.RESERVED));
        long base = lo == Long.MAX_VALUE ? 0 : lo;
        return new AddressMap.Snapshot(memory, atNs, List.copyOf(blocks), base, Math.max(1, hi - base), gap, largest, n, -1, "", null);
    }

    public SnapshotCheck.Result check() {
        return check;
    }

    /** The recorded run's own figures ({@link WhatIfReplay#recorded}), as the command's {@code recorded}. */
    public WhatIfReplay.Outcome recorded() {
        return recorded;
    }

    public TorchAllocatorTrace.Device device() {
        return device;
    }
}
