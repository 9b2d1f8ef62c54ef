package dev.arenascope.core.plan;

import java.util.Objects;

/**
 * Where a tensor lives: its role (and so its arena), the memory bank of the arena, the byte offset
 * inside the arena, and the memory its bytes come from.
 *
 * @param role         which arena map holds the tensor's arena
 * @param memory       the bank of the arena the tensor is placed in
 * @param offset       byte offset of the tensor inside that arena
 * @param sourceMemory the bank the tensor's initial bytes come from: for constants the bank of the
 *                     source blob (equal to {@code memory} for a cold arena); for other roles
 *                     usually equal to {@code memory}. Null means "same as memory".
 */
public record TensorBinding(TensorRole role, String memory, long offset, String sourceMemory) {
    public TensorBinding {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(memory, "memory");
        if (sourceMemory == null) {
            sourceMemory = memory;
        }
    }

    /** A binding whose source memory is its memory. */
    public TensorBinding(TensorRole role, String memory, long offset) {
        this(role, memory, offset, memory);
    }

    /** This binding moved to another offset. */
    public TensorBinding withOffset(long newOffset) {
        return new TensorBinding(role, memory, newOffset, sourceMemory);
    }
}
