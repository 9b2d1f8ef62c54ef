package dev.arenascope.core.pool.torch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;

import dev.arenascope.core.util.LongLongMap;

/**
 * A model of PyTorch's CUDA caching allocator ({@code DeviceCachingAllocator} in
 * c10/cuda/CUDACachingAllocator.cpp): its block and segment policy, replayed on addresses alone.
 *
 * <ul>
 * <li><b>Rounding.</b> A request rounds up to a multiple of 512 B ({@link #roundSize}); with
 *   {@code roundup_power2_divisions} N for its size interval (and a request above 512·N B) to the next of
 *   N equal steps between two powers of two (1200 B with 4: 1280 B).
 * <li><b>Pools.</b> Rounded sizes up to 1 MiB come from the small pool, larger ones from the large pool;
 *   each private pool (a CUDA graph's) has its own two. A new segment is 2 MiB for the small pool, 20 MiB
 *   for requests under 10 MiB, else the request rounded up to 2 MiB ({@link #segmentSize}).
 * <li><b>Best fit.</b> The free block of the same pool and stream that is smallest, then lowest in
 *   address, among those at least the size; but not an oversize one (at or above {@code max_split_size})
 *   for a smaller request, and for an oversize request not one {@code max_non_split_rounding} or more
 *   larger than it.
 * <li><b>Split.</b> The block is cut to the size when what remains is at least 512 B in the small pool
 *   (or with expandable segments), more than 1 MiB in the large pool (and never for a request at or above
 *   {@code max_split_size}); the allocation takes the front. A freed block merges with free neighbours.
 * <li><b>Running out.</b> When no block fits: garbage collection first (with a capacity and a threshold:
 *   unsplit cached large blocks older than the average, by reuse count, until under the threshold), then
 *   {@code cudaMalloc}; when that fails, oversize cached blocks are given back until the request could fit
 *   (only with {@code max_split_size} set) and the malloc retried; then every unsplit cached block (and
 *   every whole free page of an expandable segment) is given back and it is retried once more; then out of
 *   memory.
 * <li><b>Expandable segments.</b> One reserved address range per stream and pool, mapped in pages (2 MiB
 *   small, 20 MiB large) at the lowest address that can hold the request with the free block before it;
 *   freed pages are unmapped when cached blocks are given back.
 * <li><b>Pending frees.</b> A block whose free was requested but has not completed ({@code record_stream}
 *   events) is neither reused nor merged until {@link #freeCompleted}.
 * </ul>
 *
 * <p>What it emits ({@link AllocatorEvents}) is what a recording allocator's trace would hold, in its order.
 * Gauges: {@link #reserved()}, {@link #activeBytes()} (blocks in use, pending included), {@link #requestedBytes()};
 * peaks and the make-up of the reserved bytes at the reserved peak ({@link #peak()}).
 *
 * <p>Cost: O(log blocks) per request, free and segment. Not thread-safe.
 */
public final class CachingAllocatorModel {
    public static final long MIN_BLOCK = 512;
    public static final long SMALL_SIZE = 1L << 20;
    public static final long SMALL_BUFFER = 2L << 20;
    public static final long LARGE_BUFFER = 20L << 20;
    public static final long MIN_LARGE_ALLOC = 10L << 20;
    public static final long ROUND_LARGE = 2L << 20;

    /** One block: a byte range of a segment, in use, pending, free, or (expandable) not mapped. */
    static final class Block {
        long addr;
        long size;
        long requested;
        long stream;
        final Pool pool;
        Block prev;
        Block next;
        boolean allocated;
        boolean pending;
        boolean mapped = true;
        Expandable seg;
        long gcBase;
        /** The tree that holds the block ({@link BlockTree}: its pool's free blocks or unmapped ranges), and its links there. */
        BlockTree tree;
        Block left;
        Block right;
        Block parent;
        int prio;
        /** Its slot among the blocks in use while in use, else -1. */
        int slot = -1;

        Block(long addr, long size, long stream, Pool pool) {
            this.addr = addr;
            this.size = size;
            this.stream = stream;
            this.pool = pool;
        }

