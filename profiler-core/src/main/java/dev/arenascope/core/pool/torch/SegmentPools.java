package dev.arenascope.core.pool.torch;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.trace.torch.TorchAllocatorTrace;

/**
 * Which pool a recorded address was served from: the private pool ({@code segment_pool_id}, e.g. a CUDA
 * graph's) of the segment that holds it, in the state at the start or at the end; 0 for the default
 * pools. A replay sends each request to the pool the recording served it from, since which requests a
 * capture made is not in the trace otherwise.
 */
final class SegmentPools {
    private final TreeMap<Long, long[]> ranges = new TreeMap<>(); // address -> {end, pool}
    private final Map<String, Integer> ids = new HashMap<>();

    SegmentPools(TorchAllocatorTrace.Device d) {
        for (TorchAllocatorTrace.Segment s : d.startSegments()) {
            add(s);
        }
        for (TorchAllocatorTrace.Segment s : d.finalSegments()) {
            add(s);
        }
    }

    private void add(TorchAllocatorTrace.Segment s) {
        int id = id(s.pool());
        if (id != 0) {
            ranges.put(s.address(), new long[] {s.address() + s.size(), id});
        }
    }

    /** The model's number for a pool name (null: the default pools, 0). */
    int id(String pool) {
        if (pool == null || pool.equals("0.0") || pool.equals("(0, 0)")) {
            return 0;
        }
        return ids.computeIfAbsent(pool, p -> ids.size() + 1);
    }

    /** The pool a block recorded at {@code address} belongs to. */
    int poolOf(long address) {
        if (ranges.isEmpty()) {
            return 0;
        }
        var e = ranges.floorEntry(address);
        return e != null && address < e.getValue()[0] ? (int) e.getValue()[1] : 0;
    }

    /** Whether the snapshot has private pools at all. */
    boolean any() {
        return !ranges.isEmpty();
    }
}
