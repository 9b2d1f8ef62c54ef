package dev.arenascope.core.plan;

import java.util.Arrays;

/**
 * An open-addressing set of non-zero longs (0 is stored as 1): the searches' tables of states known to
 * fail, keyed by hash. Grows to 2^22 entries, then is cleared when 3/4 full, so its memory stays bounded
 * (32 MiB) however long a search runs; a cleared entry only costs a state searched again. Not
 * thread-safe.
 */
final class LongSet {
    private static final int MAX = 1 << 22;
    private long[] table;
    private int mask;
    private int size;

    LongSet(int capacity) {
        table = new long[capacity];
        mask = capacity - 1;
    }

    boolean contains(long key) {
        key = key == 0 ? 1 : key;
        for (int i = (int) mix(key) & mask; ; i = (i + 1) & mask) {
            long v = table[i];
            if (v == key) {
                return true;
            }
            if (v == 0) {
                return false;
            }
        }
    }

    void add(long key) {
        key = key == 0 ? 1 : key;
        if (size >= table.length / 4 * 3) {
            long[] old = table;
            size = 0;
            if (old.length < MAX) {
                table = new long[old.length * 2];
                mask = table.length - 1;
                for (long v : old) {
                    if (v != 0) {
                        insert(v);
                    }
                }
            } else {
                Arrays.fill(table, 0);
            }
        }
        insert(key);
    }

    private void insert(long key) {
        for (int i = (int) mix(key) & mask; ; i = (i + 1) & mask) {
            long v = table[i];
            if (v == key) {
                return;
            }
            if (v == 0) {
                table[i] = key;
                size++;
                return;
            }
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
