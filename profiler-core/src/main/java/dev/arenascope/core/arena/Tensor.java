package dev.arenascope.core.arena;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

import dev.arenascope.core.device.DeviceBuffer;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.device.MemoryDevice;

/**
 * A view into an arena's device memory: the arena's buffer plus a byte offset, a shape and a dtype.
 * It owns nothing; its bytes belong to the arena and are reused once the arena's pointer moves back
 * past them (leaving a {@code temp()} scope, {@code resetPointer}, {@code reset}). Elements are stored
 * densely in row-major order, little-endian.
 *
 * <p>Element access ({@link #getFloat}, {@link #setLong}, ...) works only for host memory, where the
 * bytes are addressable from Java; {@link #copyToHost}/{@link #copyFromHost} work on every device
 * (CUDA copies through {@code cudaMemcpy}; the virtual device reads zeros and ignores writes).
 * Immutable; element access is as thread-safe as the memory it reads.
 */
public final class Tensor {
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final DeviceBuffer buffer;
    private final long byteOffset;
    private final long[] shape;
    private final DType dtype;
    private final long numel;

    /** Package-private: tensors come from an arena, which has validated shape and range. */
    Tensor(DeviceBuffer buffer, long byteOffset, long[] shape, DType dtype, long numel) {
        this.buffer = buffer;
        this.byteOffset = byteOffset;
        this.shape = shape;
        this.dtype = dtype;
        this.numel = numel;
    }

    /** The arena's device buffer this tensor is a view into. */
    public DeviceBuffer buffer() {
        return buffer;
    }

    /** The device holding the bytes. */
    public MemoryDevice device() {
        return buffer.device();
    }

    /** Offset of the first byte from the start of the arena, in bytes; a multiple of the item size. */
    public long byteOffset() {
        return byteOffset;
    }

    /** Absolute address of the first byte: device pointer (CUDA), native address (host), synthetic (virtual). */
    public long address() {
        return buffer.address() + byteOffset;
    }

    /** Size in bytes: {@code numel() * dtype().itemSize()}. */
    public long byteSize() {
        return numel * dtype.itemSize();
    }

    /** A copy of the shape. */
    public long[] shape() {
        return shape.clone();
    }

    /** Number of dimensions. */
    public int rank() {
        return shape.length;
    }

    /** Size of dimension {@code i}. */
    public long dim(int i) {
        return shape[i];
    }

    /** Number of elements (1 for a scalar of rank 0). */
    public long numel() {
        return numel;
    }

    public DType dtype() {
        return dtype;
    }

    /** The descriptor traces use, e.g. {@code float32[1024,3]}. */
    public String descriptor() {
        return descriptor(dtype, shape);
    }

    static String descriptor(DType dtype, long[] shape) {
        StringBuilder sb = new StringBuilder(dtype.id()).append('[');
        for (int i = 0; i < shape.length; i++) {
            sb.append(i == 0 ? "" : ",").append(shape[i]);
        }
        return sb.append(']').toString();
    }

    /** The tensor's bytes as a host segment, present only on the host device. */
    public Optional<MemorySegment> hostSegment() {
        return buffer.hostSegment().map(s -> s.asSlice(byteOffset, byteSize()));
    }

    private MemorySegment host() {
        if (buffer.device().info().kind() != DeviceKind.HOST) {
            throw new UnsupportedOperationException("tensor " + descriptor() + " lives on " + buffer.device().info().id()
                    + ": element access needs host memory; use copyToHost/copyFromHost");
        }
        return buffer.hostSegment().orElseThrow(() -> new IllegalStateException("tensor " + descriptor() + ": its arena is closed"));
    }

    private long at(long index, int... sizes) {
        Objects.checkIndex(index, numel);
        for (int s : sizes) {
            if (s == dtype.itemSize()) {
                return byteOffset + index * s;
            }
        }
        throw new UnsupportedOperationException("tensor is " + dtype + "; this accessor does not read " + dtype);
    }

    /** Element {@code index} (flat, row-major) as a float: float16, bfloat16 and float32 tensors. */
    public float getFloat(long index) {
        MemorySegment m = host();
        return switch (dtype) {
            case FLOAT32 -> m.get(FLOAT, at(index, 4));
            case FLOAT16 -> Float.float16ToFloat(m.get(SHORT, at(index, 2)));
            case BFLOAT16 -> Float.intBitsToFloat((m.get(SHORT, at(index, 2)) & 0xffff) << 16);
            default -> throw new UnsupportedOperationException("getFloat on a " + dtype + " tensor");
        };
    }

    /** Sets element {@code index} of a float16, bfloat16 or float32 tensor (rounding to the narrower format). */
    public void setFloat(long index, float value) {
        MemorySegment m = host();
        switch (dtype) {
            case FLOAT32 -> m.set(FLOAT, at(index, 4), value);
            case FLOAT16 -> m.set(SHORT, at(index, 2), Float.floatToFloat16(value));
            case BFLOAT16 -> m.set(SHORT, at(index, 2), toBfloat16(value));
            default -> throw new UnsupportedOperationException("setFloat on a " + dtype + " tensor");
        }
    }

