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
 */
public final class KeyIds {
    private final int width;
    private final long seed = ThreadLocalRandom.current().nextLong() | 1;
    private long[] keys;
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
        this.keys = new long[16 * width];
    }

    /** Ids given so far. */
    public int size() {
        return size;
    }

    /** The first long of id {@code id}'s key. */
    public long key(int id) {
        return keys[id * width];
    }

    /** The second long of id {@code id}'s key (width 2). */
    public long key2(int id) {
        return keys[id * width + 1];
    }

    /** Bytes the table holds. */
    public long bytes() {
        return 8L * keys.length + 4L * slots.length;
    }

    private int slot(long a, long b) {
        long x = (a ^ seed) * 0x9E3779B97F4A7C15L;
        x ^= Long.rotateLeft(b * 0xC2B2AE3D27D4EB4FL, 31);
        x ^= x >>> 33;
        x *= 0xFF51AFD7ED558CCDL;
        x ^= x >>> 33;
        x *= 0xC4CEB9FE1A85EC53L;
        x ^= x >>> 33;
        return (int) x & (slots.length - 1);
    }

    private boolean same(int id, long a, long b) {
        int p = id * width;
        return keys[p] == a && (width == 1 || keys[p + 1] == b);
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
        int mask = slots.length - 1;
        for (int i = slot(a, b); slots[i] != 0; i = (i + 1) & mask) {
            int id = slots[i] - 1;
            if (same(id, a, b)) {
                return id;
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
        int mask = slots.length - 1;
        int i = slot(a, b);
        for (; slots[i] != 0; i = (i + 1) & mask) {
            int id = slots[i] - 1;
            if (same(id, a, b)) {
                return id;
            }
        }
        int id = store(a, b);
        indexedTo = size;
        slots[i] = id + 1;
        if (2 * ++indexed > slots.length) {
            rehash();
        }
        return id;
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
        while (indexedTo < size) {
            int id = indexedTo++;
            int p = id * width;
            long a = keys[p], b = width == 1 ? 0 : keys[p + 1];
            int mask = slots.length - 1;
            int i = slot(a, b);
            boolean known = false;
            for (; slots[i] != 0; i = (i + 1) & mask) {
                if (same(slots[i] - 1, a, b)) {
                    known = true;
                    break;
                }
            }
            if (!known) {
                slots[i] = id + 1;
                if (2 * ++indexed > slots.length) {
                    rehash();
                }
            }
        }
    }

    /** Gives back the keys' room to grow (a table that is done growing: after a read). */
    public void trim() {
        if (keys.length > size * width) {
            keys = Arrays.copyOf(keys, size * width);
        }
    }

    /** Frees the index (the keys stay); the next lookup builds it again. */
    public void dropIndex() {
        slots = new int[64];
        indexed = 0;
        indexedTo = 0;
    }

    private int store(long a, long b) {
        if (size == Integer.MAX_VALUE - 1) {
            throw new IllegalStateException("more than " + (Integer.MAX_VALUE - 1) + " keys");
        }
        if ((long) (size + 1) * width > keys.length) {
            if ((long) (size + 1) * width > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("more than " + (Integer.MAX_VALUE - 8) / width + " keys");
            }
            // by half again, not double: a table of millions of keys wastes a third at most, not a half
            keys = Arrays.copyOf(keys, (int) Math.min((long) Integer.MAX_VALUE - 8, keys.length + (keys.length >> 1) + 2L * width));
        }
        keys[size * width] = a;
        if (width == 2) {
            keys[size * width + 1] = b;
        }
        return size++;
    }

    private void rehash() {
        int[] old = slots;
        slots = new int[old.length * 2];
        int mask = slots.length - 1;
        for (int s : old) {
            if (s != 0) {
                int p = (s - 1) * width;
                int i = slot(keys[p], width == 1 ? 0 : keys[p + 1]);
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = s;
            }
        }
    }
}
