package dev.arenascope.core.record;

import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.trace.EventBatch;

/**
 * The hot-path buffer between publishing threads and the drain: fixed capacity, preallocated, no
 * object per event. When it is full an event is dropped and counted in {@link #lost()}.
 *
 * <p>Two batches are swapped: writers fill the active one while the drain delivers the other.
 */
final class EventBuffer {
    static final int DEFAULT_CAPACITY = 1 << 16;
    private final int capacity;
    private final AtomicLong lost = new AtomicLong();
    private EventBatch active;
    private EventBatch spare;

    EventBuffer(int capacity) {
        if (capacity < 16) {
            throw new IllegalArgumentException("event buffer capacity must be at least 16, got " + capacity);
        }
        this.capacity = capacity;
        this.active = new EventBatch(capacity);
        this.spare = new EventBatch(capacity);
    }

    int capacity() {
        return capacity;
    }

    synchronized void offer(long time, int packed, int thread, long a, long b, long c, long used, long aux, int ref, int ref2) {
        if (active.size() >= capacity) {
            lost.incrementAndGet();
            return;
        }
        active.add(time, packed, thread, a, b, c, used, aux, ref, ref2);
    }

    /** Takes the filled batch, leaving an empty one for the writers. Only the drain calls this. */
    synchronized EventBatch take() {
        EventBatch full = active;
        active = spare;
        spare = null;
        return full;
    }

    /** Returns a delivered batch for reuse. */
    synchronized void recycle(EventBatch batch) {
        batch.clear();
        spare = batch;
    }

    long lost() {
        return lost.get();
    }
}
