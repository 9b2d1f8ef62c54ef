package dev.arenascope.core.pool;

/**
 * The bin math of a {@link MemoryPool}, bit-exact with pyopencl's and pycuda's memory pools.
 *
 * <p>A size's bin number is its binary exponent followed by the {@code m} bits just below its leading
 * one ({@code m} = mantissa bits): {@code binNumber(size) = (floor(log2 size) << m) | mantissa}. Sizes
 * below {@code 2^m} get exact bins; {@code binNumber(0) == 0}. A bin's {@linkplain #allocSize size}
 * is the largest size that falls in it, so every request is rounded up by less than
 * {@code 2^(exponent - m)} bytes, a relative waste below {@code 2^-m}. Worked example with
 * {@code m = 4}: 1000 is {@code 0b11_1110_1000}; exponent 9, the four bits below the leading one are
 * {@code 1111}, so the bin is {@code 9 << 4 | 15 = 159}, whose largest size is 1023.
 *
 * <p>All arithmetic is 64-bit: sizes up to {@link Long#MAX_VALUE} have bins (exponent at most 62).
 * Guarantees: {@code allocSize(binNumber(x)) >= x} and {@code binNumber(allocSize(b)) == b} for every
 * bin {@code b} that some size maps to. Stateless and thread-safe; a few shifts and masks.
 */
public final class Bins {
    /** The most mantissa bits a pool accepts (65,536 bins per power of two). */
    public static final int MAX_MANTISSA_BITS = 16;
    /** The largest binary exponent of a positive {@code long}. */
    static final int MAX_EXPONENT = 62;

    private Bins() {}

    /**
     * The bin of a request of {@code size} bytes.
     *
     * @throws IllegalArgumentException if {@code size < 0} or {@code mantissaBits} is outside 0..16
     */
    public static int binNumber(long size, int mantissaBits) {
        checkMantissaBits(mantissaBits);
        if (size < 0) {
            throw new IllegalArgumentException("negative size: " + size + " bytes");
        }
        return bin(size, mantissaBits);
    }

    /** {@link #binNumber} without the checks: {@code size >= 0}, {@code mantissaBits} in range. */
    static int bin(long size, int mantissaBits) {
        int exponent = size == 0 ? 0 : 63 - Long.numberOfLeadingZeros(size);
        long shifted = shift(size, mantissaBits - exponent);
        int mantissa = (int) (shifted & ((1L << mantissaBits) - 1));
        return exponent << mantissaBits | mantissa;
    }

    /**
     * The bytes a pool allocates for bin {@code bin}: the largest size in it.
     *
     * @throws IllegalArgumentException if {@code bin < 0}, its exponent is past 62, or
     *                                  {@code mantissaBits} is outside 0..16
     */
    public static long allocSize(int bin, int mantissaBits) {
        checkMantissaBits(mantissaBits);
        if (bin < 0 || (bin >>> mantissaBits) > MAX_EXPONENT) {
            throw new IllegalArgumentException("no bin " + bin + " with " + mantissaBits + " mantissa bits (exponents 0.."
                    + MAX_EXPONENT + ")");
        }
        return size(bin, mantissaBits);
    }

    /** {@link #allocSize} without the checks. */
    static long size(int bin, int mantissaBits) {
        int exponent = bin >>> mantissaBits;
        long mantissa = bin & ((1L << mantissaBits) - 1);
        int s = exponent - mantissaBits;
        long ones = shift(1L, s);
        if (ones != 0) {
            ones -= 1;
        }
        long head = shift(1L << mantissaBits | mantissa, s);
        return head | ones;
    }

    /** {@code x} shifted left by {@code s} bits, or right by {@code -s} when {@code s} is negative. */
    private static long shift(long x, int s) {
        if (s >= 0) {
            return s >= 64 ? 0 : x << s;
        }
        return -s >= 64 ? 0 : x >>> -s;
    }

    static void checkMantissaBits(int mantissaBits) {
        if (mantissaBits < 0 || mantissaBits > MAX_MANTISSA_BITS) {
            throw new IllegalArgumentException("mantissa bits must be in 0.." + MAX_MANTISSA_BITS + ", got " + mantissaBits);
        }
    }
}
