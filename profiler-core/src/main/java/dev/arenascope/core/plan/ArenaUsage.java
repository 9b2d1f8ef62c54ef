package dev.arenascope.core.plan;

import java.util.Objects;

/**
 * One arena of a plan: a contiguous block of {@code size} bytes in the bank {@code memory}.
 *
 * <p>For constant arenas {@code sourceMemory} tells the two shapes apart: <b>cold</b> when it equals
 * {@code memory} (the arena is the read-only blob itself, read in place, nothing to hydrate) and
 * <b>staged</b> when it differs (the arena is a writable copy hydrated from the blob stored in
 * {@code sourceMemory} before the first run). Scratch and persistent arenas have
 * {@code sourceMemory == memory}.
 *
 * @param memory       the bank holding the arena
 * @param size         the arena's size in bytes (not negative)
 * @param sourceMemory the bank the arena's initial bytes come from; null means {@code memory}
 */
public record ArenaUsage(String memory, long size, String sourceMemory) {
    public ArenaUsage {
        Objects.requireNonNull(memory, "memory");
        if (size < 0) {
            throw new IllegalArgumentException("arena size is negative: " + size);
        }
        if (sourceMemory == null) {
            sourceMemory = memory;
        }
    }

    /** An arena whose source is itself (scratch, persistent, or a cold constant arena). */
    public ArenaUsage(String memory, long size) {
        this(memory, size, memory);
    }

    /** Whether this (constant) arena is a writable copy hydrated from another bank. */
    public boolean staged() {
        return !sourceMemory.equals(memory);
    }
}