        boolean isSplit() {
            return prev != null || next != null;
        }
    }

    /** An expandable segment's reserved range. */
    record Expandable(long base, long bytes, long page, long stream) {}

    /** The free blocks of one pool (a private pool's or the default, small or large), and its unmapped ranges. */
    static final class Pool {
        final int id;
        final boolean small;
        final BlockTree free = new BlockTree(true);
        final BlockTree unmapped = new BlockTree(false);
        long calls;

        Pool(int id, boolean small) {
            this.id = id;
            this.small = small;
        }
    }

    /**
     * The reserved bytes at the reserved peak, taken apart (at the instant of that peak with the most in use).
     *
     * @param reserved      bytes in segments (mapped pages of expandable ones)
     * @param requested     bytes the program asked for, of the blocks in use
     * @param rounding      bytes blocks in use hold beyond their request (rounding, and tails not split off)
     * @param splitRemainders free bytes in segments that also hold blocks in use: cannot be given back
     * @param cached        free bytes in segments with nothing in use (and free mapped pages of expandable
     *                      segments): cached, given back on the next out-of-memory retry
     * @param atRequest     the request after which the peak was reached (0-based count of mallocs), -1 when none
     */
    public record Peak(long reserved, long requested, long rounding, long splitRemainders, long cached, long atRequest) {
        static final Peak NONE = new Peak(0, 0, 0, 0, 0, -1);
    }

    private final AllocatorSettings s;
    private final SegmentDevice device;
    private final AllocatorEvents events;
    private final HashMap<Integer, Pool> pools = new HashMap<>();
    /** The blocks in use: address -> slot of {@link #slots} (no boxed key per block). */
    private final LongLongMap active = new LongLongMap();
    /** Whether {@link #active} is kept: false for a replay that names its blocks by slot alone. */
    private final boolean byAddress;
    private int activeCount;
    private Block[] slots = new Block[1024];
    private int[] freeSlots = new int[1024];
    private int freeSlotCount;
    private int slotCount;
    private final List<Expandable> expandables = new ArrayList<>();
    private final boolean gc;
    private long reserved;
    private long activeBytes;
    private long requestedBytes;
    private long wholeFree;
    private long reservedPeak;
    private long requestedPeak;
    private long requests;
    private long segmentAllocs;
    private long segmentFrees;
    private long ooms;
    private boolean peakSeen;
    private long peakReserved, peakRequested, peakActive, peakWhole, peakAt;

    public CachingAllocatorModel(AllocatorSettings settings, SegmentDevice device, AllocatorEvents events) {
        this(settings, device, events, true);
    }

    /**
     * A model whose blocks in use are named by address ({@code byAddress}: {@link #malloc}, {@link
     * #freeRequested}, {@link #freeCompleted}, {@link #inUse}) or by slot alone ({@link #mallocSlot},
     * {@link #freeRequestedSlot}, {@link #freeCompletedSlot}: no map of addresses kept, for a replay that
     * holds the slots it was given).
     */
    public CachingAllocatorModel(AllocatorSettings settings, SegmentDevice device, AllocatorEvents events, boolean byAddress) {
        this.byAddress = byAddress;
        this.s = settings;
        this.device = device;
        this.events = events == null ? new AllocatorEvents() {} : events;
        this.gc = settings.capacity() > 0 && settings.gcThreshold() > 0;
    }

    public AllocatorSettings settings() {
        return s;
    }

    // ---- the rules, as functions

    /** A request's size as the allocator rounds it. */
    public static long roundSize(AllocatorSettings s, long size) {
        if (size < MIN_BLOCK) {
            return MIN_BLOCK;
        }
        int d = s.divisionsFor(size);
        if (d > 1 && size > MIN_BLOCK * d) {
            return roundToDivision(size, d);
        }
        return ceil(size, MIN_BLOCK);
    }

