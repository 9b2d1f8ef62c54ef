package dev.arenascope.core.plan;

import java.util.Objects;

/**
 * A named memory bank a plan places arenas in, e.g. {@code "hbm"} (writable) or {@code "flash"}
 * (read-only, where constant blobs are stored).
 *
 * @param name     the bank's name, unique in its plan
 * @param writable whether kernels may write to the bank; constant source blobs live in read-only banks
 */
public record MemoryBank(String name, boolean writable) {
    public MemoryBank {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("memory bank name is blank");
        }
    }
}
