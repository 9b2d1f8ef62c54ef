package dev.arenascope.core.arena;

import java.util.Arrays;

import dev.arenascope.core.record.Session;

/**
 * An arena's table of distinct (dtype, shape) pairs seen while recording, so the hot path finds a
 * tensor's descriptor id ({@code float32[1024,3]}) and a canonical shape array by hashing the shape
 * instead of formatting a string. Open addressing, linear probing; grows at half full. One arena's
 * thread only.
 */
final class DescriptorTable {
    private int[] slots = new int[64]; // entry index + 1, 0 = empty
    private int[] hashes = new int[64];
    private long[][] shapes = new long[32][];
    private DType[] dtypes = new DType[32];
    private int[] stringIds = new int[32];
    private int size;

    /** The entry index of (dtype, shape), adding a copy of {@code shape} when new. */
    int find(DType dtype, long[] shape) {
        int h = hash(dtype, shape);
        int mask = slots.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            int s = slots[i];
            if (s == 0) {
                return insert(i, h, dtype, shape);
            }
            int e = s - 1;
            if (hashes[i] == h && dtypes[e] == dtype && sameDims(shapes[e], shape)) {
                return e;
            }
        }
    }

    private static boolean sameDims(long[] a, long[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) { // shapes are short: a plain loop beats the vectorized mismatch call
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    /** The canonical (shared, never modified) shape of entry {@code e}. */
    long[] shape(int e) {
        return shapes[e];
    }

    DType dtype(int e) {
        return dtypes[e];
    }

    /** The session string id of entry {@code e}'s descriptor, interning it on first use. */
    int stringId(int e, Session session) {
        int id = stringIds[e];
        if (id < 0) {
            id = session.intern(Tensor.descriptor(dtypes[e], shapes[e]));
            stringIds[e] = id;
        }
        return id;
    }

    private int insert(int slot, int h, DType dtype, long[] shape) {
        if (size == shapes.length) {
            shapes = Arrays.copyOf(shapes, size * 2);
            dtypes = Arrays.copyOf(dtypes, size * 2);
            stringIds = Arrays.copyOf(stringIds, size * 2);
        }
        int e = size++;
        shapes[e] = shape.clone();
        dtypes[e] = dtype;
        stringIds[e] = -1;
        slots[slot] = e + 1;
        hashes[slot] = h;
        if (size * 2 > slots.length) {
            rehash();
        }
        return e;
    }

    private void rehash() {
        int[] newSlots = new int[slots.length * 2];
        int[] newHashes = new int[slots.length * 2];
        int mask = newSlots.length - 1;
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != 0) {
                int j = hashes[i] & mask;
                while (newSlots[j] != 0) {
                    j = (j + 1) & mask;
                }
                newSlots[j] = slots[i];
                newHashes[j] = hashes[i];
            }
        }
        slots = newSlots;
        hashes = newHashes;
    }

    private static int hash(DType dtype, long[] shape) {
        long h = dtype.ordinal() + 0x9E3779B97F4A7C15L;
        for (long d : shape) {
            h = (h ^ d) * 0xBF58476D1CE4E5B9L;
        }
        h ^= h >>> 31;
        return (int) (h ^ (h >>> 32));
    }
}
