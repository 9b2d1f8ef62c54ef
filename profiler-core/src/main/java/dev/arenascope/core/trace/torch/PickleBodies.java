package dev.arenascope.core.trace.torch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * {@link PickleFlatDicts}' memory of dict bodies already read. A pickler writes a frame that is met
 * again (the same function, file and line in another stack) as the same bytes, its strings fetched
 * from the same memo slots; a body (the bytes after a dict's MARK up to and including its SETITEMS)
 * whose dict the placement answered with a {@linkplain PicklePlacement#reusable reusable} stand-in is
 * kept here (as the placement's number for it), so the same bytes again give that stand-in without
 * reading the items one by one or asking the placement to look at them.
 *
 * <p>When an entry applies: the bytes are the same (compared exactly, up to the body's length), the
 * memo has had no slot overwritten since the body was read ({@link PickleMemo#overwrites()}: its
 * strings are still the ones read then), and the new dict goes to an empty memo slot (the caller's
 * check; so not to one of the body's strings, whose slots hold them: no BINGET in it can fetch the
 * dict itself). Then the opcodes one by one would read the same items and the placement would answer
 * the same stand-in.
 *
 * <p>Bounded: {@value #SETS} sets of two entries, found by a hash of the body's first bytes (no chains,
 * no probing: a lookup is a constant number of loads and compares, whatever an input's bytes collide
 * on; a collision only costs a miss); bodies longer than {@value #BODY_MAX} bytes are not kept; after
 * 2<sup>27</sup> overwrites of memo slots the cache stops (its epoch would no longer fit). 260 KiB
 * whatever the input; an entry is one half of a 64-byte cache line, its set the whole line. One per reader, on the reading thread.
 */
final class PickleBodies {
    /** The longest body kept, in bytes; a lookup needs this many bytes in the window. */
    static final int BODY_MAX = 24;
    private static final int SETS = 1 << 12;
    private static final long MAX_EPOCH = (1L << 27) - 2;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** The masks of a body of {@code len} bytes' three words: {@code MASKS[3 * len + word]}. */
    private static final long[] MASKS = new long[3 * (BODY_MAX + 1)];

    static {
        for (int len = 0; len <= BODY_MAX; len++) {
            for (int w = 0; w < 3; w++) {
                int b = len - 8 * w;
                MASKS[3 * len + w] = b >= 8 ? -1L : b <= 0 ? 0 : (1L << 8 * b) - 1;
            }
        }
    }

    /**
     * Per set, two entries of four words: the body's three words (masked to its length) and
     * {@code (epoch + 1) << 37 | stand-in number << 5 | length}; 0 = empty.
     */
    private final long[] words = new long[8 * SETS];
    /**
     * One bit per hash of a body's first 8 bytes, set for every body kept (never cleared): a dict whose
     * first bytes no kept body began with (every trace entry: its address comes in those bytes) is
     * turned away with one load from this 4 KiB table instead of a probe of the sets.
     */
    private final long[] firstWords = new long[512];

    private static int firstBit(long a0) {
        return (int) ((a0 * 0xD6E8FEB86659FD93L) >>> 49); // 15 bits
    }

    private static int set(long a0, long a1, long a2) {
        long x = a0 * 0x9E3779B97F4A7C15L ^ a1 * 0xC2B2AE3D27D4EB4FL ^ (a2 & 0xffffffffL) * 0x165667B19E3779F9L;
        x ^= x >>> 29;
        return (int) (x ^ x >>> 32) & (SETS - 1);
    }

    /**
     * The entry whose body {@code buf[p..]} starts with, kept while the memo had {@code overwrites}
     * overwrites, or -1. Needs {@value #BODY_MAX} bytes at {@code p}.
     */
    int find(byte[] buf, int p, long overwrites) {
        long a0 = (long) LONGS.get(buf, p);
        int bit = firstBit(a0);
        if ((firstWords[bit >>> 6] & 1L << bit) == 0) {
            return -1;
        }
        long a1 = (long) LONGS.get(buf, p + 8), a2 = (long) LONGS.get(buf, p + 16);
        int e = set(a0, a1, a2) * 8;
        final long[] w = words;
        for (int way = 0; way < 8; way += 4, e += 4) {
            long meta = w[e + 3];
            int m = 3 * ((int) meta & 31);
            if ((a0 & MASKS[m]) == w[e] && (a1 & MASKS[m + 1]) == w[e + 1] && (a2 & MASKS[m + 2]) == w[e + 2]
                    && meta >>> 37 == overwrites + 1) {
                return e >>> 2;
            }
        }
        return -1;
    }

    /** The length in bytes of entry {@code i}'s body (its last byte is the SETITEMS). */
    int length(int i) {
        return (int) words[4 * i + 3] & 31;
    }

    /** The placement's number for entry {@code i}'s stand-in ({@link PicklePlacement#reused}). */
    int standIn(int i) {
        return (int) (words[4 * i + 3] >>> 5) & Integer.MAX_VALUE;
    }

    /**
     * Keeps the body {@code buf[from..from+len)}, read as the stand-in the placement numbers
     * {@code standIn} (not negative) while the memo had {@code overwrites} overwrites. Needs
     * {@value #BODY_MAX} bytes at {@code from}; a body that does not fit the limits is not kept.
     */
    void keep(byte[] buf, int from, int len, int standIn, long overwrites) {
        if (len > BODY_MAX || standIn < 0 || overwrites > MAX_EPOCH) {
            return;
        }
        long a0 = (long) LONGS.get(buf, from), a1 = (long) LONGS.get(buf, from + 8), a2 = (long) LONGS.get(buf, from + 16);
        int e = set(a0, a1, a2) * 8;
        final long[] w = words;
        if (w[e + 3] >>> 37 == overwrites + 1) { // way 0 in use: it moves to way 1, the new body takes way 0
            System.arraycopy(w, e, w, e + 4, 4);
        }
        int bit = firstBit(a0);
        firstWords[bit >>> 6] |= 1L << bit;
        int m = 3 * len;
        w[e] = a0 & MASKS[m];
        w[e + 1] = a1 & MASKS[m + 1];
        w[e + 2] = a2 & MASKS[m + 2];
        w[e + 3] = (overwrites + 1) << 37 | (long) standIn << 5 | len;
    }
}