    /** {@code size} up to the next of {@code divisions} equal steps between the powers of two around it. */
    static long roundToDivision(long size, int divisions) {
        if (Long.bitCount(size) == 1) {
            return size;
        }
        long floor = Long.highestOneBit(size);
        long step = floor >>> (31 - Integer.numberOfLeadingZeros(divisions));
        if (step == 0) {
            return floor << 1;
        }
        long low = size & ~(step - 1);
        return low == size ? size : low + step;
    }

    /** The size of the segment a rounded request makes when no cached block serves it. */
    public static long segmentSize(long rounded) {
        if (rounded <= SMALL_SIZE) {
            return SMALL_BUFFER;
        }
        if (rounded < MIN_LARGE_ALLOC) {
            return LARGE_BUFFER;
        }
        return ceil(rounded, ROUND_LARGE);
    }

    private static long ceil(long v, long unit) {
        return (v + unit - 1) / unit * unit;
    }

    // ---- the state before a replay

    /**
     * Starts from a state: segments (a non-expandable one each; an expandable segment's mapped range
     * becomes an expandable segment of its own) and the blocks in use in them, by address.
     *
     * @throws IllegalArgumentException naming a block that lies outside every segment or overlaps another
     */
    public void start(List<StartSegment> segments, List<StartBlock> blocks) {
        List<StartSegment> segs = new ArrayList<>(segments);
        segs.sort(Comparator.comparingLong(StartSegment::address));
        List<StartBlock> bl = new ArrayList<>(blocks);
        bl.sort(Comparator.comparingLong(StartBlock::address));
        int j = 0;
        for (StartSegment g : segs) {
            Pool p = pool(g.pool(), g.small());
            long end = g.address() + g.size();
            Expandable ex = null;
            if (g.expandable()) {
                long page = g.small() ? SMALL_BUFFER : LARGE_BUFFER;
                long va = Math.max(ceil(g.size(), page), addressSpace(page));
                ex = new Expandable(g.address(), va, page, g.stream());
                expandables.add(ex);
            }
            while (j < bl.size() && bl.get(j).address() < g.address()) {
                throw new IllegalArgumentException(String.format("a block in use at 0x%x lies in no segment", bl.get(j).address()));
            }
            long at = g.address();
            Block last = null;
            while (j < bl.size() && bl.get(j).address() < end) {
                StartBlock b = bl.get(j++);
                if (b.address() < at || b.address() + b.size() > end) {
                    throw new IllegalArgumentException(String.format("a block in use at 0x%x (%d B) overlaps another or its segment's end", b.address(), b.size()));
                }
                if (b.address() > at) {
                    last = link(last, freeBlock(at, b.address() - at, g.stream(), p, ex));
                }
                Block u = new Block(b.address(), b.size(), g.stream(), p);
                u.seg = ex;
                u.requested = b.requested();
                u.pending = b.pending();
                u.allocated = !b.pending();
                putActive(u);
                activeBytes += u.size;
                requestedBytes += u.requested;
                last = link(last, u);
                at = b.address() + b.size();
            }
            if (end > at) {
                last = link(last, freeBlock(at, end - at, g.stream(), p, ex));
            }
            if (ex != null && ex.bytes() > g.size()) {
                Block un = new Block(end, ex.bytes() - g.size(), g.stream(), p);
                un.mapped = false;
                un.seg = ex;
                link(last, un);
                p.unmapped.add(un);
            }
            reserved += g.size();
        }
        if (j < bl.size()) {
            throw new IllegalArgumentException(String.format("a block in use at 0x%x lies in no segment", bl.get(j).address()));
        }
        // the free blocks join the free sets once linked (their split state is known only then)
        for (Block b : pendingFree) {
            insertFree(b);
        }
        pendingFree.clear();
        reservedPeak = reserved;
        requestedPeak = requestedBytes;
        notePeak();
    }

    private final List<Block> pendingFree = new ArrayList<>();

    private Block freeBlock(long at, long size, long stream, Pool p, Expandable ex) {
        Block f = new Block(at, size, stream, p);
        f.seg = ex;
        pendingFree.add(f);
        return f;
    }

