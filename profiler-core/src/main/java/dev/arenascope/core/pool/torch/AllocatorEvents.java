package dev.arenascope.core.pool.torch;

/**
 * What a caching allocator does, as its trace entries say it ({@code torch.cuda.memory._record_memory_history}):
 * the model tells these to a listener in the order PyTorch records them, so a replay can be compared
 * with a recording entry by entry, or drawn as one. Sizes as PyTorch records them: an alloc's and a
 * free's are the bytes requested ({@code blockBytes} besides), a segment's its bytes, an out-of-memory's
 * the request rounded. Every method defaults to doing nothing.
 */
public interface AllocatorEvents {
    default void segmentAlloc(long address, long bytes, long stream) {}

    default void segmentFree(long address, long bytes, long stream) {}

    default void segmentMap(long address, long bytes, long stream) {}

    default void segmentUnmap(long address, long bytes, long stream) {}

    default void alloc(long address, long requested, long blockBytes, long stream) {}

    default void freeCompleted(long address, long requested, long blockBytes, long stream) {}

    default void outOfMemory(long rounded, long stream, long deviceFree) {}
}
