package dev.arenascope.core.pool;

import dev.arenascope.core.device.DeviceOutOfMemoryException;

/**
 * A {@link MemoryPool} could not serve a request: its {@code maxAllocBytes} ceiling or the device
 * refused it even after every held block was freed. The message names the pool, the request, its
 * bin and the reason. Nothing was allocated and the pool's state is unchanged apart from the freed
 * held blocks.
 */
public final class PoolOutOfMemoryException extends DeviceOutOfMemoryException {
    private final int bin;
    private final long allocSize;

    /**
     * @param message        the one-line message naming the pool, request, bin and reason
     * @param requestedBytes the bytes asked for
     * @param bin            the request's bin
     * @param allocSize      the block size of that bin, in bytes
     */
    public PoolOutOfMemoryException(String message, long requestedBytes, int bin, long allocSize) {
        super(message, requestedBytes);
        this.bin = bin;
        this.allocSize = allocSize;
    }

    /** The bin the request fell in. */
    public int bin() {
        return bin;
    }

    /** The bytes the pool tried to allocate for it (the bin's size). */
    public long allocSize() {
        return allocSize;
    }
}
