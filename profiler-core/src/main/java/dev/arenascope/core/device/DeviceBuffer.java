package dev.arenascope.core.device;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * One block of device memory obtained from {@link MemoryDevice#allocate(long)}.
 *
 * <p>Closing frees the block; closing twice is harmless. Not thread-safe for concurrent close.
 */
public interface DeviceBuffer extends AutoCloseable {

    /** The device this block belongs to. */
    MemoryDevice device();

    /**
     * The block's base address: the CUDA device pointer, the host segment's native address, or a
     * synthetic address for the virtual device. Unique among live blocks of one device.
     */
    long address();

    /** Size in bytes. */
    long size();

    /** The host bytes, present only for {@link DeviceKind#HOST}. */
    Optional<MemorySegment> hostSegment();

    /** Whether {@link #close()} has run. */
    boolean isClosed();

    /** Frees the block. Idempotent. */
    @Override
    void close();
}
