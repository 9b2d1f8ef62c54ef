package dev.arenascope.core.device;

import dev.arenascope.core.format.Bytes;

/**
 * One small interface over the memory of a device: CUDA, host or virtual.
 *
 * <p>Offsets and lengths are in bytes. Every method that takes a buffer checks that the range lies
 * inside it and throws {@link IndexOutOfBoundsException} otherwise, and {@link IllegalStateException}
 * on a closed buffer or device. Implementations are thread-safe: pools share one device between
 * worker threads.
 *
 * <p>On the {@linkplain DeviceKind#VIRTUAL virtual} device no bytes exist: {@code memset} and the
 * copies only check their ranges, and reads return zeros.
 */
public interface MemoryDevice extends AutoCloseable {

    /** What this device is, with its memory at the time it was opened. */
    DeviceInfo info();

    /** Bytes the device can still hand out now. */
    long freeBytes();

    /** Total bytes of the device. */
    default long totalBytes() {
        return info().totalBytes();
    }

    /**
     * Allocates {@code bytes} (at least 1) of device memory, aligned to at least 256 bytes.
     *
     * @throws IllegalArgumentException  if {@code bytes <= 0}
     * @throws DeviceOutOfMemoryException if the device has not that much memory
     */
    DeviceBuffer allocate(long bytes);

    /** Sets {@code bytes} bytes from {@code offset} to {@code value}. */
    void memset(DeviceBuffer buffer, long offset, long bytes, byte value);

    /** Copies {@code length} bytes from the device to {@code dst[dstOffset..]}. */
    void copyToHost(DeviceBuffer src, long srcOffset, byte[] dst, int dstOffset, int length);

    /** Copies {@code length} bytes of {@code src[srcOffset..]} to the device. */
    void copyFromHost(byte[] src, int srcOffset, DeviceBuffer dst, long dstOffset, int length);

    /** Copies {@code bytes} bytes between two buffers of this device (device to device). */
    void copy(DeviceBuffer src, long srcOffset, DeviceBuffer dst, long dstOffset, long bytes);

    /** Releases the device's own resources; buffers still open are freed. */
    @Override
    void close();

    /** Checks that {@code [offset, offset + bytes)} lies inside {@code buffer}. */
    static void checkRange(DeviceBuffer buffer, long offset, long bytes) {
        if (buffer.isClosed()) {
            throw new IllegalStateException("buffer at 0x" + Long.toHexString(buffer.address()) + " is closed");
        }
        if (offset < 0 || bytes < 0 || offset > buffer.size() - bytes) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + " + " + bytes
                    + ") outside a buffer of " + buffer.size() + " bytes");
        }
    }
}
