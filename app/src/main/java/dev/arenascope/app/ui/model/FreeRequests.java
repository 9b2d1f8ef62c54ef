package dev.arenascope.app.ui.model;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceView;

/**
 * Finds the {@link EventKind#FREE_REQUESTED} of one allocation: PyTorch's caching allocator records a
 * free as requested, then completed once the work queued on the block's streams is done (a pending
 * free between the two). Looked for among the {@value #SCAN} events before the free, so a hover or a
 * listing costs at most that many event reads. Stateless; any thread that may read the trace.
 */
public final class FreeRequests {
    /** Events looked back from a free for its request. */
    public static final int SCAN = 4096;

    private FreeRequests() {}

    /**
     * The index of the request of the free at {@code freeEvent} (an event of the allocation made at
     * {@code allocEvent}): a {@code FREE_REQUESTED} of the same memory and address after the allocation;
     * -1 when there is none within {@value #SCAN} events, or the indexes are not events of {@code t}.
     */
    public static long requestOf(TraceView t, long allocEvent, long freeEvent) {
        if (freeEvent < 0 || freeEvent >= t.eventCount() || allocEvent < 0 || allocEvent >= freeEvent) {
            return -1;
        }
        Event free = t.event(freeEvent);
        for (long j = freeEvent - 1, stop = Math.max(allocEvent, freeEvent - SCAN); j > stop; j--) {
            Event e = t.event(j);
            if (e.kind() == EventKind.FREE_REQUESTED && e.memory() == free.memory() && e.a() == free.a()) {
                return j;
            }
        }
        return -1;
    }
}
