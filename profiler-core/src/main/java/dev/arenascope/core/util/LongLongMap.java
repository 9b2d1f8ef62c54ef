package dev.arenascope.core.util;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongConsumer;

/**
 * The core's one primitive long-keyed map: an open-addressing map from long keys (addresses, ids) to
 * long values, without a boxed entry per key: linear probing with backward-shift deletion, at most
 * half full. Keys come from the input (a PyTorch snapshot's addresses, a trace's scope ids), so slots
 * are chosen by a 64-bit finalizer over the key mixed with a seed drawn per map: an input cannot aim
 * its keys at one run of slots, and work stays proportional to the keys put. Callers that store
 * smaller values (an int index) cast them back; "absent" is a value the caller names per call, so
 * any long can be stored. Memory: 17 bytes per slot, 2 to 4 slots per key. The PyTorch import's
 * emitter calls it once or twice per event, so its loops stay this plain. Not thread-safe.
 */
public final class LongLongMap {
    private final long seed = ThreadLocalRandom.current().nextLong();
    private long[] keys = new long[64];
    private long[] values = new long[64];
    private boolean[] used = new boolean[64];
    private int size;

    /** The value for {@code key}, or {@code absent}. */
    public long get(long key, long absent) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return values[i];
            }
        }
        return absent;
    }

    /** Whether {@code key} is in the map. */
    public boolean containsKey(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return true;
            }
        }
        return false;
    }

    /** Sets {@code key} to {@code value}; returns the old value or {@code absent}. */
    public long put(long key, long value, long absent) {
        if ((size + 1) * 2 > keys.length) {
            rehash(keys.length * 2);
        }
        int mask = keys.length - 1;
        int i = slot(key, mask);
        for (; used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                long old = values[i];
                values[i] = value;
                return old;
            }
        }
        used[i] = true;
        keys[i] = key;
        values[i] = value;
        size++;
        return absent;
    }

    /** Removes {@code key}; returns its value or {@code absent}. */
    public long remove(long key, long absent) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                long old = values[i];
                shiftBack(i, mask);
                size--;
                return old;
            }
        }
        return absent;
    }

    /** How many keys are in the map. */
    public int size() {
        return size;
    }

    /** The keys, in ascending (signed) order (a new array). */
    public long[] sortedKeys() {
        long[] k = new long[size];
        int n = 0;
        for (int i = 0; i < keys.length; i++) {
            if (used[i]) {
                k[n++] = keys[i];
            }
        }
        Arrays.sort(k);
        return k;
    }

    /** Calls {@code f} with each value, in no particular order. */
    public void forEachValue(LongConsumer f) {
        for (int i = 0; i < keys.length; i++) {
            if (used[i]) {
                f.accept(values[i]);
            }
        }
    }

    /** Replaces each value {@code v} by {@code f(v)}, keys unchanged. */
    public void replaceValues(java.util.function.LongUnaryOperator f) {
        for (int i = 0; i < keys.length; i++) {
            if (used[i]) {
                values[i] = f.applyAsLong(values[i]);
            }
        }
    }

    /** Removes every key (the slots' capacity stays). */
    public void clear() {
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
        long[] v = values;
        boolean[] u = used;
        keys = new long[cap];
        values = new long[cap];
        used = new boolean[cap];
        size = 0;
        int mask = cap - 1;
        for (int i = 0; i < k.length; i++) {
            if (u[i]) {
                int s = slot(k[i], mask);
                while (used[s]) {
                    s = (s + 1) & mask;
                }
                used[s] = true;
                keys[s] = k[i];
                values[s] = v[i];
                size++;
            }
        }
    }

    private int slot(long key, int mask) {
        long h = key ^ seed;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h & mask;
    }
}
