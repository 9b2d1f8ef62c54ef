package dev.arenascope.core.trace.torch;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;

/**
 * A Python dict read from a pickle: insertion-ordered pairs, a later key replacing an earlier equal
 * one as in Python. Small dicts (the common case: trace entries, frames) are searched linearly; past
 * {@value #LINEAR} keys an index ordered by {@link PyOrder} takes over, so lookups stay O(log n) whatever
 * the keys' hash codes are (an input cannot make them collide). Not thread-safe; read-only once the
 * reader has returned (mutators other than {@link #put} are not supported).
 */
final class PyDict extends AbstractMap<Object, Object> {
    private static final int LINEAR = 8;
    private static final Object[] NONE = new Object[0];

    private Object[] kv = NONE; // allocated at the first put: most dicts of a snapshot are taken whole by the reader's consumer
    private int n;
    private TreeMap<Object, Integer> index;
    /** The memo slot this dict was first stored in, or -1 (lets a streaming consumer replace it there). */
    int memo = -1;
    /** What a streaming consumer put in this value's place, or null (later placements get the same). */
    Object replacement;

    @Override
    public Object put(Object key, Object value) {
        int i = find(key);
        if (i >= 0) {
            Object old = kv[2 * i + 1];
            kv[2 * i + 1] = value;
            return old;
        }
        if (2 * n == kv.length) {
            kv = Arrays.copyOf(kv, Math.max(8, kv.length * 2));
        }
        kv[2 * n] = key;
        kv[2 * n + 1] = value;
        if (index != null) {
            index.put(key, n);
        } else if (n == LINEAR) {
            index = new TreeMap<>(PyOrder.INSTANCE);
            for (int j = 0; j <= n; j++) {
                index.put(kv[2 * j], j);
            }
        }
        n++;
        return null;
    }

    private int find(Object key) {
        if (index != null) {
            Integer i = index.get(key);
            return i == null ? -1 : i;
        }
        for (int i = 0; i < n; i++) {
            if (kv[2 * i] == key) {
                return i; // keys shared through the memo, or canonical strings
            }
        }
        if (key instanceof String s) {
            for (int i = 0; i < n; i++) {
                if (kv[2 * i] instanceof String k && k.equals(s)) {
                    return i;
                }
            }
            return -1;
        }
        for (int i = 0; i < n; i++) {
            Object k = kv[2 * i];
            if (k != null && !(k instanceof String) && PyOrder.INSTANCE.compare(k, key) == 0) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Object get(Object key) {
        int i = find(key);
        return i < 0 ? null : kv[2 * i + 1];
    }


    @Override
    public boolean containsKey(Object key) {
        return find(key) >= 0;
    }

    @Override
    public int size() {
        return n;
    }

    /** Drops the contents (a streaming consumer took them); the dict reads as empty afterwards. */
    @Override
    public void clear() {
        kv = NONE;
        n = 0;
        index = null;
    }

    Object keyAt(int i) {
        return kv[2 * i];
    }

    Object valueAt(int i) {
        return kv[2 * i + 1];
    }

    @Override
    public Set<Entry<Object, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<Object, Object>> iterator() {
                return new Iterator<>() {
                    int i;

                    @Override
                    public boolean hasNext() {
                        return i < n;
                    }

                    @Override
                    public Entry<Object, Object> next() {
                        if (i >= n) {
                            throw new NoSuchElementException();
                        }
                        Entry<Object, Object> e = new SimpleImmutableEntry<>(kv[2 * i], kv[2 * i + 1]);
                        i++;
                        return e;
                    }
                };
            }

            @Override
            public int size() {
                return n;
            }
        };
    }

    @Override
    public boolean equals(Object o) {
        return o == this || super.equals(o);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this); // dicts are not hashable in Python; and they may hold themselves
    }
}
