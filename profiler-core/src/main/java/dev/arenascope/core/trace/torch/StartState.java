package dev.arenascope.core.trace.torch;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.arenascope.core.util.LongLongMap;

/**
 * What one device held when its trace began, found the way PyTorch's own viewer finds it: start from
 * the snapshot's final state and run the trace backwards (an {@code alloc} means the block was not
 * live before it, a {@code free_completed} that it was; a {@code segment_alloc} that the segment did not
 * exist yet, a {@code segment_free} that it did; {@code segment_map} / {@code segment_unmap} shrink and
 * grow an expandable segment's mapped bytes). The import ({@link SnapshotEmitter}) and the caching
 * allocator's replay ({@link TorchAllocatorTrace}) both start from it.
 *
 * @param alive     address of each block live at the start → the row of the {@code free_completed} that
 *                  ends it in the trace ({@code >= 0}), or {@code -1 - i} for {@code blocks.get(i)} of the
 *                  final state (live from before the trace to its end)
 * @param requested final-state blocks whose {@code free_requested} is in the trace
 * @param segments  the segments at the start, by address
 */
record StartState(LongLongMap alive, LongLongMap requested, TreeMap<Long, Snapshot.Segment> segments) {

    static StartState of(TraceEntries e, int[] rows, List<Snapshot.Segment> finalSegments, List<Snapshot.Block> finalBlocks) {
        Map<Long, Snapshot.Segment> segs = new HashMap<>();
        for (Snapshot.Segment s : finalSegments) {
            segs.put(s.addr(), s);
        }
        LongLongMap alive = new LongLongMap();
        LongLongMap requested = new LongLongMap();
        for (int i = 0; i < finalBlocks.size(); i++) {
            alive.put(finalBlocks.get(i).addr(), -1L - i, 0);
        }
        if (rows != null) {
            for (int i = rows.length - 1; i >= 0; i--) {
                int r = rows[i];
                long addr = e.addr(r);
                switch (e.action(r)) {
                    case TraceEntries.ALLOC -> alive.remove(addr, 0);
                    case TraceEntries.FREE_COMPLETED -> alive.put(addr, r, 0);
                    case TraceEntries.FREE_REQUESTED -> {
                        if (alive.get(addr, 0) < 0) {
                            requested.put(addr, 1, 0);
                        }
                    }
                    case TraceEntries.SEGMENT_ALLOC -> segs.remove(addr);
                    case TraceEntries.SEGMENT_FREE -> segs.put(addr, new Snapshot.Segment(addr, e.size(r), e.stream(r), null));
                    case TraceEntries.SEGMENT_MAP -> {
                        Snapshot.Segment s = segs.get(addr);
                        if (s != null) {
                            long left = s.size() - e.size(r);
                            if (left > 0) {
                                segs.put(addr, new Snapshot.Segment(addr, left, s.stream(), s.pool(), s.small(), true));
                            } else {
                                segs.remove(addr);
                            }
                        }
                    }
                    case TraceEntries.SEGMENT_UNMAP -> {
                        Snapshot.Segment s = segs.get(addr);
                        segs.put(addr, new Snapshot.Segment(addr, (s == null ? 0 : s.size()) + e.size(r), e.stream(r), s == null ? null : s.pool(),
                                s == null ? e.size(r) == 2L << 20 : s.small(), true));
                    }
                    default -> { }
                }
            }
        }
        return new StartState(alive, requested, new TreeMap<>(segs));
    }
}
