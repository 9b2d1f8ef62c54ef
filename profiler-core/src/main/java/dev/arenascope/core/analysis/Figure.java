package dev.arenascope.core.analysis;

/**
 * One named figure of an analysis row, as reports print it and baselines compare it.
 *
 * <p>{@code key} is stable (it is a JSON field name and the key a baseline is matched by);
 * {@code label} is for people. Integral units ({@link Unit#BYTES}, {@link Unit#COUNT},
 * {@link Unit#NANOS}, {@link Unit#TIME}) hold whole numbers in {@code value}; bytes stay exact up
 * to 2<sup>53</sup> (8 PiB).
 *
 * @param key    stable camelCase name, e.g. {@code peakUsedBytes}
 * @param label  short human label, e.g. {@code peak in use}
 * @param unit   how to read and print the value
 * @param value  the value (NaN when it is not defined for this row, e.g. a ratio over zero bytes)
 * @param better which direction is an improvement; {@link Better#NEITHER} for facts such as times
 * @param peak   whether the figure is a peak of bytes, which {@code --fail-on-regression} gates on
 */
public record Figure(String key, String label, Unit unit, double value, Better better, boolean peak) {

    /** How a figure's value is read. */
    public enum Unit {
        /** A byte count. */
        BYTES,
        /** A count of things. */
        COUNT,
        /** A duration in nanoseconds. */
        NANOS,
        /** A point in time: nanoseconds since the session started. */
        TIME,
        /** A share between 0 and 1, printed as a percentage. */
        RATIO,
        /** A multiplier, printed as {@code 3.2x}. */
        FACTOR;

        /** Whether values of this unit are whole numbers. */
        public boolean integral() {
            return this == BYTES || this == COUNT || this == NANOS || this == TIME;
        }
    }

    /** Which direction of change is an improvement. */
    public enum Better {
        LOWER, HIGHER, NEITHER
    }

    /** A lower-is-better byte figure. */
    static Figure bytes(String key, String label, long value, boolean peak) {
        return new Figure(key, label, Unit.BYTES, value, Better.LOWER, peak);
    }

    static Figure count(String key, String label, long value, Better better) {
        return new Figure(key, label, Unit.COUNT, value, better, false);
    }

    static Figure ratio(String key, String label, double value, Better better) {
        return new Figure(key, label, Unit.RATIO, value, better, false);
    }

    static Figure time(String key, String label, long ns) {
        return new Figure(key, label, Unit.TIME, ns, Better.NEITHER, false);
    }

    /** Whether the value is defined (not NaN). */
    public boolean defined() {
        return !Double.isNaN(value);
    }

    /** The value as a long (integral units). */
    public long longValue() {
        return (long) value;
    }
}
