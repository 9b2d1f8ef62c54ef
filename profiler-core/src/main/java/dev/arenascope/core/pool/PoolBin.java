package dev.arenascope.core.pool;

import java.util.Arrays;

import dev.arenascope.core.device.DeviceBuffer;

/**
 * One bin of a {@link MemoryPool}: its number, its block size, its held blocks (a stack: last in, first
 * out) and its counters. Guarded by the pool's lock.
 */
final class PoolBin {
    final int number;
    final long allocSize;
    private DeviceBuffer[] held = new DeviceBuffer[4];
    int heldCount;
    long requests;
    long hits;
    long misses;
    long roundingWaste;

    PoolBin(int number, long allocSize) {
        this.number = number;
        this.allocSize = allocSize;
    }

    void push(DeviceBuffer block) {
        if (heldCount == held.length) {
            held = Arrays.copyOf(held, heldCount * 2);
        }
        held[heldCount++] = block;
    }

    DeviceBuffer pop() {
        DeviceBuffer block = held[--heldCount];
        held[heldCount] = null;
        return block;
    }
}
