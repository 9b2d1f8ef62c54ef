package dev.arenascope.core.plan;

import java.util.Objects;

/**
 * One buffer of a static allocation problem, in MiniMalloc's terms: {@code size} bytes live over the
 * half-open step interval {@code [lower, upper)}.
 *
 * @param id    the buffer's id (unique in its problem)
 * @param lower first step the buffer is live
 * @param upper one past the last step ({@code > lower})
 * @param size  bytes (not negative)
 */
public record PlanBuffer(String id, long lower, long upper, long size) {
    public PlanBuffer {
        Objects.requireNonNull(id, "id");
        if (size < 0) {
            throw new IllegalArgumentException("buffer '" + id + "' has a negative size " + size);
        }
        if (lower < 0 || lower >= upper) {
            throw new IllegalArgumentException("buffer '" + id + "' has lower " + lower + " >= upper " + upper + " (or lower < 0)");
        }
    }

    /** Whether the two buffers are live at a common step. */
    public boolean overlapsInTime(PlanBuffer o) {
        return lower < o.upper && o.lower < upper;
    }
}
