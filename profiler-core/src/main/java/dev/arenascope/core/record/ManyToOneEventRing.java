package dev.arenascope.core.record;

import static dev.arenascope.core.record.EventRingDescriptor.A_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.AUX_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.B_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.C_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.HEADER_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.HEAD_CACHE_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.HEAD_POSITION_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.LOST_COUNT_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.RECORD_SHIFT;
import static dev.arenascope.core.record.EventRingDescriptor.REF2_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.REF_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.TAIL_POSITION_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.THREAD_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.TIME_OFFSET;
import static dev.arenascope.core.record.EventRingDescriptor.USED_OFFSET;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import dev.arenascope.core.trace.EventBatch;

/**
 * The hot-path event buffer: a ring of fixed-size binary records in one off-heap
 * {@link MemorySegment}, written by many producer threads and read by one consumer (the session's
 * drain). Layout in {@link EventRingDescriptor}.
 *
 * <p><b>Producers</b> ({@link #offer}) claim a record by compare-and-set on the tail position after
 * checking there is room against the head, write its fields with plain stores, then commit it by
 * storing its non-zero header with release semantics ({@link #putHeaderRelease}). Nothing is allocated
 * and nothing blocks. When the ring is full the event is refused and counted ({@link #lost()}), so a
 * loss is never silent.
 *
 * <p><b>The consumer</b> ({@link #drainTo}) reads records in claim order while their header, read with
 * acquire semantics, is non-zero; it zeroes each header it consumed and then releases the new head
 * position, which lets producers reuse the records. A record claimed but not yet committed stops the
 * read there until the next call, so events of one thread always arrive in the order published. Only
 * one thread may call {@link #drainTo} at a time.
 */
final class ManyToOneEventRing {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private volatile MemorySegment buffer; // allocated on first offer: many sessions never publish
    private final int capacity;
    private final long mask;
    private final long trailer;

    /**
     * @param capacity records the ring holds: a power of two from 16 to 2^24
     * @throws IllegalArgumentException on another capacity
     */
    ManyToOneEventRing(int capacity) {
        EventRingDescriptor.checkCapacity(capacity);
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.trailer = (long) capacity << RECORD_SHIFT;
    }

    private synchronized MemorySegment allocate() {
        MemorySegment m = buffer;
        if (m == null) {
            // an automatic arena: the memory lives while the ring is reachable, so a publisher racing
            // with a closing session never writes to freed memory
            m = Arena.ofAuto().allocate(EventRingDescriptor.byteSize(capacity), EventRingDescriptor.LINE);
            buffer = m;
        }
        return m;
    }

    /** Records the ring holds. */
    int capacity() {
        return capacity;
    }

    /**
     * Publishes one event record; thread-safe, lock-free, allocation-free.
     *
     * @param packed the packed kind/flags/memory word ({@link EventBatch#pack}); must not be 0
     * @return false when the ring was full and the event was counted as lost
     */
    boolean offer(long time, int packed, int thread, long a, long b, long c, long used, long aux, int ref, int ref2) {
        MemorySegment m = buffer;
        if (m == null) {
            m = allocate();
        }
        final long tailAt = trailer + TAIL_POSITION_OFFSET;
        long tail;
        do {
            tail = getLongVolatile(m, tailAt);
            long headCache = getLongOpaque(m, trailer + HEAD_CACHE_OFFSET);
            if (tail - headCache >= capacity) {
                long head = getLongAcquire(m, trailer + HEAD_POSITION_OFFSET);
                if (tail - head >= capacity) {
                    LONG.getAndAdd(m, trailer + LOST_COUNT_OFFSET, 1L);
                    return false;
                }
                putLongOpaque(m, trailer + HEAD_CACHE_OFFSET, head);
            }
        } while (!LONG.compareAndSet(m, tailAt, tail, tail + 1));
        final long at = (tail & mask) << RECORD_SHIFT;
        INT.set(m, at + THREAD_OFFSET, thread);
        LONG.set(m, at + TIME_OFFSET, time);
        LONG.set(m, at + A_OFFSET, a);
        LONG.set(m, at + B_OFFSET, b);
        LONG.set(m, at + C_OFFSET, c);
        LONG.set(m, at + USED_OFFSET, used);
        LONG.set(m, at + AUX_OFFSET, aux);
        INT.set(m, at + REF_OFFSET, ref);
        INT.set(m, at + REF2_OFFSET, ref2);
        putHeaderRelease(m, at, packed);
        return true;
    }

    /**
     * Moves up to {@code limit} committed records, in claim order, to the end of {@code batch}.
     * Single consumer only.
     *
     * @return the number of records moved
     */
    int drainTo(EventBatch batch, int limit) {
        final MemorySegment m = buffer;
        if (m == null) {
            return 0;
        }
        final long head = (long) LONG.get(m, trailer + HEAD_POSITION_OFFSET);
        int n = 0;
        while (n < limit) {
            long at = ((head + n) & mask) << RECORD_SHIFT;
            int packed = getHeaderAcquire(m, at);
            if (packed == 0) {
                break;
            }
            batch.add((long) LONG.get(m, at + TIME_OFFSET), packed, (int) INT.get(m, at + THREAD_OFFSET),
                    (long) LONG.get(m, at + A_OFFSET), (long) LONG.get(m, at + B_OFFSET), (long) LONG.get(m, at + C_OFFSET),
                    (long) LONG.get(m, at + USED_OFFSET), (long) LONG.get(m, at + AUX_OFFSET),
                    (int) INT.get(m, at + REF_OFFSET), (int) INT.get(m, at + REF2_OFFSET));
            INT.set(m, at + HEADER_OFFSET, 0);
            n++;
        }
        if (n > 0) {
            putLongRelease(m, trailer + HEAD_POSITION_OFFSET, head + n);
        }
        return n;
    }

    /** Records refused so far because the ring was full. */
    long lost() {
        MemorySegment m = buffer;
        return m == null ? 0 : getLongVolatile(m, trailer + LOST_COUNT_OFFSET);
    }

    /** Records claimed and not yet consumed (committed or not); a snapshot. */
    long size() {
        MemorySegment m = buffer;
        if (m == null) {
            return 0;
        }
        long head = getLongAcquire(m, trailer + HEAD_POSITION_OFFSET);
        return getLongVolatile(m, trailer + TAIL_POSITION_OFFSET) - head;
    }

    private static void putHeaderRelease(MemorySegment m, long at, int packed) {
        INT.setRelease(m, at + HEADER_OFFSET, packed);
    }

    private static int getHeaderAcquire(MemorySegment m, long at) {
        return (int) INT.getAcquire(m, at + HEADER_OFFSET);
    }

    private static long getLongVolatile(MemorySegment m, long at) {
        return (long) LONG.getVolatile(m, at);
    }

    private static long getLongAcquire(MemorySegment m, long at) {
        return (long) LONG.getAcquire(m, at);
    }

    private static long getLongOpaque(MemorySegment m, long at) {
        return (long) LONG.getOpaque(m, at);
    }

    private static void putLongOpaque(MemorySegment m, long at, long value) {
        LONG.setOpaque(m, at, value);
    }

    private static void putLongRelease(MemorySegment m, long at, long value) {
        LONG.setRelease(m, at, value);
    }
}