    private static short toBfloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        int rounding = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + rounding) >>> 16);
    }

    /** Element {@code index} of a float64 tensor (other float dtypes widen). */
    public double getDouble(long index) {
        return dtype == DType.FLOAT64 ? host().get(DOUBLE, at(index, 8)) : getFloat(index);
    }

    /** Sets element {@code index} of a float64 tensor (other float dtypes narrow). */
    public void setDouble(long index, double value) {
        if (dtype == DType.FLOAT64) {
            host().set(DOUBLE, at(index, 8), value);
        } else {
            setFloat(index, (float) value);
        }
    }

    /** Element {@code index} of an integer or bool tensor, sign-extended (uint8 zero-extended). */
    public long getLong(long index) {
        MemorySegment m = host();
        return switch (dtype) {
            case BOOL, UINT8 -> m.get(ValueLayout.JAVA_BYTE, at(index, 1)) & 0xffL;
            case INT8 -> m.get(ValueLayout.JAVA_BYTE, at(index, 1));
            case INT16 -> m.get(SHORT, at(index, 2));
            case INT32 -> m.get(INT, at(index, 4));
            case INT64 -> m.get(LONG, at(index, 8));
            default -> throw new UnsupportedOperationException("getLong on a " + dtype + " tensor");
        };
    }

    /** Sets element {@code index} of an integer or bool tensor, truncating to its width. */
    public void setLong(long index, long value) {
        MemorySegment m = host();
        switch (dtype) {
            case BOOL, UINT8, INT8 -> m.set(ValueLayout.JAVA_BYTE, at(index, 1), (byte) value);
            case INT16 -> m.set(SHORT, at(index, 2), (short) value);
            case INT32 -> m.set(INT, at(index, 4), (int) value);
            case INT64 -> m.set(LONG, at(index, 8), value);
            default -> throw new UnsupportedOperationException("setLong on a " + dtype + " tensor");
        }
    }

    /** Sets every byte of the tensor to {@code value} on its device ({@code cudaMemset} on CUDA). */
    public void fill(byte value) {
        buffer.device().memset(buffer, byteOffset, byteSize(), value);
    }

    /**
     * The tensor's bytes copied to a new host array (through {@code cudaMemcpy} on CUDA).
     *
     * @throws IllegalStateException when the tensor is larger than a Java array (2 GiB)
     */
    public byte[] copyToHost() {
        byte[] out = new byte[checkedLength()];
        copyToHost(out);
        return out;
    }

    /** Copies the tensor's bytes into {@code dst}, which must be exactly {@link #byteSize()} long. */
    public void copyToHost(byte[] dst) {
        requireLength(dst.length);
        buffer.device().copyToHost(buffer, byteOffset, dst, 0, dst.length);
    }

    /** Copies {@code src}, exactly {@link #byteSize()} bytes, into the tensor. */
    public void copyFromHost(byte[] src) {
        requireLength(src.length);
        buffer.device().copyFromHost(src, 0, buffer, byteOffset, src.length);
    }

    /** The elements of a float32 tensor copied to the host. */
    public float[] toFloatArray() {
        requireDType(DType.FLOAT32);
        float[] out = new float[Math.toIntExact(numel)];
        ByteBuffer.wrap(copyToHost()).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }

    /** Copies {@code values}, one per element, into a float32 tensor. */
    public void copyFromHost(float[] values) {
        requireDType(DType.FLOAT32);
        if (values.length != numel) {
            throw new IllegalArgumentException("tensor " + descriptor() + " has " + numel + " elements, got " + values.length);
        }
        ByteBuffer bb = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bb.asFloatBuffer().put(values);
        copyFromHost(bb.array());
    }

    /** The elements of an int32 tensor copied to the host. */
    public int[] toIntArray() {
        requireDType(DType.INT32);
        int[] out = new int[Math.toIntExact(numel)];
        ByteBuffer.wrap(copyToHost()).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
        return out;
    }

    /** Copies {@code values}, one per element, into an int32 tensor. */
    public void copyFromHost(int[] values) {
        requireDType(DType.INT32);
        if (values.length != numel) {
            throw new IllegalArgumentException("tensor " + descriptor() + " has " + numel + " elements, got " + values.length);
        }
        ByteBuffer bb = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bb.asIntBuffer().put(values);
        copyFromHost(bb.array());
    }

    private void requireDType(DType want) {
        if (dtype != want) {
            throw new UnsupportedOperationException("tensor is " + dtype + ", not " + want);
        }
    }

    private int checkedLength() {
        long n = byteSize();
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("tensor " + descriptor() + " of " + n + " bytes does not fit a Java array");
        }
        return (int) n;
    }

    private void requireLength(int length) {
        if (length != byteSize()) {
            throw new IllegalArgumentException("tensor " + descriptor() + " is " + byteSize() + " bytes, the array " + length);
        }
    }

    @Override
    public String toString() {
        return descriptor() + "@" + byteOffset + " on " + buffer.device().info().id();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tensor t && t.buffer == buffer && t.byteOffset == byteOffset && t.dtype == dtype && Arrays.equals(t.shape, shape);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(byteOffset) * 31 + Arrays.hashCode(shape);
    }
}
