package dev.arenascope.core.trace.torch;

import java.util.ArrayList;

/**
 * A Python list read from a pickle. It remembers the memo slot it was first stored in, so that a
 * streaming consumer that turns it into something compact can replace it there too (the memo would
 * otherwise keep every list alive until the end of the pickle). Not thread-safe.
 */
final class PyList extends ArrayList<Object> {
    int memo = -1;
    /** What a streaming consumer put in this value's place, or null (later placements get the same). */
    Object replacement;
    /**
     * Set when {@link PickleFrameLists} made this list from a list it kept: its first
     * {@code kept.length - 1} elements are the placement's {@link PicklePlacement#reused reused(kept[k])},
     * in order; the last int is the placement's own, shared by every list made from the same kept one
     * (0 until the placement uses it), to note what it made of such a list while the list still has
     * just those elements.
     */
    int[] kept;

    PyList() {
        super(4);
    }

    PyList(int capacity) {
        super(capacity);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || super.equals(o);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this); // lists are not hashable in Python; and they may hold themselves
    }
}
