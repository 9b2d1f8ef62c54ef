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

    /*
     * The one definition of an arena's figures, shared by the window (painter, hover card, lane label)
     * and the reports: an arena's used gauge is forward plus backward, its aux gauge the backward end.
     * For every other kind the used gauge is all there is "forward" and nothing is held backward.
     */

    /**
     * Bytes held by the forward end (or, for other kinds, all bytes in use) given an event's
     * {@code used} and {@code aux} gauges.
     */
    public long forward(long used, long aux) {
        return twoPointer() ? Math.max(0, used - aux) : used;
    }

    /** Bytes held by an arena's backward end; 0 for kinds without one. */
    public long backward(long aux) {
        return twoPointer() ? aux : 0;
    }

    /** Bytes in use in total (an arena's forward plus backward end): the {@code used} gauge itself. */
    public long inUse(long used) {
        return used;
    }
}
