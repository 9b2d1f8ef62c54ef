package dev.arenascope.core.pool.torch;

import java.util.Map;
import java.util.TreeMap;

/**
 * A device of addresses and accounting only, for what-if replays: segments are placed at the lowest
 * 2 MiB-aligned gap that fits (as a driver's allocator tends to reuse low addresses) and memory is
 * refused past {@code capacity} bytes (0: never). Reserved address ranges for expandable segments sit
 * far above the segments. Not thread-safe.
 */
public final class VirtualGpu implements SegmentDevice {
    static final long BASE = 0x7f0000000000L;
    static final long RESERVE_BASE = 0x7e0000000000L;
    private static final long ALIGN = 2L << 20;
    private final long capacity;
    private final TreeMap<Long, Long> used = new TreeMap<>();
    private long inUse;
    private long nextReserve = RESERVE_BASE;
    private long peak;

    public VirtualGpu(long capacity) {
        this.capacity = capacity;
    }

    @Override
    public long malloc(long bytes) {
        if (capacity > 0 && inUse + bytes > capacity) {
            return -1;
        }
        long at = BASE;
        for (Map.Entry<Long, Long> e : used.entrySet()) {
            if (e.getKey() - at >= bytes) {
                break;
            }
            long end = e.getKey() + e.getValue();
            at = Math.max(at, (end + ALIGN - 1) / ALIGN * ALIGN);
        }
        used.put(at, bytes);
        take(bytes);
        return at;
    }

    @Override
    public void free(long address, long bytes) {
        Long b = used.remove(address);
        inUse -= b == null ? 0 : b;
    }

    @Override
    public long reserve(long bytes) {
        long at = nextReserve;
        nextReserve += (bytes + ALIGN - 1) / ALIGN * ALIGN + ALIGN;
        return at;
    }

    @Override
    public boolean map(long address, long bytes) {
        if (capacity > 0 && inUse + bytes > capacity) {
            return false;
        }
        take(bytes);
        return true;
    }

    @Override
    public void unmap(long address, long bytes) {
        inUse -= bytes;
    }

    private void take(long bytes) {
        inUse += bytes;
        peak = Math.max(peak, inUse);
    }

    @Override
    public long freeBytes() {
        return capacity > 0 ? capacity - inUse : Long.MAX_VALUE - inUse;
    }

    /** Bytes held now. */
    public long inUse() {
        return inUse;
    }
}
