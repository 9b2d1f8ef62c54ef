package dev.arenascope.core.device;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.format.Bytes;

/**
 * A device of addresses and accounting only: no bytes exist. It lets a dry run, a size probe or the
 * replay of a trace far larger than this machine go through the same code paths as a real device.
 *
 * <p>Addresses start at {@code 0x7f00_0000_0000}, are 256-byte aligned and never reused. Capacity is
 * enforced: an allocation past it throws {@link DeviceOutOfMemoryException} like a real device.
 */
public final class VirtualDevice implements MemoryDevice {
    /** The default capacity, 80 GiB, about one datacenter GPU. */
    public static final long DEFAULT_CAPACITY = 80L << 30;
    private static final long BASE = 0x7f00_0000_0000L;
    private final DeviceInfo info;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong nextAddress = new AtomicLong(BASE);

    /** A virtual device of {@link #DEFAULT_CAPACITY} bytes. */
    public VirtualDevice() {
        this(DEFAULT_CAPACITY);
    }

    /**
     * A virtual device: addresses and accounting only, no bytes behind them.
     *
     * @param capacityBytes its capacity, positive; allocations past it throw {@link DeviceOutOfMemoryException}
     * @throws IllegalArgumentException when {@code capacityBytes <= 0}
     */
    public VirtualDevice(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("virtual device capacity must be positive, got " + capacityBytes);
        }
        this.info = new DeviceInfo(DeviceKind.VIRTUAL, 0, "virtual (accounting only)", capacityBytes, capacityBytes);
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public long freeBytes() {
        return info.totalBytes() - used.get();
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("allocation size must be positive, got " + bytes);
        }
        long before;
        do {
            before = used.get();
            if (bytes > info.totalBytes() - before) {
                throw new DeviceOutOfMemoryException("virtual: cannot allocate " + bytes + " bytes ("
                        + Bytes.format(bytes) + "), " + Bytes.format(info.totalBytes() - before) + " free of "
                        + Bytes.format(info.totalBytes()), bytes);
            }
        } while (!used.compareAndSet(before, before + bytes));
        long span = (bytes + 255) & ~255L;
        long address = nextAddress.getAndAdd(span + 256);
        return new VirtualBuffer(address, bytes);
    }

    @Override
    public void memset(DeviceBuffer buffer, long offset, long bytes, byte value) {
        own(buffer);
        MemoryDevice.checkRange(buffer, offset, bytes);
    }

    @Override
    public void copyToHost(DeviceBuffer src, long srcOffset, byte[] dst, int dstOffset, int length) {
        own(src);
        MemoryDevice.checkRange(src, srcOffset, length);
        Arrays.fill(dst, dstOffset, dstOffset + length, (byte) 0);
    }

    @Override
    public void copyFromHost(byte[] src, int srcOffset, DeviceBuffer dst, long dstOffset, int length) {
        own(dst);
        MemoryDevice.checkRange(dst, dstOffset, length);
        Objects.checkFromIndexSize(srcOffset, length, src.length);
    }

    @Override
    public void copy(DeviceBuffer src, long srcOffset, DeviceBuffer dst, long dstOffset, long bytes) {
        own(src);
        own(dst);
        MemoryDevice.checkRange(src, srcOffset, bytes);
        MemoryDevice.checkRange(dst, dstOffset, bytes);
    }

    private void own(DeviceBuffer buffer) {
        if (!(buffer instanceof VirtualBuffer vb) || vb.device() != this) {
            throw new IllegalArgumentException("buffer does not belong to this virtual device");
        }
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return info.id();
    }

    private final class VirtualBuffer extends AbstractDeviceBuffer {
        VirtualBuffer(long address, long size) {
            super(VirtualDevice.this, address, size);
        }

        @Override
        protected void release() {
            used.addAndGet(-size());
        }
    }
}