    private static Block link(Block last, Block b) {
        if (last != null) {
            last.next = b;
            b.prev = last;
        }
        return b;
    }

    /** A segment of a starting state; {@code pool} 0 for the default pools. */
    public record StartSegment(long address, long size, long stream, int pool, boolean small, boolean expandable) {}

    /** A block in use in a starting state. */
    public record StartBlock(long address, long size, long requested, boolean pending) {}

    private long addressSpace(long page) {
        long bytes = s.capacity() > 0 ? s.capacity() + s.capacity() / 8 : 1L << 44;
        return ceil(bytes, page);
    }

    private Pool defaultSmall;
    private Pool defaultLarge;

    Pool pool(int id, boolean small) {
        if (id == 0) {
            Pool p = small ? defaultSmall : defaultLarge;
            if (p != null) {
                return p;
            }
        }
        int k = id * 2 + (small ? 1 : 0);
        Pool p = pools.get(k);
        if (p == null) {
            p = new Pool(id, small);
            pools.put(k, p);
            if (id == 0 && small) {
                defaultSmall = p;
            } else if (id == 0) {
                defaultLarge = p;
            }
        }
        return p;
    }

    // ---- the blocks in use

    private void putActive(Block b) {
        int slot;
        if (freeSlotCount > 0) {
            slot = freeSlots[--freeSlotCount];
        } else {
            if (slotCount == slots.length) {
                slots = Arrays.copyOf(slots, slotCount * 2);
            }
            slot = slotCount++;
        }
        slots[slot] = b;
        b.slot = slot;
        activeCount++;
        if (byAddress) {
            active.put(b.addr, slot, -1);
        }
    }

    private Block getActive(long addr) {
        requireAddresses();
        long slot = active.get(addr, -1);
        return slot < 0 ? null : slots[(int) slot];
    }

    private Block removeActive(long addr) {
        requireAddresses();
        long slot = active.remove(addr, -1);
        return slot < 0 ? null : releaseSlot((int) slot);
    }

