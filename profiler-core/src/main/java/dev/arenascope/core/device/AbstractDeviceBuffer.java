package dev.arenascope.core.device;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * What every device's buffers share: the owning device, a fixed address and size, and a close that
 * releases the memory exactly once, whichever thread calls it and however often.
 * A subclass supplies {@link #release()} and, where its bytes are host-addressable, {@link #hostSegment()}.
 */
abstract class AbstractDeviceBuffer implements DeviceBuffer {
    private final MemoryDevice device;
    private final long address;
    private final long size;
    private volatile boolean closed;

    AbstractDeviceBuffer(MemoryDevice device, long address, long size) {
        this.device = device;
        this.address = address;
        this.size = size;
    }

    /** Gives the memory back to the device; called once, under the buffer's lock. */
    protected abstract void release();

    @Override
    public final MemoryDevice device() {
        return device;
    }

    @Override
    public final long address() {
        return address;
    }

    @Override
    public final long size() {
        return size;
    }

    @Override
    public Optional<MemorySegment> hostSegment() {
        return Optional.empty();
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public final synchronized void close() {
        if (!closed) {
            closed = true;
            release();
        }
    }
}
