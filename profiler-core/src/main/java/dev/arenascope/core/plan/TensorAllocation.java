package dev.arenascope.core.plan;

import java.util.Objects;

/**
 * One tensor's slot: its size in bytes and its {@link TensorBinding}.
 *
 * @param size    bytes the tensor occupies (not negative)
 * @param binding role, memory, offset and source memory
 */
public record TensorAllocation(long size, TensorBinding binding) {
    public TensorAllocation {
        Objects.requireNonNull(binding, "binding");
        if (size < 0) {
            throw new IllegalArgumentException("tensor size is negative: " + size);
        }
    }

    /** First byte past the tensor inside its arena. */
    public long end() {
        return binding.offset() + size;
    }
}
