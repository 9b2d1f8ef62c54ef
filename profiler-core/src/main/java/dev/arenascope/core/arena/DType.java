package dev.arenascope.core.arena;

import java.util.Locale;

/**
 * The element types a {@link Tensor} can hold, with their size in bytes. Names are the ones traces and
 * the command line use ({@code float32}, {@code bfloat16}, ...). An arena aligns every tensor to its
 * dtype's item size.
 */
public enum DType {
    /** A boolean, one byte. */
    BOOL(1),
    /** A signed 8-bit integer. */
    INT8(1),
    /** An unsigned 8-bit integer. */
    UINT8(1),
    /** A signed 16-bit integer. */
    INT16(2),
    /** A signed 32-bit integer. */
    INT32(4),
    /** A signed 64-bit integer. */
    INT64(8),
    /** An IEEE 754 half-precision float, 2 bytes. */
    FLOAT16(2),
    /** A bfloat16 (8 exponent bits, 7 mantissa bits), 2 bytes. */
    BFLOAT16(2),
    /** An IEEE 754 single-precision float, 4 bytes. */
    FLOAT32(4),
    /** An IEEE 754 double-precision float, 8 bytes. */
    FLOAT64(8);

    private static final DType[] VALUES = values();
    private final int itemSize;
    private final String id;

    DType(int itemSize) {
        this.itemSize = itemSize;
        this.id = name().toLowerCase(Locale.ROOT);
    }

    /** Bytes per element (1, 2, 4 or 8). */
    public int itemSize() {
        return itemSize;
    }

    /** The lower-case name used in descriptors and traces, e.g. {@code float32}. */
    public String id() {
        return id;
    }

    /** Whether elements are floating point (float16, bfloat16, float32, float64). */
    public boolean isFloatingPoint() {
        return this == FLOAT16 || this == BFLOAT16 || this == FLOAT32 || this == FLOAT64;
    }

    @Override
    public String toString() {
        return id;
    }

    /**
     * The dtype named {@code name}, case-insensitively; also accepts the common aliases {@code float},
     * {@code double}, {@code half}, {@code int}, {@code long}, {@code short}, {@code byte} and a
     * {@code torch.} prefix.
     *
     * @throws IllegalArgumentException naming the text and the known dtypes when it is none of them
     */
    public static DType parse(String name) {
        if (name == null) {
            throw new IllegalArgumentException("dtype is null; expected one of " + known());
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        if (n.startsWith("torch.")) {
            n = n.substring(6);
        }
        DType alias = switch (n) {
            case "float" -> FLOAT32;
            case "double" -> FLOAT64;
            case "half" -> FLOAT16;
            case "int" -> INT32;
            case "long" -> INT64;
            case "short" -> INT16;
            case "byte" -> INT8;
            case "boolean" -> BOOL;
            default -> null;
        };
        if (alias != null) {
            return alias;
        }
        for (DType d : VALUES) {
            if (d.id.equals(n)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + name + "'; expected one of " + known());
    }

    private static String known() {
        StringBuilder sb = new StringBuilder();
        for (DType d : VALUES) {
            sb.append(sb.isEmpty() ? "" : ", ").append(d.id);
        }
        return sb.toString();
    }
}
