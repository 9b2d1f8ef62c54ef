package dev.arenascope.core.trace.store;

import dev.arenascope.core.trace.EventBatch;

/**
 * Where an {@link OutOfCoreStore}'s events are: chunk {@code n}'s events, decoded from the trace on
 * each call (the store caches them). Thread-safe: several readers may ask at once.
 */
public interface ChunkSource {
    /**
     * The events of chunk {@code n} (as {@link OutOfCoreStore.ChunkRef} {@code n} describes it), sites
     * included.
     *
     * @throws IllegalStateException when the chunk cannot be read, or is no longer the chunk that was
     *                               indexed (the file changed underneath)
     */
    EventBatch read(int n, OutOfCoreStore.ChunkRef ref);
}
