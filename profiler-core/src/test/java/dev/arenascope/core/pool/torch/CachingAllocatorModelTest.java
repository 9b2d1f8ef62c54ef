package dev.arenascope.core.pool.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Each rule of the caching allocator on a case worked by hand (sizes in MiB unless said). */
class CachingAllocatorModelTest {
    static final long KIB = 1L << 10, MIB = 1L << 20;
    static final long BASE = VirtualGpu.BASE;

    /** What the model did, as trace lines: {@code segment_alloc 20971520}, {@code alloc 3145728 @0}, … (addresses relative to the first segment). */
    static final class Log implements AllocatorEvents {
        final List<String> lines = new ArrayList<>();

        @Override
        public void segmentAlloc(long address, long bytes, long stream) {
            lines.add("segment_alloc " + bytes / KIB + "K @" + (address - BASE) / KIB + "K");
        }

        @Override
        public void segmentFree(long address, long bytes, long stream) {
            lines.add("segment_free " + bytes / KIB + "K @" + (address - BASE) / KIB + "K");
        }

        @Override
        public void segmentMap(long address, long bytes, long stream) {
            lines.add("segment_map " + bytes / MIB + "M");
        }

        @Override
        public void segmentUnmap(long address, long bytes, long stream) {
            lines.add("segment_unmap " + bytes / MIB + "M");
        }

        @Override
        public void outOfMemory(long rounded, long stream, long deviceFree) {
            lines.add("oom " + rounded / KIB + "K");
        }
    }

    static CachingAllocatorModel model(AllocatorSettings s, Log log) {
        return new CachingAllocatorModel(s, new VirtualGpu(s.capacity()), log);
    }

    static AllocatorSettings set(String... kv) {
        AllocatorSettings s = AllocatorSettings.DEFAULTS;
        for (int i = 0; i < kv.length; i += 2) {
            s = s.with(kv[i], kv[i + 1]);
        }
        return s;
    }

    @Test
    void sizesRoundTo512Bytes() {
        AllocatorSettings d = AllocatorSettings.DEFAULTS;
        assertEquals(512, CachingAllocatorModel.roundSize(d, 1));
        assertEquals(512, CachingAllocatorModel.roundSize(d, 512));
        assertEquals(1024, CachingAllocatorModel.roundSize(d, 513));
        assertEquals(5 * MIB + 512, CachingAllocatorModel.roundSize(d, 5 * MIB + 1));
    }

    @Test
    void powerOfTwoDivisionsRoundToTheNextStep() {
        AllocatorSettings four = set("roundup_power2_divisions", "4");
        // 5 MiB + 1 lies in [4, 8) MiB: steps of 1 MiB
        assertEquals(6 * MIB, CachingAllocatorModel.roundSize(four, 5 * MIB + 1));
        assertEquals(8 * MIB, CachingAllocatorModel.roundSize(four, 8 * MIB));
        // 1200 B is not above 512 * 4: plain rounding
        assertEquals(1536, CachingAllocatorModel.roundSize(four, 1200));
        // PyTorch's own example of the step function: 1200 in 4 divisions of [1024, 2048) -> 1280
        assertEquals(1280, CachingAllocatorModel.roundToDivision(1200, 4));
        // per interval, read as PyTorch reads it: [4:2,>:8] -> 2 below 8 MiB (the first value fills down),
        // and '>' fills from the last interval named (4 MiB, index 2) up: 8 from 4 MiB on
        AllocatorSettings per = set("roundup_power2_divisions", "[4:2,>:8]");
        assertEquals(4 * MIB, CachingAllocatorModel.roundSize(per, 3 * MIB + 1), "[2, 4) MiB in 2 steps of 1 MiB");
        assertEquals(5 * MIB + MIB / 2, CachingAllocatorModel.roundSize(per, 5 * MIB + 1), "[4, 8) MiB in 8 steps of 512 KiB");
        assertEquals(1024 * MIB + 128 * MIB, CachingAllocatorModel.roundSize(per, 1024 * MIB + 1));
        assertThrows(IllegalArgumentException.class, () -> set("roundup_power2_divisions", "3"));
    }

    @Test
    void segmentSizesPerPool() {
        assertEquals(2 * MIB, CachingAllocatorModel.segmentSize(MIB));
        assertEquals(20 * MIB, CachingAllocatorModel.segmentSize(MIB + 512));
        assertEquals(20 * MIB, CachingAllocatorModel.segmentSize(10 * MIB - 512));
        assertEquals(10 * MIB, CachingAllocatorModel.segmentSize(10 * MIB));
        assertEquals(12 * MIB, CachingAllocatorModel.segmentSize(11 * MIB));
    }

