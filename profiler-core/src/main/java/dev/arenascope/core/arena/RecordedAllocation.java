package dev.arenascope.core.arena;

/**
 * One allocation an {@link AllocationRecorder} saw.
 *
 * @param timeNs    nanoseconds since the session started
 * @param threadId  the allocating thread's {@link Thread#threadId()}
 * @param offset    the tensor's byte offset from the arena's start
 * @param bytes     the tensor's size in bytes (without alignment padding)
 * @param dtype     element type
 * @param shape     shape (a copy)
 * @param direction which end of the arena it came from
 * @param scope     id of the innermost recorded scope open at the time ({@link RecordedScope#id()})
 */
public record RecordedAllocation(long timeNs, long threadId, long offset, long bytes, DType dtype, long[] shape,
                                 Direction direction, int scope) {
}
