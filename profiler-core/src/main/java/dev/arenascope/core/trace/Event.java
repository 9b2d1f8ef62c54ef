package dev.arenascope.core.trace;

/**
 * One event of a session, in its flat form: the same fixed fields for every kind, whose meaning
 * {@link EventKind} lists. The hot path never creates these (it writes binary records); readers,
 * tests and small tools do.
 *
 * @param timeNs   nanoseconds since the session started
 * @param kind     what happened
 * @param flags    kind-specific bits ({@link #FLAG_BACKWARD}, {@link #FLAG_HIT}, ...)
 * @param memory   the memory's id, or -1 for none
 * @param thread   the recording thread's id (see {@link EventSink#onThread})
 * @param a        kind-specific
 * @param b        kind-specific, usually bytes
 * @param c        kind-specific
 * @param used     bytes in use in the memory after the event
 * @param aux      the memory's second gauge after the event (see {@link MemoryKind})
 * @param ref      kind-specific, usually a string id
 * @param ref2     kind-specific, usually a scope id
 * @param site     for allocations ({@link EventKind#ALLOC}, {@link EventKind#POOL_REQUEST},
 *                 {@link EventKind#TENSOR_LIVE}, {@link EventKind#PLAN_BIND}): the allocation site, a
 *                 {@link StackNode} id of the session's {@link SiteTable} (its innermost frame); -1 for none.
 *                 Kept apart from the descriptor ({@code ref}) and the scope ({@code ref2}).
 * @param category for allocations: a label (string id: {@code activation}, {@code kv_cache}, a plan role,
 *                 a PyTorch category) given by the program or importer; -1 for none
 */
public record Event(long timeNs, EventKind kind, int flags, int memory, int thread,
                    long a, long b, long c, long used, long aux, int ref, int ref2, int site, int category) {

    /** An allocation or pointer of the arena's backward end. */
    public static final int FLAG_BACKWARD = 1;
    /** A pool request served from a held block. */
    public static final int FLAG_HIT = 2;
    /**
     * The category an importer gives the allocations that were already live when recording began (a
     * PyTorch snapshot's blocks older than its trace): their start is the recording's, not theirs, and
     * the views name them by it rather than as the program's own allocations at time 0.
     */
    public static final String BEFORE_RECORDING = "live before recording began";
    /** The largest value {@code flags} may take (it is stored in one byte). */
    public static final int MAX_FLAGS = 0xff;

    /** An event without a site or category. */
    public Event(long timeNs, EventKind kind, int flags, int memory, int thread,
                 long a, long b, long c, long used, long aux, int ref, int ref2) {
        this(timeNs, kind, flags, memory, thread, a, b, c, used, aux, ref, ref2, -1, -1);
    }

    public Event {
        if (site < -1 || category < -1) {
            throw new IllegalArgumentException("event site or category below -1: " + site + ", " + category);
        }
        if (kind == null) {
            throw new IllegalArgumentException("event kind is null");
        }
        if (flags < 0 || flags > MAX_FLAGS) {
            throw new IllegalArgumentException("event flags out of range: " + flags);
        }
    }

    /** This event with {@code site} and {@code category} (-1 for none). */
    public Event withSite(int newSite, int newCategory) {
        return new Event(timeNs, kind, flags, memory, thread, a, b, c, used, aux, ref, ref2, newSite, newCategory);
    }

    /** Whether {@code flag} is set. */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
