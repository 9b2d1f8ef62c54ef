package dev.arenascope.core.record;

/**
 * The memory layout of a {@link ManyToOneEventRing}: {@code capacity} fixed-size event records
 * followed by a trailer of counters, each counter on its own 128-byte line so producers and the
 * consumer do not share cache lines.
 *
 * <pre>
 *   record i at i * RECORD_LENGTH (64 bytes, little-endian native order):
 *   0        4        8                16       24       32       40       48       56     60     64
 *   +--------+--------+----------------+--------+--------+--------+--------+--------+------+------+
 *   | header | thread | time ns        | a      | b      | c      | used   | aux    | ref  | ref2 |
 *   +--------+--------+----------------+--------+--------+--------+--------+--------+------+------+
 *   header = packed kind | flags | memory ({@code EventBatch.pack}); 0 means "claimed, not yet
 *            committed" (kind codes start at 1, so a committed record is never 0)
 *
 *   trailer at capacity * RECORD_LENGTH:
 *   +0    tail position   (next record to claim; producers CAS it)
 *   +128  head cache      (producers' last seen head; opaque)
 *   +256  head position   (next record to read; the consumer releases it)
 *   +384  lost count      (records refused because the ring was full)
 * </pre>
 *
 * Positions are ever-increasing record counts; the record index is {@code position & (capacity - 1)}.
 */
final class EventRingDescriptor {
    private EventRingDescriptor() {}

    static final int RECORD_LENGTH = 64;
    static final int RECORD_SHIFT = 6;

    static final int HEADER_OFFSET = 0;
    static final int THREAD_OFFSET = 4;
    static final int TIME_OFFSET = 8;
    static final int A_OFFSET = 16;
    static final int B_OFFSET = 24;
    static final int C_OFFSET = 32;
    static final int USED_OFFSET = 40;
    static final int AUX_OFFSET = 48;
    static final int REF_OFFSET = 56;
    static final int REF2_OFFSET = 60;

    static final int LINE = 128;
    static final int TAIL_POSITION_OFFSET = 0;
    static final int HEAD_CACHE_OFFSET = LINE;
    static final int HEAD_POSITION_OFFSET = 2 * LINE;
    static final int LOST_COUNT_OFFSET = 3 * LINE;
    static final int TRAILER_LENGTH = 4 * LINE;

    /** Bytes a ring of {@code capacity} records needs. */
    static long byteSize(int capacity) {
        return (long) capacity * RECORD_LENGTH + TRAILER_LENGTH;
    }

    /**
     * Checks that {@code capacity} is a power of two of at least 16 records.
     *
     * @throws IllegalArgumentException naming the capacity otherwise
     */
    static void checkCapacity(int capacity) {
        if (capacity < 16 || Integer.bitCount(capacity) != 1 || capacity > (1 << 24)) {
            throw new IllegalArgumentException("event ring capacity must be a power of two from 16 to 2^24 records, got " + capacity);
        }
    }
}
