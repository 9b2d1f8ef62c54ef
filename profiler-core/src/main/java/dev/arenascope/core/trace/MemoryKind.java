package dev.arenascope.core.trace;

/**
 * The kinds of memory a session tracks, with what each one's second gauge ({@link Event#aux()}) means.
 * Stable codes, as for {@link EventKind}.
 */
public enum MemoryKind {
    /** A two-pointer bump arena ({@code ManualMemory}). aux = bytes held by the backward end. */
    ARENA(1),
    /** A binned pool ({@code MemoryPool}). aux = bytes reserved from the device (in use plus held). */
    POOL(2),
    /** A plan's scratch arena. aux = 0. */
    PLAN_SCRATCH(3),
    /** A plan's persistent arena. aux = 0. */
    PLAN_PERSISTENT(4),
    /** A plan's constant arena (cold or staged). aux = 0. */
    PLAN_CONSTANT(5),
    /** An imported caching allocator's device memory (PyTorch). aux = bytes reserved in segments. */
    SEGMENTED(6);

    private final int code;

    MemoryKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The kind with this code, or null. */
    public static MemoryKind ofCode(int code) {
        for (MemoryKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return null;
    }

    /** Whether the memory is a two-pointer arena, drawn from both ends. */
    public boolean twoPointer() {
        return this == ARENA;
    }
}
