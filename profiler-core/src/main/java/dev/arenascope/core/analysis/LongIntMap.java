package dev.arenascope.core.analysis;

import java.util.Arrays;

/**
 * An open-addressing map from long keys to non-negative ints (linear probing, backward-shift
 * deletion), for the site index's live-allocation lookups without a boxed entry per allocation.
 * Keys are mixed with a 64-bit finalizer, so addresses that share low bits do not cluster. Not
 * thread-safe.
 */
final class LongIntMap {
    private static final int ABSENT = -1;
    private long[] keys = new long[64];
    private int[] values = new int[64];
    private boolean[] used = new boolean[64];
    private int size;

    /** The value for {@code key}, or -1. */
    int get(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return values[i];
            }
        }
        return ABSENT;
    }

    /** Sets {@code key} to {@code value} (not negative); returns the old value or -1. */
    int put(long key, int value) {
        if ((size + 1) * 2 > keys.length) {
            rehash(keys.length * 2);
        }
        int mask = keys.length - 1;
        int i = slot(key, mask);
        for (; used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                int old = values[i];
                values[i] = value;
                return old;
            }
        }
        used[i] = true;
        keys[i] = key;
        values[i] = value;
        size++;
        return ABSENT;
    }

    /** Removes {@code key}; returns its value or -1. */
    int remove(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        for (; used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                int old = values[i];
                shiftBack(i, mask);
                size--;
                return old;
            }
        }
        return ABSENT;
    }

    int size() {
        return size;
    }

    /** Calls {@code f} with each value, in no particular order. */
    void forEachValue(java.util.function.IntConsumer f) {
        for (int i = 0; i < keys.length; i++) {
            if (used[i]) {
                f.accept(values[i]);
            }
        }
    }

    void clear() {
        Arrays.fill(used, false);
        size = 0;
    }

    private void shiftBack(int hole, int mask) {
        int i = hole;
        while (true) {
            used[hole] = false;
            int j = hole;
            while (true) {
                i = (i + 1) & mask;
                if (!used[i]) {
                    return;
                }
                int home = slot(keys[i], mask);
                // move keys[i] into the hole unless its home lies cyclically in (hole, i]
                boolean stays = hole <= i ? hole < home && home <= i : hole < home || home <= i;
                if (!stays) {
                    break;
                }
            }
            keys[j] = keys[i];
            values[j] = values[i];
            used[j] = true;
            hole = i;
        }
    }

    private void rehash(int cap) {
        long[] k = keys;
        int[] v = values;
        boolean[] u = used;
        keys = new long[cap];
        values = new int[cap];
        used = new boolean[cap];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (u[i]) {
                put(k[i], v[i]);
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        h ^= h >>> 32;
        return (int) h & mask;
    }
}
