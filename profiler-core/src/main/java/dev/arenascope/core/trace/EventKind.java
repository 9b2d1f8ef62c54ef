package dev.arenascope.core.trace;

/**
 * What an {@link Event} records. The numeric {@link #code()} is stored in files and on the wire and
 * never changes; new kinds take new codes.
 *
 * <p>Every event has a time, a thread and (except {@link #MARKER} and session-wide kinds) a memory.
 * {@link Event#used()} and {@link Event#aux()} are the memory's gauges <em>after</em> the event (see
 * {@link MemoryKind} for what {@code aux} means for each kind of memory). The meaning of the three
 * kind-specific longs {@code a, b, c} and the two ints {@code ref, ref2} is listed per constant;
 * "id" means an id from the session's string table.
 */
public enum EventKind {
    /** A memory was registered. a = base address, b = capacity bytes, ref = name id. */
    MEMORY_CREATED(1),
    /** A memory was closed; its bytes went back to the device. b = capacity bytes. */
    MEMORY_CLOSED(2),
    /**
     * An allocation. a = offset (arenas, plan arenas) or address (pools, imports), b = bytes,
     * c = bytes requested before alignment or rounding, ref = descriptor id (e.g. {@code float32[1024,3]})
     * or -1, ref2 = innermost open scope id or -1 (arenas); flags {@link Event#FLAG_BACKWARD} for the arena's backward end.
     */
    ALLOC(3),
    /** One allocation was freed (pools, imports). a = offset or address, b = bytes. */
    FREE(4),
    /**
     * An arena pointer was set back, releasing everything above (forward) or below (backward) it in
     * one assignment. a = the pointer's new offset, b = bytes released (negative when the pointer was set to
     * claim bytes, as {@code setPointers} may); flags {@link Event#FLAG_BACKWARD}.
     */
    POINTER_RESTORE(5),
    /** The arena was reset to empty. b = bytes released. */
    RESET(6),
    /** A scope opened. a = forward pointer, b = backward pointer, c = parent scope id (-1 at the root), ref = name id, ref2 = scope id. */
    SCOPE_ENTER(7),
    /** A scope closed. a = forward pointer, b = backward pointer, ref = name id, ref2 = scope id. */
    SCOPE_EXIT(8),
    /** A parameter of a scope. a = value, ref = parameter name id, ref2 = scope id. */
    SCOPE_PARAM(9),
    /** A request could not be served. b = bytes requested, c = bytes remaining, ref = message id, ref2 = innermost open scope id or -1. */
    OUT_OF_MEMORY(10),
    /**
     * A pool request. a = address handed out, b = bytes allocated (the bin's size), c = bytes requested,
     * ref = bin number, ref2 = duration in ns (saturated); flags {@link Event#FLAG_HIT} when served from a held block.
     */
    POOL_REQUEST(11),
    /** A buffer came back to the pool and is held in its bin. a = address, b = bytes, ref = bin. */
    POOL_HOLD(12),
    /** A held or returned block was given back to the device. a = address, b = bytes, ref = bin. */
    POOL_RELEASE(13),
    /** Device memory was reserved (a pool's device allocation, a PyTorch segment). a = address, b = bytes. */
    RESERVE(14),
    /** Reserved device memory was given back. a = address, b = bytes. */
    UNRESERVE(15),
    /** A memory plan was loaded. a = tensors, b = steps, ref = plan name id. */
    PLAN_LOADED(16),
    /** A tensor was bound to its slot. a = offset, b = bytes, c = role ordinal, ref = tensor id. */
    PLAN_BIND(17),
    /** A staged constant arena was hydrated from its source. b = bytes, c = duration ns, ref = the source memory's name id. */
    PLAN_HYDRATE(18),
    /** A plan step began. a = step index. */
    PLAN_STEP(19),
    /** A tensor became live at a step. a = offset, b = bytes, c = step, ref = tensor id. */
    TENSOR_LIVE(20),
    /** A tensor died after a step. a = offset, b = bytes, c = step, ref = tensor id. */
    TENSOR_DEAD(21),
    /** A user marker. ref = text id. */
    MARKER(22),
    /** Events were lost (buffer overflow, a link that fell behind). a = count lost. */
    LOSS(23),
    /**
     * The free of one allocation was asked for but has not completed (pools, imports): a PyTorch caching
     * allocator's {@code free_requested}, whose block is not reusable until the work queued on its
     * streams is done. a = address, b = bytes. The block stays in use (the gauges do not move) until its
     * {@link #FREE}; until then it is a <em>pending free</em>. A reader older than this kind refuses a
     * file that holds one (an unknown kind code, with its byte offset).
     */
    FREE_REQUESTED(24);

    private static final EventKind[] BY_CODE;

    static {
        int max = 0;
        for (EventKind k : values()) {
            max = Math.max(max, k.code);
        }
        BY_CODE = new EventKind[max + 1];
        for (EventKind k : values()) {
            BY_CODE[k.code] = k;
        }
    }

    private final int code;

    EventKind(int code) {
        this.code = code;
    }

    /** The stable numeric code used in files and on the wire. */
    public int code() {
        return code;
    }

    /**
     * Whether this kind's {@code ref} is an id from the session's string table (or -1 for none): a
     * name, descriptor, message or text. It is not for the pool kinds (a bin number) nor for kinds that
     * do not use {@code ref}. {@code ref2} is never a string id.
     */
    public boolean refIsString() {
        return switch (this) {
            case MEMORY_CREATED, ALLOC, SCOPE_ENTER, SCOPE_EXIT, SCOPE_PARAM, OUT_OF_MEMORY, PLAN_LOADED, PLAN_BIND,
                 PLAN_HYDRATE, TENSOR_LIVE, TENSOR_DEAD, MARKER -> true;
            default -> false;
        };
    }

    /** The kind with this code, or null when the code is unknown. */
    public static EventKind ofCode(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** The largest code in use. */
    public static int maxCode() {
        return BY_CODE.length - 1;
    }
}
