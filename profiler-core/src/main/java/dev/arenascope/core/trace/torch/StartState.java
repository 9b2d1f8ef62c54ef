package dev.arenascope.core.trace.torch;

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
        TreeMap<Long, Snapshot.Segment> segs = new TreeMap<>();
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
                    case TraceEntries.SEGMENT_MAP -> unmapped(segs, addr, e.size(r));
                    case TraceEntries.SEGMENT_UNMAP -> mapped(segs, addr, e.size(r), e.stream(r));
                    default -> { }
                }
            }
        }
        return new StartState(alive, requested, segs);
    }

    /**
     * Before a {@code segment_map} of {@code size} at {@code addr}, those bytes were not mapped: they leave
     * the expandable segment (a mapped range) that holds them, which may shrink from either end or part in two.
     */
    private static void unmapped(TreeMap<Long, Snapshot.Segment> segs, long addr, long size) {
        Map.Entry<Long, Snapshot.Segment> f = segs.floorEntry(addr);
        if (f == null || f.getValue().addr() + f.getValue().size() <= addr) {
            return;
        }
        Snapshot.Segment s = f.getValue();
        long end = s.addr() + s.size();
        segs.remove(s.addr());
        if (addr > s.addr()) {
            segs.put(s.addr(), new Snapshot.Segment(s.addr(), addr - s.addr(), s.stream(), s.pool(), s.small(), true));
        }
        if (addr + size < end) {
            segs.put(addr + size, new Snapshot.Segment(addr + size, end - addr - size, s.stream(), s.pool(), s.small(), true));
        }
    }

    /**
     * Before a {@code segment_unmap} of {@code size} at {@code addr}, those bytes were mapped: they join the
     * expandable segments just below and just above them into one mapped range.
     */
    private static void mapped(TreeMap<Long, Snapshot.Segment> segs, long addr, long size, long stream) {
        long start = addr;
        long end = addr + size;
        String pool = null;
        Boolean small = null;
        Map.Entry<Long, Snapshot.Segment> below = segs.lowerEntry(addr);
        if (below != null && below.getValue().expandable() && below.getValue().addr() + below.getValue().size() == addr) {
            Snapshot.Segment b = segs.remove(below.getKey());
            start = b.addr();
            pool = b.pool();
            small = b.small();
        }
        Snapshot.Segment above = segs.get(end);
        if (above != null && above.expandable()) {
            segs.remove(end);
            end = above.addr() + above.size();
            pool = pool == null ? above.pool() : pool;
            small = small == null ? above.small() : small;
        }
        segs.put(start, new Snapshot.Segment(start, end - start, stream, pool, small == null ? size == 2L << 20 : small, true));
    }
}
