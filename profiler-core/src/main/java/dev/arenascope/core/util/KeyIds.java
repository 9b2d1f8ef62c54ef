package dev.arenascope.core.util;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Dense ids for keys of one or two longs, kept in primitive arrays: the id of a key is its position in
 * the order keys were added ({@code 0, 1, 2, ...}), and each id's key is stored once. An index of ids
 * (open addressing, linear probing, at most half full) finds a key's id; a slot holds an id (4 bytes),
 * compared against the stored key, so a key costs 8 or 16 bytes of key and 8 to 16 bytes of index,
 * with no object per key. Keys come from the input (a snapshot's frames and stacks), so slots are
 * chosen by a 64-bit finalizer over the key mixed with a seed drawn per table: an input cannot aim
 * its keys at one run of slots (hash flooding), and work stays proportional to the keys added.
 *
 * <p>Used for a frame table (a frame's function, file, line and flags as two longs) and a stack trie
 * (a node's parent and frame as one long) by {@link dev.arenascope.core.trace.SiteTable} and the
 * PyTorch importer. Ids are never reused or changed. Not thread-safe.
 *
 * <p>Keys are kept in pages of {@value #PAGE} keys (the first grows from small), so a table of millions
 * of keys never copies them to grow: a copy of the whole array each time it filled was garbage that
 * a serial collector promotes with the live table and keeps to the end of a batch command (at 1 M
 * all-distinct PyTorch allocations, hundreds of MB of a stack trie's and a frame table's old copies).
 */
public final class KeyIds {
    private final int width;
    private final long seed = ThreadLocalRandom.current().nextLong() | 1;
    private static final int PAGE_BITS = 13;
    static final int PAGE = 1 << PAGE_BITS;
    private static final int MASK = PAGE - 1;
    /** Key {@code id} is at {@code pages[id >>> PAGE_BITS][(id & MASK) * width]}; pages past the first hold {@link #PAGE} keys. */
    private long[][] pages;
    private int size;
    /** id + 1 per slot; 0 is empty. */
    private int[] slots = new int[64];
    private int indexed;
    /** Ids below this are in the index (or have a key an earlier id holds); {@link #append} leaves the rest for the next lookup. */
    private int indexedTo;

    /** A table of keys of {@code width} longs (1 or 2). */
    public KeyIds(int width) {
        if (width != 1 && width != 2) {
            throw new IllegalArgumentException("width must be 1 or 2, got " + width);
        }
        this.width = width;
        this.pages = new long[][] {new long[16 * width]};
    }

    /** Ids given so far. */
    public int size() {
        return size;
    }

    /** The first long of id {@code id}'s key. */
    public long key(int id) {
        return pages[id >>> PAGE_BITS][(id & MASK) * width];
    }

    /** The second long of id {@code id}'s key (width 2). */
    public long key2(int id) {
        return pages[id >>> PAGE_BITS][(id & MASK) * width + 1];
    }

    /** Bytes the table holds. */
    public long bytes() {
        long b = 4L * slots.length;
        for (long[] p : pages) {
            b += p == null ? 0 : 8L * p.length;
        }
        return b;
    }

    /** The key's 64-bit hash: its low bits choose the slot, its high ones are the slot's fingerprint. */
    private long hash(long a, long b) {
        long x = (a ^ seed) * 0x9E3779B97F4A7C15L;
        x ^= Long.rotateLeft(b * 0xC2B2AE3D27D4EB4FL, 31);
        x ^= x >>> 33;
        x *= 0xFF51AFD7ED558CCDL;
        x ^= x >>> 33;
        x *= 0xC4CEB9FE1A85EC53L;
        x ^= x >>> 33;
        return x;
    }

    /**
     * A slot holds {@code id + 1} in its low {@code idBits} bits (log2 of the slots: the index is kept
     * larger than the ids) and the high bits of the key's hash above them, so a probe compares a stored
     * key only when those bits agree: most probes of a big table read the slots alone, not a key
     * elsewhere in memory.
     */
    private int idMask = 63;

    private int fingerprint(long h) {
        return (int) (h >>> 32) & ~idMask;
    }

    private boolean same(int id, long a, long b) {
        long[] page = pages[id >>> PAGE_BITS];
        int p = (id & MASK) * width;
        return page[p] == a && (width == 1 || page[p + 1] == b);
    }

    /** The id of key {@code a} (width 1), or -1. */
    public int find(long a) {
        return find(a, 0);
    }

    /** The id of key ({@code a}, {@code b}), or -1 (width 1 ignores {@code b}). */
    public int find(long a, long b) {
        if (width == 1) {
            b = 0;
        }
        catchUp();
        final int[] t = slots;
        final int mask = t.length - 1, ids = idMask;
        long h = hash(a, b);
        int fp = fingerprint(h);
        for (int i = (int) h & mask, e; (e = t[i]) != 0; i = (i + 1) & mask) {
            if ((e & ~ids) == fp && same((e & ids) - 1, a, b)) {
                return (e & ids) - 1;
            }
        }
        return -1;
    }

    /** The id of key {@code a} (width 1), a new one if it has none. */
    public int intern(long a) {
        return intern(a, 0);
    }

    /** The id of key ({@code a}, {@code b}), a new one if it has none. */
    public int intern(long a, long b) {
        if (width == 1) {
            b = 0;
        }
        catchUp();
        final int[] t = slots;
        final int mask = t.length - 1, ids = idMask;
        long h = hash(a, b);
        int fp = fingerprint(h);
        int i = (int) h & mask;
        for (int e; (e = t[i]) != 0; i = (i + 1) & mask) {
            if ((e & ~ids) == fp && same((e & ids) - 1, a, b)) {
                return (e & ids) - 1;
            }
        }
        int id = store(a, b);
        indexedTo = size;
        t[i] = fp | (id + 1);
        indexed++;
        grown();
        return id;
    }

    /**
     * Sizes the index for {@code keys} ids at once (a caller that knows how many keys are to come, or
     * a bound on them): no rehash while they are added, so neither the rehashes' work nor their old
     * index arrays (garbage a serial collector promotes and keeps). Ids are what they would be without it.
     */
    public void expect(int keys) {
        int length = slots.length;
        while (length < 2L * keys && length < 1 << 30) {
            length *= 2;
        }
        if (length > slots.length) {
            rehash(length); // at once: doubling up to it left as much garbage again as the index it made
        }
    }

    /** Doubles the index when it is half full, or when the next id would not fit beside the fingerprints. */
    private void grown() {
        if (2 * indexed > slots.length || size >= idMask) {
            rehash();
        }
    }

    /**
     * Gives key ({@code a}, {@code b}) the next id whether or not it has one already (a consumer taking
     * ids as announced); lookups find the first id of a key. The index is brought up to date at the next
     * lookup, so a table only appended to (a store's copy) holds no index at all.
     */
    public int append(long a, long b) {
        return store(a, width == 1 ? 0 : b);
    }

    /** Puts the ids appended since the last lookup into the index, each unless an earlier id has its key. */
    private void catchUp() {
        while (indexedTo < size && slots.length <= 2L * size && slots.length < 1 << 30) {
            rehash(); // sized for what is to come in at once (a consumer's table, appended to, then looked up)
        }
        while (indexedTo < size) {
            int id = indexedTo++;
            long a = key(id), b = width == 1 ? 0 : key2(id);
            while (id + 1 > idMask) {
                rehash(); // ids appended past what the index's id bits hold
            }
            final int[] t = slots;
            final int mask = t.length - 1, ids = idMask;
            long h = hash(a, b);
            int fp = fingerprint(h);
            int i = (int) h & mask;
            boolean known = false;
            for (int e; (e = t[i]) != 0; i = (i + 1) & mask) {
                if ((e & ~ids) == fp && same((e & ids) - 1, a, b)) {
                    known = true;
                    break;
                }
            }
            if (!known) {
                t[i] = fp | (id + 1);
                indexed++;
                grown();
            }
        }
    }

    /** Gives back the keys' room to grow (a table that is done growing: after a read). */
    public void trim() {
        int used = size == 0 ? 1 : ((size - 1) >>> PAGE_BITS) + 1;
        if (pages.length > used) {
            pages = Arrays.copyOf(pages, used);
        }
        int last = (size - ((used - 1) << PAGE_BITS)) * width; // keys on the last page in use
        if (pages[used - 1].length > last) {
            pages[used - 1] = Arrays.copyOf(pages[used - 1], last); // at most one page copied
        }
    }

    /** Frees the index (the keys stay); the next lookup builds it again. */
    public void dropIndex() {
        slots = new int[64];
        idMask = 63;
        indexed = 0;
        indexedTo = 0;
    }

    private int store(long a, long b) {
        if (size == Integer.MAX_VALUE - 1) {
            throw new IllegalStateException("more than " + (Integer.MAX_VALUE - 1) + " keys");
        }
        int p = size >>> PAGE_BITS, i = (size & MASK) * width;
        if (p == pages.length) {
            pages = Arrays.copyOf(pages, Math.max(2, p + (p >> 1)));
        }
        long[] page = pages[p];
        if (page == null) {
            page = pages[p] = new long[PAGE * width];
        } else if (i == page.length) { // the first page, growing from small; or one trimmed, grown again
            page = pages[p] = Arrays.copyOf(page, Math.min(PAGE * width, Math.max(16 * width, 2 * page.length)));
        }
        page[i] = a;
        if (width == 2) {
            page[i + 1] = b;
        }
        return size++;
    }

    /**
     * Doubles the index. The ids in it are put back in id order, so their keys are read in the order
     * they are stored (a pass over the pages, not a random read per id); the slots' fingerprints lose
     * the bit the ids gain.
     */
    private void rehash() {
        if (slots.length >= 1 << 30) {
            throw new IllegalStateException("an index of more than 2^30 slots");
        }
        rehash(slots.length * 2);
    }

    /** Rebuilds the index with {@code length} slots (a power of two, larger than now), as {@link #rehash()} does. */
    private void rehash(int length) {
        int[] old = slots;
        int oldIds = idMask;
        long[] indexedIds = new long[(size + 63) >>> 6];
        for (int e : old) {
            if (e != 0) {
                int id = (e & oldIds) - 1;
                indexedIds[id >>> 6] |= 1L << id;
            }
        }
        int[] t = new int[length];
        int ids = t.length - 1;
        slots = t;
        idMask = ids;
        int mask = t.length - 1;
        for (int w = 0; w < indexedIds.length; w++) {
            for (long bits = indexedIds[w]; bits != 0; bits &= bits - 1) {
                int id = w << 6 | Long.numberOfTrailingZeros(bits);
                long h = width == 1 ? hash(key(id), 0) : hash(key(id), key2(id));
                int i = (int) h & mask;
                while (t[i] != 0) {
                    i = (i + 1) & mask;
                }
                t[i] = fingerprint(h) | (id + 1);
            }
        }
    }
}