    @Test
    void smallRequestsShareOneTwoMiBSegment() {
        Log log = new Log();
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, log);
        long a = m.malloc(100, 0, 0);
        long b = m.malloc(700, 0, 0);
        assertEquals(BASE, a);
        assertEquals(BASE + 512, b, "the second takes the front of the remainder");
        assertEquals(List.of("segment_alloc 2048K @0K"), log.lines);
        assertEquals(2 * MIB, m.reserved());
        assertEquals(512 + 1024, m.activeBytes());
        assertEquals(800, m.requestedBytes());
    }

    @Test
    void largeRequestsUnderTenMiBSplitATwentyMiBSegment() {
        Log log = new Log();
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, log);
        long a = m.malloc(3 * MIB, 0, 0);
        long b = m.malloc(3 * MIB, 0, 0);
        assertEquals(BASE, a);
        assertEquals(BASE + 3 * MIB, b);
        assertEquals(List.of("segment_alloc 20480K @0K"), log.lines);
        var seg = m.segments().getFirst();
        assertEquals(20 * MIB, seg.size());
        assertEquals(3, seg.blocks().size());
        assertEquals(14 * MIB, seg.blocks().get(2).size());
    }

    @Test
    void aLargeRemainderOfOneMiBOrLessIsNotSplitOff() {
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, new Log());
        m.malloc(19 * MIB, 0, 0); // its segment is 20 MiB; 1 MiB left: kept in the block
        var seg = m.segments().getFirst();
        assertEquals(1, seg.blocks().size());
        assertEquals(20 * MIB, seg.blocks().getFirst().size());
        assertEquals(MIB, m.peak().rounding());
        CachingAllocatorModel n = model(AllocatorSettings.DEFAULTS, new Log());
        n.malloc(19 * MIB - 512, 0, 0); // 1 MiB + 512 left: split
        assertEquals(2, n.segments().getFirst().blocks().size());
    }

    @Test
    void bestFitIsTheSmallestThenTheLowest() {
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, new Log());
        long big = m.malloc(24 * MIB, 0, 0);   // segment of 24 MiB
        long small = m.malloc(12 * MIB, 0, 0); // segment of 12 MiB
        long small2 = m.malloc(12 * MIB, 0, 0);
        m.freeCompleted(big);
        m.freeCompleted(small2);
        m.freeCompleted(small);
        assertEquals(small, m.malloc(11 * MIB, 0, 0), "12 MiB blocks fit better than the 24 MiB one; the lower of the two");
        assertEquals(small2, m.malloc(11 * MIB, 0, 0));
        assertEquals(big, m.malloc(11 * MIB, 0, 0));
    }

    @Test
    void streamsDoNotShareBlocks() {
        Log log = new Log();
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, log);
        long a = m.malloc(512, 1, 0);
        m.freeCompleted(a);
        long b = m.malloc(512, 2, 0);
        assertNotEquals(a, b);
        assertEquals(2, log.lines.size(), "a second segment for the other stream");
    }

    @Test
    void privatePoolsAreKeptApart() {
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, new Log());
        long a = m.malloc(512, 0, 0);
        m.freeCompleted(a);
        long g = m.malloc(512, 0, 1);
        assertNotEquals(a, g, "a graph's pool does not take the default pool's cached block");
        assertEquals(2, m.segments().get(1).pool() + m.segments().get(0).pool() + 1);
    }

    @Test
    void freedNeighboursMerge() {
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, new Log());
        long a = m.malloc(512, 0, 0);
        long b = m.malloc(512, 0, 0);
        long c = m.malloc(512, 0, 0);
        m.freeCompleted(b);
        assertEquals(4, m.segments().getFirst().blocks().size());
        m.freeCompleted(a);
        m.freeCompleted(c);
        var blocks = m.segments().getFirst().blocks();
        assertEquals(1, blocks.size());
        assertEquals(2 * MIB, blocks.getFirst().size());
        assertEquals(2 * MIB, m.cachedBytes(), "a whole free segment is cached");
    }

    @Test
    void aPendingFreeIsNeitherReusedNorMerged() {
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, new Log());
        long a = m.malloc(512, 0, 0);
        m.freeRequested(a);
        long b = m.malloc(512, 0, 0);
        assertEquals(a + 512, b);
        m.freeCompleted(a);
        assertEquals(a, m.malloc(512, 0, 0));
    }

    @Test
    void maxSplitSizeKeepsOversizeBlocksWhole() {
        AllocatorSettings s = set("max_split_size_mb", "40");
        Log log = new Log();
        CachingAllocatorModel m = model(s, log);
        long big = m.malloc(60 * MIB, 0, 0);
        m.freeCompleted(big);
        long small = m.malloc(8 * MIB, 0, 0);
        assertNotEquals(big, small, "an oversize cached block does not serve a request below max_split_size");
        assertEquals(big, m.malloc(50 * MIB, 0, 0), "50 MiB may use the 60 MiB block (within 20 MiB)");
        var seg = m.segments().stream().filter(x -> x.address() == big).findFirst().orElseThrow();
        assertEquals(1, seg.blocks().size(), "and does not split it");
        m.freeCompleted(big);
        long c = m.malloc(40 * MIB, 0, 0);
        assertNotEquals(big, c, "60 MiB is 20 MiB or more above 40 MiB: refused");
    }

    @Test
    void aFailedCudaMallocGivesBackCachedBlocksAndRetries() {
        AllocatorSettings s = set("capacity", "64MiB");
        Log log = new Log();
        CachingAllocatorModel m = model(s, log);
        long a = m.malloc(30 * MIB, 0, 0);
        m.freeCompleted(a);
        long b = m.malloc(40 * MIB, 0, 0);
        assertTrue(b >= 0);
        assertEquals(List.of("segment_alloc 30720K @0K", "segment_free 30720K @0K", "segment_alloc 40960K @0K"), log.lines);
        assertEquals(40 * MIB, m.reserved());
    }

    @Test
    void oversizeBlocksGoBackFirstWithMaxSplitSize() {
        AllocatorSettings s = set("capacity", "100MiB", "max_split_size_mb", "20");
        Log log = new Log();
        CachingAllocatorModel m = model(s, log);
        long a = m.malloc(30 * MIB, 0, 0);
        long keep = m.malloc(30 * MIB, 0, 0);
        long c = m.malloc(24 * MIB, 0, 0);
        m.freeCompleted(a);
        m.freeCompleted(c);
        log.lines.clear();
        // 32 MiB: the cached 30 and 24 MiB blocks cannot serve it (30 < 32; nothing within 20 MiB above);
        // cudaMalloc 32 fails (84 + 32 > 100); the smallest oversize block at least 32 MiB: none, so the
        // largest ones go until 32 MiB are freed: 30, then 24
        assertTrue(m.malloc(32 * MIB, 0, 0) >= 0);
        assertEquals(List.of("segment_free 30720K @0K", "segment_free 24576K @61440K", "segment_alloc 32768K @61440K"), log.lines, "placed in the lowest gap that fits");
        assertTrue(m.inUse(keep));
    }

    @Test
    void outOfMemoryWhenNothingCanBeGivenBack() {
        AllocatorSettings s = set("capacity", "32MiB");
        Log log = new Log();
        CachingAllocatorModel m = model(s, log);
        m.malloc(30 * MIB, 0, 0);
        assertEquals(-1, m.malloc(10 * MIB, 0, 0));
        assertEquals("oom 10240K", log.lines.getLast());
        assertEquals(1, m.outOfMemories());
    }

    @Test
    void garbageCollectionGivesBackOldCachedBlocksBeforeCudaMalloc() {
        Log withGc = new Log();
        CachingAllocatorModel m = model(set("capacity", "100MiB", "garbage_collection_threshold", "0.5"), withGc);
        long a = m.malloc(30 * MIB, 0, 0);
        long b = m.malloc(30 * MIB, 0, 0);
        m.freeCompleted(a);
        m.freeCompleted(b);
        withGc.lines.clear();
        m.malloc(40 * MIB, 0, 0); // 60 MiB reserved > 50: both cached blocks are as old as the average
        assertEquals(List.of("segment_free 30720K @0K", "segment_free 30720K @30720K", "segment_alloc 40960K @0K"), withGc.lines);
        Log without = new Log();
        CachingAllocatorModel n = model(set("capacity", "100MiB"), without);
        long c = n.malloc(30 * MIB, 0, 0);
        long d = n.malloc(30 * MIB, 0, 0);
        n.freeCompleted(c);
        n.freeCompleted(d);
        without.lines.clear();
        n.malloc(40 * MIB, 0, 0);
        assertEquals(List.of("segment_alloc 40960K @61440K"), without.lines, "without a threshold nothing is given back while it fits");
    }

    @Test
    void expandableSegmentsGrowInPages() {
        Log log = new Log();
        CachingAllocatorModel m = model(set("expandable_segments", "true"), log);
        long a = m.malloc(3 * MIB, 0, 0);
        long b = m.malloc(3 * MIB, 0, 0);
        assertEquals(a + 3 * MIB, b);
        assertEquals(20 * MIB, m.reserved(), "one 20 MiB page");
        long c = m.malloc(30 * MIB, 0, 0); // the free 14 MiB and one more page
        assertEquals(a + 6 * MIB, c, "grown in place after the free block");
        assertEquals(40 * MIB, m.reserved());
        assertEquals(List.of("segment_map 20M", "segment_map 20M"), log.lines);
        m.freeCompleted(a);
        m.freeCompleted(b);
        m.freeCompleted(c);
        m.emptyCache();
        assertEquals(0, m.reserved(), "every whole free page unmapped");
        assertEquals("segment_unmap 40M", log.lines.getLast());
    }

    @Test
    void expandableSegmentsUnderACapacityUnmapCachedPagesAndRetry() {
        // capacity 80 MiB; 60 MiB in use on stream 0 maps three 20 MiB pages of its range
        Log log = new Log();
        CachingAllocatorModel m = model(set("expandable_segments", "true", "capacity", "80MiB"), log);
        long a = m.malloc(60 * MIB, 0, 0);
        assertEquals(60 * MIB, m.reserved());
        m.freeCompleted(a); // cached: still mapped
        assertEquals(60 * MIB, m.reserved());
        log.lines.clear();
        // 40 MiB on stream 1: no block of its stream; 60 + 40 > 80, so the cached pages are unmapped first
        // (stream 0's range, wholly free, goes) and the request retried in a range of its own
        long b = m.malloc(40 * MIB, 1, 0);
        assertTrue(b >= 0);
        assertEquals(List.of("segment_unmap 60M", "segment_map 40M"), log.lines);
        assertEquals(40 * MIB, m.reserved());
        assertEquals(0, m.outOfMemories());
        // 50 MiB more on stream 0: 40 + 50 > 80 and nothing cached to give back: out of memory, nothing unmapped
        log.lines.clear();
        assertEquals(-1, m.malloc(50 * MIB, 0, 0));
        assertEquals(List.of("oom 51200K"), log.lines);
        assertEquals(1, m.outOfMemories());
        // a free block partly mapped: only its whole pages go back, the rest stays mapped and free
        m.freeCompleted(b);
        long c = m.malloc(10 * MIB, 1, 0); // the front of stream 1's 40 MiB, 30 MiB free after it
        assertTrue(c >= 0);
        log.lines.clear();
        // 55 MiB on stream 0 needs 56 MiB beside the 40 reserved: the free [10, 40) MiB gives back its one
        // whole page [20, 40) (the 10 MiB before the page boundary stay), then 20 + 56 <= 80: three pages mapped
        assertTrue(m.malloc(55 * MIB, 0, 0) >= 0);
        assertEquals(List.of("segment_unmap 20M", "segment_map 60M"), log.lines);
        assertEquals(80 * MIB, m.reserved());
        assertEquals(65 * MIB, m.activeBytes());
    }

    @Test
    void thePeakIsTakenApart() {
        CachingAllocatorModel m = model(AllocatorSettings.DEFAULTS, new Log());
        long a = m.malloc(3 * MIB + 1, 0, 0); // 20 MiB segment: 3 MiB + 512 used, 1 B asked beyond 3 MiB
        long b = m.malloc(18 * MIB, 0, 0);    // more than the 17 MiB left: a segment of its own
        m.freeCompleted(b);
        var p = m.peak();
        assertEquals(38 * MIB, p.reserved());
        assertEquals(3 * MIB + 1 + 18 * MIB, p.requested());
        assertEquals(511, p.rounding());
        assertEquals(20 * MIB - (3 * MIB + 512), p.splitRemainders());
        assertEquals(0, p.cached());
        assertEquals(18 * MIB, m.cachedBytes(), "after the free the 18 MiB segment is cached");
        assertTrue(m.inUse(a));
    }

    @Test
    void settingsRefuseWhatPyTorchRefuses() {
        assertThrows(IllegalArgumentException.class, () -> set("max_split_size_mb", "10"));
        assertThrows(IllegalArgumentException.class, () -> set("garbage_collection_threshold", "1.5"));
        assertThrows(IllegalArgumentException.class, () -> set("expandable_segments", "yes"));
        assertThrows(IllegalArgumentException.class, () -> set("capacity", "80 parsecs"));
        assertThrows(IllegalArgumentException.class, () -> set("nonsense", "1"));
        assertEquals(80L << 30, set("capacity", "80GiB").capacity());
        assertEquals("expandable_segments:True,max_split_size_mb:128", set("expandable_segments", "true", "max_split_size_mb", "128").describe());
    }
}
