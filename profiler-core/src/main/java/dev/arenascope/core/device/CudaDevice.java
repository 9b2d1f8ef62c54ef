package dev.arenascope.core.device;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaDeviceProp;
import jcuda.runtime.cudaError;
import jcuda.runtime.cudaMemcpyKind;

/**
 * An NVIDIA GPU through JCuda's runtime API: {@code cudaMemGetInfo}, {@code cudaMalloc},
 * {@code cudaFree}, {@code cudaMemset} and {@code cudaMemcpy} on one device index.
 *
 * <p>Use {@link #probe(int)} to learn whether a device answers before opening it: without a driver
 * the runtime answers 35 ({@code cudaErrorInsufficientDriver}) and the driver API cannot load
 * {@code libcuda.so.1}; {@link #open(int)} then throws {@link DeviceUnavailableException} with that reason.
 * Every call selects the device first, so any thread may use the device.
 */
public final class CudaDevice implements MemoryDevice {
    private static final Pattern NATIVE_POINTER = Pattern.compile("nativePointer=0x([0-9a-fA-F]+)");
    private final int index;
    private final DeviceInfo info;
    private volatile boolean closed;

    private CudaDevice(int index, DeviceInfo info) {
        this.index = index;
        this.info = info;
    }

    /** Why CUDA device {@code index} cannot be used here, or empty when it answers. Never throws. */
    public static Optional<String> probe(int index) {
        try {
            int[] count = new int[1];
            int rc = JCuda.cudaGetDeviceCount(count);
            if (rc != cudaError.cudaSuccess) {
                return Optional.of("CUDA runtime answered " + rc + " (" + cudaError.stringFor(rc) + ")"
                        + (rc == cudaError.cudaErrorInsufficientDriver ? ": no CUDA driver on this machine" : ""));
            }
            if (index < 0 || index >= count[0]) {
                return Optional.of("CUDA device " + index + " does not exist (" + count[0] + " device(s) present)");
            }
            return Optional.empty();
        } catch (LinkageError e) {
            return Optional.of("JCuda native library not loadable: " + e.getMessage());
        } catch (RuntimeException e) {
            return Optional.of("CUDA unavailable: " + e);
        }
    }

    /**
     * Opens CUDA device {@code index}.
     *
     * @throws DeviceUnavailableException with the reason when no such device answers
     */
    public static CudaDevice open(int index) {
        Optional<String> why = probe(index);
        if (why.isPresent()) {
            throw new DeviceUnavailableException(why.get());
        }
        check(JCuda.cudaSetDevice(index), "cudaSetDevice(" + index + ")");
        cudaDeviceProp prop = new cudaDeviceProp();
        check(JCuda.cudaGetDeviceProperties(prop, index), "cudaGetDeviceProperties");
        long[] free = new long[1];
        long[] total = new long[1];
        check(JCuda.cudaMemGetInfo(free, total), "cudaMemGetInfo");
        String name = new String(prop.name, StandardCharsets.US_ASCII).trim().replace("\0", "");
        return new CudaDevice(index, new DeviceInfo(DeviceKind.CUDA, index, name, total[0], free[0]));
    }

    private static void check(int rc, String what) {
        if (rc != cudaError.cudaSuccess) {
            throw new IllegalStateException(what + " failed: " + rc + " (" + cudaError.stringFor(rc) + ")");
        }
    }

    private void select() {
        if (closed) {
            throw new IllegalStateException(info.id() + " is closed");
        }
        check(JCuda.cudaSetDevice(index), "cudaSetDevice(" + index + ")");
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public long freeBytes() {
        select();
        long[] free = new long[1];
        long[] total = new long[1];
        check(JCuda.cudaMemGetInfo(free, total), "cudaMemGetInfo");
        return free[0];
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("allocation size must be positive, got " + bytes);
        }
        select();
        Pointer p = new Pointer();
        int rc = JCuda.cudaMalloc(p, bytes);
        if (rc == cudaError.cudaErrorMemoryAllocation) {
            JCuda.cudaGetLastError(); // clear the sticky-free error state of this thread
            throw new DeviceOutOfMemoryException(info.id() + ": cudaMalloc of " + bytes + " bytes failed (out of memory)", bytes);
        }
        check(rc, "cudaMalloc(" + bytes + ")");
        return new CudaBuffer(p, bytes);
    }

    private Pointer at(DeviceBuffer buffer, long offset) {
        if (!(buffer instanceof CudaBuffer cb) || cb.device() != this) {
            throw new IllegalArgumentException("buffer does not belong to " + info.id());
        }
        return cb.pointer.withByteOffset(offset);
    }

    @Override
    public void memset(DeviceBuffer buffer, long offset, long bytes, byte value) {
        MemoryDevice.checkRange(buffer, offset, bytes);
        select();
        check(JCuda.cudaMemset(at(buffer, offset), value & 0xff, bytes), "cudaMemset");
    }

    @Override
    public void copyToHost(DeviceBuffer src, long srcOffset, byte[] dst, int dstOffset, int length) {
        MemoryDevice.checkRange(src, srcOffset, length);
        Objects.checkFromIndexSize(dstOffset, length, dst.length);
        select();
        check(JCuda.cudaMemcpy(Pointer.to(dst).withByteOffset(dstOffset), at(src, srcOffset), length,
                cudaMemcpyKind.cudaMemcpyDeviceToHost), "cudaMemcpy(device to host)");
    }

    @Override
    public void copyFromHost(byte[] src, int srcOffset, DeviceBuffer dst, long dstOffset, int length) {
        MemoryDevice.checkRange(dst, dstOffset, length);
        Objects.checkFromIndexSize(srcOffset, length, src.length);
        select();
        check(JCuda.cudaMemcpy(at(dst, dstOffset), Pointer.to(src).withByteOffset(srcOffset), length,
                cudaMemcpyKind.cudaMemcpyHostToDevice), "cudaMemcpy(host to device)");
    }

    @Override
    public void copy(DeviceBuffer src, long srcOffset, DeviceBuffer dst, long dstOffset, long bytes) {
        MemoryDevice.checkRange(src, srcOffset, bytes);
        MemoryDevice.checkRange(dst, dstOffset, bytes);
        select();
        check(JCuda.cudaMemcpy(at(dst, dstOffset), at(src, srcOffset), bytes,
                cudaMemcpyKind.cudaMemcpyDeviceToDevice), "cudaMemcpy(device to device)");
    }

    /** Waits for all work queued on the device. */
    public void synchronize() {
        select();
        check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return info.id() + " (" + info.name() + ")";
    }

    /** The raw device pointer of a JCuda pointer; JCuda exposes it only through {@code toString()}. */
    static long nativeAddress(Pointer p) {
        Matcher m = NATIVE_POINTER.matcher(p.toString());
        return m.find() ? Long.parseUnsignedLong(m.group(1), 16) : 0L;
    }

    /** The JCuda pointer of a buffer of a CUDA device, for kernels that take device pointers. */
    public static Pointer pointerOf(DeviceBuffer buffer) {
        if (!(buffer instanceof CudaBuffer cb)) {
            throw new IllegalArgumentException("not a CUDA buffer: " + buffer);
        }
        return cb.pointer;
    }

    private final class CudaBuffer extends AbstractDeviceBuffer {
        private final Pointer pointer;

        CudaBuffer(Pointer pointer, long size) {
            super(CudaDevice.this, nativeAddress(pointer), size);
            this.pointer = pointer;
        }

        @Override
        protected void release() {
            JCuda.cudaSetDevice(index);
            JCuda.cudaFree(pointer);
        }
    }
}
