package dev.arenascope.core.record;

/**
 * The memory layout of a {@link ManyToOneEventRing}: {@code capacity} fixed-size event records of
 * eight 64-bit words in one {@code long[]}, followed by a trailer of counters, each on its own 128-byte
 * stretch so producers and the consumer do not share cache lines.
 *
 * <pre>
 *   record i at word i * RECORD_WORDS (64 bytes):
 *   word 0                      1        2    3    4    5      6     7
 *   +------------------------+--------+----+----+----+------+-----+-------------+
 *   | thread << 32 | header  | time ns| a  | b  | c  | used | aux | ref << 32 | ref2 |
 *   +------------------------+--------+----+----+----+------+-----+-------------+
 *   header = packed kind | flags | memory ({@code EventBatch.pack}) in the low 32 bits; a word 0 of
 *            0 means "claimed, not yet committed" (kind codes start at 1, so a committed record
 *            never has a zero header)
 *
 *   trailer at word capacity * RECORD_WORDS:
 *   +0    tail position   (next record to claim; producers CAS it)
 *   +16   head cache      (producers' last seen head; opaque)
 *   +32   head position   (next record to read; the consumer releases it)
 *   +48   lost count      (records refused because the ring was full)
 * </pre>
 *
 * Positions are ever-increasing record counts; the record index is {@code position & (capacity - 1)}.
 */
final class EventRingDescriptor {
    private EventRingDescriptor() {}

    static final int RECORD_WORDS = 8;
    static final int RECORD_SHIFT = 3;

    static final int HEADER_WORD = 0;
    static final int TIME_WORD = 1;
    static final int A_WORD = 2;
    static final int B_WORD = 3;
    static final int C_WORD = 4;
    static final int USED_WORD = 5;
    static final int AUX_WORD = 6;
    static final int REFS_WORD = 7;

    /** Words between two trailer counters: 128 bytes, so no two share a cache line. */
    static final int LINE_WORDS = 16;
    static final int TAIL_POSITION = 0;
    static final int HEAD_CACHE = LINE_WORDS;
    static final int HEAD_POSITION = 2 * LINE_WORDS;
    static final int LOST_COUNT = 3 * LINE_WORDS;
    static final int TRAILER_WORDS = 4 * LINE_WORDS;

    /** Words a ring of {@code capacity} records needs. */
    static int words(int capacity) {
        return capacity * RECORD_WORDS + TRAILER_WORDS;
    }

    /** The header word of a committed record: {@code packed} (non-zero) and the thread id. */
    static long header(int packed, int thread) {
        return (long) thread << 32 | (packed & 0xFFFF_FFFFL);
    }

    /** The word holding {@code ref} and {@code ref2}. */
    static long refs(int ref, int ref2) {
        return (long) ref << 32 | (ref2 & 0xFFFF_FFFFL);
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
