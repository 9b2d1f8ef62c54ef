package dev.arenascope.core.trace.torch;

import java.util.Arrays;
import java.util.TreeMap;

/**
 * The pickle memo's storage: slot index to value. Pages of {@value #PAGE} slots are allocated in order
 * as indices reach them (no array of the whole memo is ever copied to grow it), and the next page only
 * while the pages in use are at least half full, so pages never take more than about 8 bytes per slot
 * stored whatever indices a pickle names; other indices go to an ordered map (Python's memo is a dict:
 * indices need not be dense), so a forged index never allocates more than its entry. Range checks
 * against the input's size are the reader's ({@link PickleReader}); a slot holds null when it was never
 * stored. Not thread-safe.
 */
final class PickleMemo {
    private static final int PAGE_BITS = 14;
    static final int PAGE = 1 << PAGE_BITS;

    /** Page 0, where a pickle memoises its strings (every key and frame text): read without the page table. */
    private final Object[] first = new Object[PAGE];
    private Object[][] pages = new Object[16][];
    private int pagesUsed = 1;

    PickleMemo() {
        pages[0] = first; // as the first store would have allocated it (page 0 is always allowed)
    }
    private TreeMap<Long, Object> sparse;
    private int count;
    private long overwrites;
    private int highest = -1;

    /**
     * Bumped each time {@link #put} stores into a slot that already held a value: while it stays the
     * same, every slot holds what it held before (a string slot can change no other way: {@link #set}
     * only puts a container's stand-in in that container's slot). {@link PickleFlatDicts} keys its
     * cache of frame dicts by the memo slots their strings come from, valid while this is unchanged.
     */
    long overwrites() {
        return overwrites;
    }

    /** Whether no slot at or past {@code i} was ever stored (they are then all empty). */
    boolean emptyFrom(int i) {
        return highest < i;
    }

    /** Slots stored (each index counted once). */
    int count() {
        return count;
    }

    /** Slot {@code i} ({@code i >= 0}), or null when it was never stored. */
    Object at(int i) {
        if (i < PAGE) {
            return first[i];
        }
        int p = i >>> PAGE_BITS;
        if (p < pagesUsed) {
            return pages[p][i & (PAGE - 1)];
        }
        return sparse == null ? null : sparse.get((long) i);
    }

    /** Stores {@code v} (not null) in slot {@code i}, counting the slot if it was empty. */
    void put(int i, Object v) {
        if (i > highest) {
            highest = i;
        }
        int p = i >>> PAGE_BITS;
        if (p < pagesUsed) { // the common case: a slot in a page in use
            Object[] page = pages[p];
            if (page[i & (PAGE - 1)] == null) {
                count++;
            } else {
                overwrites++;
            }
            page[i & (PAGE - 1)] = v;
        } else {
            if (at(i) == null) {
                count++;
            } else {
                overwrites++;
            }
            set(i, v);
        }
    }

    /** Replaces what slot {@code i} holds (a consumer's stand-in for the value stored there), or stores it. */
    void set(int i, Object v) {
        if (i > highest) {
            highest = i;
        }
        int p = i >>> PAGE_BITS;
        if (p == pagesUsed && count >= (long) p * (PAGE / 2)) {
            if (p == pages.length) {
                pages = Arrays.copyOf(pages, p * 2);
            }
            Object[] page = new Object[PAGE];
            if (sparse != null) {
                var moved = sparse.subMap((long) p << PAGE_BITS, (long) (p + 1) << PAGE_BITS);
                for (var e : moved.entrySet()) {
                    page[(int) (e.getKey() & (PAGE - 1))] = e.getValue();
                }
                moved.clear();
            }
            pages[pagesUsed++] = page;
        }
        if (p < pagesUsed) {
            pages[p][i & (PAGE - 1)] = v;
        } else {
            if (sparse == null) {
                sparse = new TreeMap<>();
            }
            sparse.put((long) i, v);
        }
    }
}
