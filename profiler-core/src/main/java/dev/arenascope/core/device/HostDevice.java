package dev.arenascope.core.device;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.management.OperatingSystemMXBean;

import dev.arenascope.core.format.Bytes;

/**
 * Host memory through {@code java.lang.foreign}: each buffer is one shared {@link Arena} segment,
 * 256-byte aligned, with no 2 GiB limit. Free bytes are what the operating system reports free.
 */
public final class HostDevice implements MemoryDevice {
    static final long ALIGNMENT = 256;
    private final DeviceInfo info;
    private final AtomicLong liveBytes = new AtomicLong();
    private volatile boolean closed;

    public HostDevice() {
        long total = physicalMemory(true);
        this.info = new DeviceInfo(DeviceKind.HOST, 0, "host (" + System.getProperty("os.arch") + ", java.lang.foreign)",
                total, physicalMemory(false));
    }

    /** Total ({@code total == true}) or free physical memory of this machine in bytes. */
    public static long physicalMemory(boolean total) {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            return total ? os.getTotalMemorySize() : os.getFreeMemorySize();
        }
        return Runtime.getRuntime().maxMemory();
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public long freeBytes() {
        return Math.max(0, physicalMemory(false));
    }

    /** Bytes held by buffers of this device that are still open. */
    public long liveBytes() {
        return liveBytes.get();
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        if (closed) {
            throw new IllegalStateException("host device is closed");
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException("allocation size must be positive, got " + bytes);
        }
        long free = freeBytes();
        if (bytes > free) {
            throw new DeviceOutOfMemoryException("host: cannot allocate " + bytes + " bytes (" + Bytes.format(bytes)
                    + "), " + Bytes.format(free) + " of physical memory free", bytes);
        }
        Arena arena = Arena.ofShared();
        MemorySegment segment;
        try {
            segment = arena.allocate(bytes, ALIGNMENT);
        } catch (OutOfMemoryError e) {
            arena.close();
            throw new DeviceOutOfMemoryException("host: cannot allocate " + bytes + " bytes: " + e.getMessage(), bytes);
        }
        liveBytes.addAndGet(bytes);
        return new HostBuffer(arena, segment);
    }

    private MemorySegment segment(DeviceBuffer buffer) {
        if (!(buffer instanceof HostBuffer hb) || hb.device() != this) {
            throw new IllegalArgumentException("buffer does not belong to this host device");
        }
        return hb.segment;
    }

    @Override
    public void memset(DeviceBuffer buffer, long offset, long bytes, byte value) {
        MemoryDevice.checkRange(buffer, offset, bytes);
        segment(buffer).asSlice(offset, bytes).fill(value);
    }

    @Override
    public void copyToHost(DeviceBuffer src, long srcOffset, byte[] dst, int dstOffset, int length) {
        MemoryDevice.checkRange(src, srcOffset, length);
        MemorySegment.copy(segment(src), srcOffset, MemorySegment.ofArray(dst), dstOffset, length);
    }

    @Override
    public void copyFromHost(byte[] src, int srcOffset, DeviceBuffer dst, long dstOffset, int length) {
        MemoryDevice.checkRange(dst, dstOffset, length);
        MemorySegment.copy(MemorySegment.ofArray(src), srcOffset, segment(dst), dstOffset, length);
    }

    @Override
    public void copy(DeviceBuffer src, long srcOffset, DeviceBuffer dst, long dstOffset, long bytes) {
        MemoryDevice.checkRange(src, srcOffset, bytes);
        MemoryDevice.checkRange(dst, dstOffset, bytes);
        MemorySegment.copy(segment(src), srcOffset, segment(dst), dstOffset, bytes);
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return info.id();
    }

    private final class HostBuffer extends AbstractDeviceBuffer {
        private final Arena arena;
        private final MemorySegment segment;

        HostBuffer(Arena arena, MemorySegment segment) {
            super(HostDevice.this, segment.address(), segment.byteSize());
            this.arena = arena;
            this.segment = segment;
        }

        @Override
        public Optional<MemorySegment> hostSegment() {
            return isClosed() ? Optional.empty() : Optional.of(segment);
        }

        @Override
        protected void release() {
            liveBytes.addAndGet(-segment.byteSize());
            arena.close();
        }
    }
}
