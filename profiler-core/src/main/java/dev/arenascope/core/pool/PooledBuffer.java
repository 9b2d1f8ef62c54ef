package dev.arenascope.core.pool;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import dev.arenascope.core.device.DeviceBuffer;

/**
 * A buffer handed out by a {@link MemoryPool}: {@link #size()} usable bytes at {@link #address()},
 * inside a pooled device block of {@link #allocatedBytes()} bytes (the bin's size).
 *
 * <p>Use it with try-with-resources: {@link #close()} hands the block back to its pool, which holds it
 * for the next request of the same bin (or frees it when the pool no longer holds). Until then no
 * other owner gets the block. Closing twice is harmless and never frees twice; after the close the
 * block may already belong to someone else, so the address must no longer be used. A buffer that is
 * never closed keeps its block: the pool neither reuses nor frees it, even when the pool closes
 * ({@link MemoryPool#activeBlocks()} counts such buffers; there is no finalizer on the hot path).
 * Thread-safe.
 */
public final class PooledBuffer implements AutoCloseable {
    private final MemoryPool pool;
    final PoolBin bin;
    final DeviceBuffer block;
    private final long size;
    private final long offset;
    /** Read and written under the pool's lock (a plain read outside it is only a hint). */
    boolean returned;

    PooledBuffer(MemoryPool pool, PoolBin bin, DeviceBuffer block, long size, long offset) {
        this.pool = pool;
        this.bin = bin;
        this.block = block;
        this.size = size;
        this.offset = offset;
    }

    /** The pool it came from. */
    public MemoryPool pool() {
        return pool;
    }

    /** The address of the first usable byte: the block's address plus {@link #offset()}; aligned as asked. */
    public long address() {
        return block.address() + offset;
    }

    /** Usable bytes: what the request asked for. */
    public long size() {
        return size;
    }

    /** Bytes from the block's start to {@link #address()}: 0 unless an alignment above the device's was asked. */
    public long offset() {
        return offset;
    }

    /** Bytes of the whole pooled block: the bin's size, at least {@code offset() + size()}. */
    public long allocatedBytes() {
        return block.size();
    }

    /** The bin the request fell in. */
    public int bin() {
        return bin.number;
    }

    /**
     * The pooled device block. Device calls ({@code memset}, copies) take it with {@link #offset()}
     * added to their offsets; it must not be closed directly (the pool owns it).
     */
    public DeviceBuffer deviceBuffer() {
        return block;
    }

    /** The usable bytes as a host segment ({@link #size()} bytes at {@link #address()}), on the host device only. */
    public Optional<MemorySegment> hostSegment() {
        return isClosed() ? Optional.empty() : block.hostSegment().map(s -> s.asSlice(offset, size));
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return pool.isReturned(this);
    }

    /** Hands the block back to the pool. Idempotent. */
    @Override
    public void close() {
        if (!returned) { // a hint only: giveBack decides under the pool's lock
            pool.giveBack(this);
        }
    }

    @Override
    public String toString() {
        return "PooledBuffer[" + size + " bytes at 0x" + Long.toHexString(address()) + ", bin " + bin.number
                + (isClosed() ? ", closed" : "") + "]";
    }
}
