package dev.arenascope.workloads;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.MemoryDevice;

/**
 * Lets the workloads' host kernels work on any device's memory. On the host device a kernel gets
 * the buffer's own bytes. On CUDA it gets a heap copy that {@link Window#commit()} writes back with a
 * real {@code cudaMemcpy} (and that {@code load} fills first when the kernel reads what is there). On
 * the virtual device, which has no bytes, it gets a scratch copy whose result is dropped: the kernel
 * still runs (the counts it produces drive the allocations) but only the accounting reaches the device.
 */
public final class Staging {
    private Staging() {}

    /**
     * A window on {@code bytes} bytes at {@code offset} of {@code buffer}.
     *
     * @param host the host segment of exactly that range when the device is the host, else empty
     * @param load whether a staged copy must first be filled with the device's bytes
     * @throws IllegalArgumentException when a staged window would exceed 2 GiB (a Java array)
     */
    public static Window open(MemoryDevice device, DeviceBuffer buffer, long offset, long bytes, Optional<MemorySegment> host, boolean load) {
        if (host.isPresent()) {
            return new Window(host.get(), null, null, 0, false);
        }
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a staged window of " + bytes + " bytes exceeds what a Java array holds");
        }
        boolean real = device.info().kind() == DeviceKind.CUDA;
        if (!real) {
            // virtual: a native scratch segment (faster for the kernels than a heap array), freed by GC
            return new Window(Arena.ofAuto().allocate(Math.max(1, bytes), 8).asSlice(0, bytes), null, null, 0, false);
        }
        byte[] copy = new byte[(int) bytes];
        if (load && bytes > 0) {
            device.copyToHost(buffer, offset, copy, 0, (int) bytes);
        }
        return new Window(MemorySegment.ofArray(copy), device, buffer, offset, true);
    }

    /** A segment to work on, and how its result reaches the device. Not thread-safe. */
    public static final class Window {
        private final MemorySegment segment;
        private final MemoryDevice device;
        private final DeviceBuffer buffer;
        private final long offset;
        private final boolean staged;

        private Window(MemorySegment segment, MemoryDevice device, DeviceBuffer buffer, long offset, boolean staged) {
            this.segment = segment;
            this.device = device;
            this.buffer = buffer;
            this.offset = offset;
            this.staged = staged;
        }

        /** The bytes to read and write (offset 0 = the window's start). */
        public MemorySegment segment() {
            return segment;
        }

        /** Writes a staged copy back to the device (CUDA); nothing for host and virtual. */
        public void commit() {
            if (staged && segment.byteSize() > 0) {
                device.copyFromHost((byte[]) segment.heapBase().orElseThrow(), 0, buffer, offset, (int) segment.byteSize());
            }
        }
    }
}