    private Block releaseSlot(int slot) {
        Block b = slots[slot];
        slots[slot] = null;
        b.slot = -1;
        activeCount--;
        if (freeSlotCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, freeSlotCount * 2);
        }
        freeSlots[freeSlotCount++] = slot;
        return b;
    }

    private Block slotBlock(int slot) {
        return slot >= 0 && slot < slotCount ? slots[slot] : null;
    }

    private void requireAddresses() {
        if (!byAddress) {
            throw new IllegalStateException("this model finds its blocks by slot, not by address");
        }
    }

    private List<Block> activeBlocks() {
        List<Block> out = new ArrayList<>(activeCount);
        for (int i = 0; i < slotCount; i++) {
            if (slots[i] != null) {
                out.add(slots[i]);
            }
        }
        return out;
    }

    // ---- the free sets

    private void insertFree(Block b) {
        b.gcBase = b.pool.calls;
        b.pool.free.add(b);
        if (!b.isSplit() || b.seg != null) {
            wholeFree += b.size;
        }
    }

    private void removeFree(Block b) {
        b.pool.free.remove(b);
        if (!b.isSplit() || b.seg != null) {
            wholeFree -= b.size;
        }
    }

    // ---- requests and frees

    /**
     * A request of {@code bytes} on {@code stream}, from pool {@code poolId} (0: the default pools, else a
     * private pool's): the address of the block it gets, or -1 when the device is out of memory.
     */
    public long malloc(long bytes, long stream, int poolId) {
        Block b = allocate(bytes, stream, poolId);
        return b == null ? -1 : b.addr;
    }

    /**
     * {@link #malloc}, answering the slot of the block in use (from 0, reused once freed) instead of its
     * address, or -1 when the device is out of memory.
     */
    public int mallocSlot(long bytes, long stream, int poolId) {
        Block b = allocate(bytes, stream, poolId);
        return b == null ? -1 : b.slot;
    }

    /** The address of the block in use in {@code slot}, or -1. */
    public long addressOf(int slot) {
        Block b = slotBlock(slot);
        return b == null ? -1 : b.addr;
    }

    private Block allocate(long bytes, long stream, int poolId) {
        long size = roundSize(s, bytes);
        boolean small = size <= SMALL_SIZE;
        Pool p = pool(poolId, small);
        long allocSize = segmentSize(size);
        Block b = getFreeBlock(p, stream, size);
        if (b == null) {
            if (gc) {
                garbageCollect();
            }
            b = allocBlock(p, stream, size, allocSize);
            if (b == null && releaseAvailable(p, stream, size)) {
                b = allocBlock(p, stream, size, allocSize);
            }
            if (b == null && poolId == 0 && releaseCached()) {
                b = allocBlock(p, stream, size, allocSize);
            }
            if (b == null) {
                ooms++;
                events.outOfMemory(size, stream, device.freeBytes());
                return null;
            }
        }
        if (shouldSplit(b, size)) {
            Block rest = new Block(b.addr + size, b.size - size, stream, p);
            rest.seg = b.seg;
            rest.prev = b;
            rest.next = b.next;
            if (b.next != null) {
                b.next.prev = rest;
            }
            b.next = rest;
            b.size = size;
            insertFree(rest);
        }
        b.allocated = true;
        b.requested = bytes;
        putActive(b);
        activeBytes += b.size;
        requestedBytes += bytes;
        requests++;
        requestedPeak = Math.max(requestedPeak, requestedBytes);
        events.alloc(b.addr, bytes, b.size, stream);
        notePeak();
        return b;
    }

    private void notePeak() {
        if (reserved > reservedPeak || reserved == reservedPeak && requestedBytes > peakRequested || !peakSeen) {
            reservedPeak = Math.max(reservedPeak, reserved);
            peakSeen = true;
            peakReserved = reserved;
            peakRequested = requestedBytes;
            peakActive = activeBytes;
            peakWhole = wholeFree;
            peakAt = requests - 1;
        }
    }

    /** The free of the block at {@code address} was requested ({@code free_requested}): it stays unusable until completed. False when no block is in use there. */
    public boolean freeRequested(long address) {
        return requestFree(getActive(address));
    }

    /** {@link #freeRequested} of the block in {@code slot}. */
    public boolean freeRequestedSlot(int slot) {
        return requestFree(slotBlock(slot));
    }

    private static boolean requestFree(Block b) {
        if (b == null || !b.allocated) {
            return false;
        }
        b.allocated = false;
        b.pending = true;
        return true;
    }

    /** The block at {@code address} is free ({@code free_completed}): cached, merged with free neighbours. False when no block is in use there. */
    public boolean freeCompleted(long address) {
        Block b = removeActive(address);
        if (b == null) {
            return false;
        }
        release(b);
        return true;
    }

    /** {@link #freeCompleted} of the block in {@code slot}. */
    public boolean freeCompletedSlot(int slot) {
        Block b = slotBlock(slot);
        if (b == null) {
            return false;
        }
        if (byAddress) {
            active.remove(b.addr, -1);
        }
        releaseSlot(slot);
        release(b);
        return true;
    }

    private void release(Block b) {
        b.allocated = false;
        b.pending = false;
        activeBytes -= b.size;
        requestedBytes -= b.requested;
        events.freeCompleted(b.addr, b.requested, b.size, b.stream);
        Block before = b.prev;
        Block after = b.next;
        merge(b, before);
        merge(b, after);
        insertFree(b);
    }

    /** Whether a block is in use (or pending) at {@code address}. */
    public boolean inUse(long address) {
        requireAddresses();
        return active.containsKey(address);
    }

    /** {@code torch.cuda.empty_cache()}: gives back every unsplit cached block and every whole free page. */
    public void emptyCache() {
        releaseCached();
    }

    private boolean allocatable(Block b) {
        return b != null && !b.allocated && !b.pending;
    }

    private long merge(Block dst, Block src) {
        if (src == null || src.allocated || src.pending || dst.mapped != src.mapped) {
            return 0;
        }
        if (src.mapped) {
            removeFree(src);
        } else {
            src.pool.unmapped.remove(src);
        }
        if (dst.prev == src) {
            dst.addr = src.addr;
            dst.prev = src.prev;
            if (dst.prev != null) {
                dst.prev.next = dst;
            }
        } else {
            dst.next = src.next;
            if (dst.next != null) {
                dst.next.prev = dst;
            }
        }
        dst.size += src.size;
        return src.size;
    }

    private Block getFreeBlock(Pool p, long stream, long size) {
        if (gc) {
            p.calls++;
        }
        Block it = p.free.ceiling(stream, size, Long.MIN_VALUE);
        if (it == null || it.stream != stream) {
            return null;
        }
        if (it.seg != null) {
            if (s.expandableSegments()) {
                Block next = BlockTree.next(it);
                while (it.seg != null && next != null && next.stream == stream && expandableSize(next) < expandableSize(it)) {
                    it = next;
                    next = BlockTree.next(next);
                }
            } else {
                do {
                    it = BlockTree.next(it);
                } while (it != null && it.seg != null && it.stream == stream);
                if (it == null || it.stream != stream) {
                    return null;
                }
            }
        }
        if (size < s.maxSplitSize() && it.size >= s.maxSplitSize()) {
            return null;
        }
        if (size >= s.maxSplitSize() && it.size >= size + s.maxNonSplitRounding()) {
            return null;
        }
        removeFree(it);
        return it;
    }

    private static long expandableSize(Block b) {
        return b.size + (b.next != null && !b.next.mapped ? b.next.size : 0);
    }

    private boolean shouldSplit(Block b, long size) {
        long rest = b.size - size;
        if (b.pool.small || s.expandableSegments()) {
            return rest >= MIN_BLOCK;
        }
        return size < s.maxSplitSize() && rest > SMALL_SIZE;
    }

    private Block allocBlock(Pool p, long stream, long size, long allocSize) {
        if (s.capacity() > 0 && reserved + allocSize > s.capacity()) {
            return null;
        }
        if (s.expandableSegments()) {
            return tryAllocateExpandable(p, stream, size);
        }
        long addr = device.malloc(allocSize);
        if (addr < 0) {
            return null;
        }
        reserved += allocSize;
        segmentAllocs++;
        events.segmentAlloc(addr, allocSize, stream);
        return new Block(addr, allocSize, stream, p);
    }

    private boolean releaseAvailable(Pool p, long stream, long size) {
        if (s.maxSplitSize() == AllocatorSettings.NO_LIMIT) {
            return false;
        }
        long want = Math.max(size, s.maxSplitSize());
        Block it = p.free.ceiling(stream, want, Long.MIN_VALUE);
        if (it == null || it.stream != stream) {
            Block b = it == null ? p.free.last() : BlockTree.previous(it);
            if (b == null) {
                return false;
            }
            long released = 0;
            while (released < want && b.size >= s.maxSplitSize() && b.stream == stream && b.seg == null) {
                Block lower = BlockTree.previous(b);
                released += b.size;
                releaseBlock(b);
                if (lower == null) {
                    break;
                }
                b = lower;
            }
            return released >= want;
        }
        if (it.seg != null) {
            return false;
        }
        releaseBlock(it);
        return true;
    }

    private boolean releaseCached() {
        releaseBlocks(pool(0, false));
        releaseBlocks(pool(0, true));
        return true;
    }

    private void releaseBlocks(Pool p) {
        List<Block> toUnmap = new ArrayList<>();
        for (Block b = p.free.first(), after; b != null; b = after) {
            after = BlockTree.next(b);
            if (b.seg != null) {
                toUnmap.add(b);
            } else if (!b.isSplit()) {
                releaseBlock(b);
            }
        }
        for (Block b : toUnmap) {
            unmapBlock(b);
            if (b.prev == null && b.next == null && !b.mapped) {
                p.unmapped.remove(b);
                expandables.remove(b.seg);
            }
        }
    }

    private void releaseBlock(Block b) {
        removeFree(b);
        reserved -= b.size;
        segmentFrees++;
        events.segmentFree(b.addr, b.size, b.stream);
        device.free(b.addr, b.size);
    }

    private void garbageCollect() {
        long threshold = (long) (s.gcThreshold() * s.capacity());
        if (reserved <= threshold) {
            return;
        }
        long target = reserved - threshold;
        Pool large = pool(0, false);
        long totalAge = 0;
        int count = 0;
        for (Block b = large.free.first(); b != null; b = BlockTree.next(b)) {
            if (!b.isSplit() && b.seg == null) {
                totalAge += large.calls - b.gcBase;
                count++;
            }
        }
        if (count == 0) {
            return;
        }
        long reclaimed = 0;
        boolean freed = true;
        while (reclaimed < target && freed && count > 0) {
            double age = (double) totalAge / count;
            freed = false;
            for (Block b = large.free.first(), after; b != null; b = after) {
                after = BlockTree.next(b);
                long bAge = large.calls - b.gcBase;
                if (!b.isSplit() && b.seg == null && bAge >= age) {
                    freed = true;
                    reclaimed += b.size;
                    totalAge -= bAge;
                    count--;
                    releaseBlock(b);
                }
            }
        }
    }

    // ---- expandable segments

    private Block tryAllocateExpandable(Pool p, long stream, long size) {
        Block c = findExpandable(p, stream, size);
        if (c == null) {
            return null;
        }
        if (!c.mapped && !mapBlock(c, Math.min(c.size, size))) {
            return null;
        }
        while (c.size < size) {
            long remaining = size - c.size;
            Block nc = c.next;
            if (nc == null || !mapBlock(nc, Math.min(remaining, nc.size))) {
                return null;
            }
            c = nc;
        }
        removeFree(c);
        return c;
    }

    private Block findExpandable(Pool p, long stream, long size) {
        for (Block c = p.unmapped.ceiling(stream, 0, Long.MIN_VALUE); c != null; c = BlockTree.next(c)) {
            if (c.stream != stream) {
                break;
            }
            Block cand = allocatable(c.prev) ? c.prev : c;
            long bytes = 0;
            for (Block b = cand; bytes < size && allocatable(b); b = b.next) {
                bytes += b.size;
            }
            if (bytes >= size) {
                return cand;
            }
        }
        long page = p.small ? SMALL_BUFFER : LARGE_BUFFER;
        long va = addressSpace(page);
        long base = device.reserve(va);
        if (base < 0) {
            return null;
        }
        Expandable ex = new Expandable(base, va, page, stream);
        expandables.add(ex);
        Block c = new Block(base, va, stream, p);
        c.mapped = false;
        c.seg = ex;
        p.unmapped.add(c);
        return c;
    }

    private boolean mapBlock(Block m, long size) {
        Expandable ex = m.seg;
        long rel = m.addr - ex.base();
        long begin = rel / ex.page();
        long end = (rel + size + ex.page() - 1) / ex.page();
        long bytes = (end - begin) * ex.page();
        if (bytes == 0 || !device.map(ex.base() + begin * ex.page(), bytes)) {
            return false;
        }
        m.pool.unmapped.remove(m);
        m.mapped = true;
        if (bytes < m.size) {
            Block rest = new Block(m.addr + bytes, m.size - bytes, m.stream, m.pool);
            rest.mapped = false;
            rest.seg = ex;
            rest.prev = m;
            rest.next = m.next;
            if (m.next != null) {
                m.next.prev = rest;
            }
            m.next = rest;
            m.pool.unmapped.add(rest);
            m.size = bytes;
        }
        long at = m.addr;
        merge(m, m.prev);
        merge(m, m.next);
        insertFree(m);
        reserved += bytes;
        segmentAllocs++;
        events.segmentMap(at, bytes, m.stream);
        return true;
    }

    private void unmapBlock(Block b) {
        Expandable ex = b.seg;
        long rel = b.addr - ex.base();
        long begin = (rel + ex.page() - 1) / ex.page();
        long end = (rel + b.size) / ex.page();
        if (begin >= end) {
            return;
        }
        long ptr = ex.base() + begin * ex.page();
        long bytes = (end - begin) * ex.page();
        removeFree(b);
        long before = ptr - b.addr;
        if (before > 0) {
            Block f = new Block(b.addr, before, b.stream, b.pool);
            f.seg = ex;
            f.prev = b.prev;
            f.next = b;
            if (b.prev != null) {
                b.prev.next = f;
            }
            b.prev = f;
            insertFree(f);
        }
        long after = b.size - before - bytes;
        if (after > 0) {
            Block f = new Block(ptr + bytes, after, b.stream, b.pool);
            f.seg = ex;
            f.prev = b;
            f.next = b.next;
            if (b.next != null) {
                b.next.prev = f;
            }
            b.next = f;
            insertFree(f);
        }
        b.addr = ptr;
        b.size = bytes;
        b.mapped = false;
        merge(b, b.prev);
        merge(b, b.next);
        b.pool.unmapped.add(b);
        reserved -= bytes;
        segmentFrees++;
        events.segmentUnmap(ptr, bytes, b.stream);
        device.unmap(ptr, bytes);
    }

    // ---- what it holds

    /** Bytes reserved from the device (segments, or mapped pages of expandable ones). */
    public long reserved() {
        return reserved;
    }

    /** Bytes of the blocks in use (pending frees included). */
    public long activeBytes() {
        return activeBytes;
    }

    /** Bytes the program asked for, of the blocks in use. */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** Free bytes of segments that hold nothing in use (and free mapped pages of expandable segments). */
    public long cachedBytes() {
        return wholeFree;
    }

    public long reservedPeak() {
        return reservedPeak;
    }

    public long requestedPeak() {
        return requestedPeak;
    }

    /** The reserved bytes at their peak, taken apart. */
    public Peak peak() {
        if (!peakSeen) {
            return Peak.NONE;
        }
        return new Peak(peakReserved, peakRequested, peakActive - peakRequested, peakReserved - peakActive - peakWhole, peakWhole, peakAt);
    }

    /** Requests served. */
    public long requests() {
        return requests;
    }

    /** {@code cudaMalloc}s (and page mappings) made. */
    public long segmentAllocs() {
        return segmentAllocs;
    }

    /** {@code cudaFree}s (and page unmappings) made. */
    public long segmentFrees() {
        return segmentFrees;
    }

    /** Requests refused for lack of memory. */
    public long outOfMemories() {
        return ooms;
    }

    /** A block of {@link #segments()}. */
    public record BlockInfo(long address, long size, long requested, boolean inUse, boolean pending) {}

    /** A segment as a snapshot lists it (an expandable segment: each mapped range), with its blocks in address order. */
    public record SegmentInfo(long address, long size, long stream, int pool, boolean small, boolean expandable, List<BlockInfo> blocks) {}

    /** The segments now, in address order: what {@code torch.cuda.memory._snapshot()['segments']} would list. O(blocks). */
    public List<SegmentInfo> segments() {
        List<Block> heads = new ArrayList<>();
        for (Block b : activeBlocks()) {
            if (b.prev == null || !b.prev.mapped) {
                heads.add(b);
            }
        }
        for (Pool p : pools.values()) {
            for (Block b = p.free.first(); b != null; b = BlockTree.next(b)) {
                if (b.prev == null || !b.prev.mapped) {
                    heads.add(b);
                }
            }
        }
        heads.sort(Comparator.comparingLong(b -> b.addr));
        List<SegmentInfo> out = new ArrayList<>(heads.size());
        for (Block h : heads) {
            List<BlockInfo> bl = new ArrayList<>();
            long total = 0;
            for (Block b = h; b != null && b.mapped; b = b.next) {
                bl.add(new BlockInfo(b.addr, b.size, b.allocated || b.pending ? b.requested : 0, b.allocated || b.pending, b.pending));
                total += b.size;
            }
            out.add(new SegmentInfo(h.addr, total, h.stream, h.pool.id, h.pool.small, h.seg != null, List.copyOf(bl)));
        }
        return out;
    }
}
