package dev.arenascope.core.arena;

/**
 * An arena request that did not fit between its forward and backward pointers. Nothing moved: the
 * arena is exactly as it was before the request. The message names the arena, the bytes requested and
 * remaining, and the scope path open when it happened.
 */
public final class InsufficientMemoryException extends RuntimeException {
    private final String arena;
    private final long requestedBytes;
    private final long remainingBytes;
    private final String scopePath;

    /**
     * @param message        the one-line message
     * @param arena          the arena's name
     * @param requestedBytes the bytes asked for
     * @param remainingBytes the bytes free between the pointers
     * @param scopePath      the open scope path ({@code frame/raster}), or empty
     */
    public InsufficientMemoryException(String message, String arena, long requestedBytes, long remainingBytes, String scopePath) {
        super(message);
        this.arena = arena;
        this.requestedBytes = requestedBytes;
        this.remainingBytes = remainingBytes;
        this.scopePath = scopePath;
    }

    /** The arena's name. */
    public String arena() {
        return arena;
    }

    /** Bytes the request needed, including alignment padding. */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** Bytes left between the pointers when the request failed. */
    public long remainingBytes() {
        return remainingBytes;
    }

    /** The open scopes, outermost first, joined by {@code /}; empty when none was open. */
    public String scopePath() {
        return scopePath;
    }
}
