package dev.arenascope.core.plan;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.MemoryDevice;

/**
 * A tensor bound by a {@link PlanRuntime}: a view of {@code size} bytes at {@code offset} inside its
 * arena's device buffer. Reads and writes go through the buffer's device and are checked to stay inside
 * the view ({@link IndexOutOfBoundsException} otherwise). Thread-safety is the device's.
 *
 * @param id     the tensor id
 * @param role   its role (arena map)
 * @param arena  the arena it lives in
 * @param buffer the arena's device buffer
 * @param offset byte offset of the view in the buffer
 * @param size   bytes of the view
 */
public record PlanTensor(String id, TensorRole role, PlanArena arena, DeviceBuffer buffer, long offset, long size) {

    private MemoryDevice device() {
        return buffer.device();
    }

    private void check(long at, long bytes) {
        if (at < 0 || bytes < 0 || at > size - bytes) {
            throw new IndexOutOfBoundsException("range [" + at + ", " + at + " + " + bytes + ") outside tensor '" + id
                    + "' of " + size + " bytes");
        }
    }

    /** Copies {@code length} bytes of {@code src[srcOffset..]} into the tensor at byte {@code at}. */
    public void write(long at, byte[] src, int srcOffset, int length) {
        check(at, length);
        device().copyFromHost(src, srcOffset, buffer, offset + at, length);
    }

    /** Copies {@code length} bytes from the tensor at byte {@code at} into {@code dst[dstOffset..]}. */
    public void read(long at, byte[] dst, int dstOffset, int length) {
        check(at, length);
        device().copyToHost(buffer, offset + at, dst, dstOffset, length);
    }

    /** Sets every byte of the tensor to {@code value}. */
    public void fill(byte value) {
        device().memset(buffer, offset, size, value);
    }

    /** Copies this whole tensor into {@code dst} (device to device); sizes must match. */
    public void copyTo(PlanTensor dst) {
        if (dst.size != size) {
            throw new IllegalArgumentException("tensor '" + id + "' has " + size + " bytes, '" + dst.id + "' has " + dst.size);
        }
        device().copy(buffer, offset, dst.buffer, dst.offset, size);
    }
}
