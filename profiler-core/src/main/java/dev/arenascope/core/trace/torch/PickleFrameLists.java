package dev.arenascope.core.trace.torch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * {@link PickleReader}'s fast path for a list of dicts that all read as reusable stand-ins: every
 * trace entry's {@code frames} list, {@code EMPTY_LIST MEMOIZE MARK (EMPTY_DICT MEMOIZE MARK ...
 * SETITEMS)* APPENDS}. A pickler writes the same stack again as the same bytes (its frame dicts
 * written anew, their strings fetched from the same memo slots); the first time a list is read opcode
 * by opcode here (each dict through {@link PickleFlatDicts}), and when every element came out as a
 * {@linkplain PicklePlacement#reusable reusable} stand-in its bytes and the stand-ins' numbers are
 * kept, so the same bytes again give the list at once: the same {@link PyList} of the same stand-ins,
 * the list and each dict in the memo slots MEMOIZE would give them, the window past the APPENDS.
 *
 * <p>When a kept list applies: the bytes are the same (compared exactly), every dict in them was
 * memoized by MEMOIZE (so its slot is the memo's next one, not named in the bytes), the memo has had no
 * slot overwritten since (its strings are the ones read then: {@link PickleMemo#overwrites()}), and the
 * list's slot and the dicts' slots are all empty (as the slots MEMOIZE took then were; so none is one
 * of the bodies' strings and MEMOIZE takes them in order). Anything else reads on the ordinary way.
 *
 * <p>A list is kept the second time its first bytes are seen in its set (the first time only their
 * hash is noted), so a snapshot whose stacks never repeat costs no copies of its lists.
 *
 * <p>Bounded: {@value #SETS} sets of two entries found by a hash of the list's first {@value #HASHED}
 * bytes (a collision costs a miss, never a chain), lists of at most {@value #LIST_MAX} bytes and
 * {@value #ITEMS_MAX} items, and at most {@value #BUDGET} bytes kept in all (past that the memory starts
 * over, after at least as many bytes of input were read); each element kept takes 4 bytes of numbers
 * and at least 9 of the list's bytes (a frame dict names its file): about 12 MiB whatever the input.
 * One per reader, on the reading thread.
 */
final class PickleFrameLists {
    private static final int SETS = 1 << 13;
    private static final int LIST_MAX = 2048;
    private static final int ITEMS_MAX = 128;
    private static final int BUDGET = 8 << 20;
    /** Bytes of a list's start that choose its entry; a lookup needs them in the window. */
    private static final int HASHED = 48;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final PickleReader r;
    private final PickleFlatDicts flat;
    /** Per entry (set * 2 + way): the list's bytes after its MARK up to and including APPENDS, or null. */
    private final byte[][] bytes = new byte[2 * SETS][];
    /** Per entry: the placement's numbers of the elements' stand-ins, and one int more for the placement ({@link PyList#kept}). */
    private final int[][] numbers = new int[2 * SETS][];
    /** Per entry: the memo's overwrites when it was kept, plus one (0 = empty). */
    private final long[] epochs = new long[2 * SETS];
    private long kept;
    private final int[] scratch = new int[ITEMS_MAX];

    PickleFrameLists(PickleReader r, PickleFlatDicts flat) {
        this.r = r;
        this.flat = flat;
    }

    /** A hash of the list's first {@value #HASHED} bytes; its low bits choose the set. */
    private static long hash(byte[] buf, int p) {
        long x = 0;
        for (int i = 0; i < HASHED; i += 8) {
            x = (x ^ (long) LONGS.get(buf, p + i)) * 0x9E3779B97F4A7C15L;
            x ^= x >>> 29;
        }
        return x ^ x >>> 32;
    }

    /**
     * Per set, the hash of the last list that was seen there and not kept (0: none): a list is kept
     * only when it is seen a second time, so a snapshot whose stacks are all new (the lists never met
     * again) does not copy the bytes of every list into arrays that live just long enough for the
     * collector to promote them.
     */
    private final long[] seen = new long[2 * SETS];

    /** Whether a list of this hash was seen in its set and not kept (then forgotten: it is kept now); else notes it. */
    private boolean seenBefore(int set, long hash) {
        int e = 2 * set;
        if (seen[e] == hash || seen[e + 1] == hash) {
            seen[seen[e] == hash ? e : e + 1] = 0;
            return true;
        }
        seen[e + 1] = seen[e];
        seen[e] = hash;
        return false;
    }

    /** The entry of set {@code set} holding {@code buf[q..]}'s list, kept at {@code epoch}, or -1. */
    private int find(int set, byte[] buf, int q, int end, long epoch) {
        for (int e = 2 * set; e < 2 * set + 2; e++) {
            byte[] b = bytes[e];
            if (b != null && epochs[e] == epoch && end - q >= b.length && Arrays.equals(buf, q, q + b.length, b, 0, b.length)) {
                return e;
            }
        }
        return -1;
    }

    /** Keeps a list in way 0 of its set, the one there moving to way 1. */
    private void keep(int set, byte[] list, int[] nums, long epoch) {
        if (kept + list.length > BUDGET) {
            Arrays.fill(bytes, null);
            Arrays.fill(numbers, null);
            Arrays.fill(epochs, 0);
            kept = 0;
        }
        int e = 2 * set;
        if (bytes[e + 1] != null) {
            kept -= bytes[e + 1].length;
        }
        bytes[e + 1] = bytes[e];
        numbers[e + 1] = numbers[e];
        epochs[e + 1] = epochs[e];
        bytes[e] = list;
        numbers[e] = nums;
        epochs[e] = epoch;
        kept += list.length;
    }

    /**
     * Called just after EMPTY_LIST. False (nothing read) when it is not followed by MEMOIZE MARK and
     * {@value #HASHED} more bytes in the window; else reads the list, either at once from a kept one or opcode by opcode as far
     * as its elements are dicts taken whole by the placement, and returns true with reading to go on
     * from the opcode it stopped at (past the APPENDS, or the first it does not take) in the state the
     * opcodes one by one would have left there.
     */
    boolean read() throws PickleFormatException {
        final PickleReader r = this.r;
        final byte[] buf = r.buf;
        final int end = r.lim;
        final int p = r.pos;
        if (end - p < 2 + HASHED || buf[p] != (byte) 0x94 || buf[p + 1] != '(') {
            return false;
        }
        final int q = p + 2; // the list's items
        final long hash = hash(buf, q) | 1;
        final int set = (int) hash & (SETS - 1);
        final long epoch = r.memo.overwrites() + 1;
        final int hit = find(set, buf, q, end, epoch);
        if (hit >= 0) {
            int[] nums = numbers[hit];
            int c = r.memo.count();
            boolean free = (long) c + nums.length - 1 < r.total;
            if (free && !r.memo.emptyFrom(c)) { // a sparse memo: slot by slot
                for (int k = 0; free && k < nums.length; k++) {
                    free = r.memo.at(c + k) == null;
                }
            }
            if (free) {
                int n = nums.length - 1; // the last int is the placement's (PyList.kept)
                PyList l = new PyList(n);
                r.memoPut(c, l);
                for (int k = 0; k < n; k++) {
                    Object standIn = r.placement.reused(nums[k]);
                    r.memoPut(c + 1 + k, standIn);
                    l.add(standIn);
                }
                l.kept = nums;
                r.push(l);
                r.pos = q + bytes[hit].length;
                r.opStart = r.base + r.pos - 1; // the APPENDS
                return true;
            }
        }
        // opcode by opcode, noting whether the list is one to keep
        PyList l = new PyList();
        r.push(l); // EMPTY_LIST
        r.opStart = r.base + p;
        r.memoPut(r.memo.count(), l); // MEMOIZE
        r.pos = q;
        r.opStart = r.base + p + 1;
        r.pushMark(); // MARK
        int n = 0;
        while (true) {
            int at = r.pos;
            if (at - q >= LIST_MAX || at + 2 >= end) {
                return true; // too long to keep, or near the window's end: the ordinary path goes on
            }
            int op = buf[at] & 0xff;
            if (op == 'e') {
                if (epoch == r.memo.overwrites() + 1 && n > 0 && seenBefore(set, hash)) {
                    int[] nums = Arrays.copyOf(scratch, n + 1);
                    nums[n] = 0; // the placement's int (PyList.kept), nothing noted yet
                    keep(set, Arrays.copyOfRange(buf, q, at + 1), nums, epoch);
                }
                // APPENDS: every item is a stand-in the placement numbered, so it is told the numbers and
                // no item is looked at again (a frame's stand-in read back from the heap for each was a
                // cache miss a frame dict on a snapshot of millions of distinct frames)
                r.opStart = r.base + at;
                r.pos = at + 1;
                r.appendsPlaced();
                r.placement.listOfReusables(l, scratch, n);
                return true;
            }
            if (op != '}' || buf[at + 1] != (byte) 0x94 || n == ITEMS_MAX) {
                return true;
            }
            int depth = r.depth(), marks = r.marks();
            r.opStart = r.base + at;
            r.pos = at + 1;
            if (!flat.read()) {
                r.push(new PyDict()); // EMPTY_DICT, the ordinary way; reading goes on at its memo opcode
                return true;
            }
            int number = r.marks() == marks && r.depth() == depth + 1 ? r.placement.reusable(r.top()) : -1;
            if (number < 0) {
                return true; // a dict left to the ordinary path, or one that is not a reusable stand-in
            }
            scratch[n++] = number;
        }
    }
}
