package dev.arenascope.core.plan;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The free bytes of an arena at one instant of a sweep over time: finite gaps below the <em>top</em>
 * (one past the highest byte in use; everything from there up is free), kept twice: by offset, to merge a
 * freed range with its neighbours, and by size then offset, for best fit. Each operation is O(log g) for
 * g gaps. Offsets and sizes are bytes; the caller keeps them multiples of its alignment (every gap's
 * ends are then multiples too). Not thread-safe.
 */
final class FreeSpace {
    private final TreeMap<Long, Long> byStart = new TreeMap<>();       // gap start -> end
    private final TreeSet<long[]> bySize = new TreeSet<>((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    private long top;
    private long peak;

    /** One past the highest byte in use now. */
    long top() {
        return top;
    }

    /** The highest {@link #top()} ever reached. */
    long peak() {
        return peak;
    }

    /**
     * Takes {@code size} bytes (more than 0) at the lowest offset of the smallest gap that holds them,
     * or at the top when none does; returns the offset.
     */
    long takeBestFit(long size) {
        long[] g = bySize.ceiling(new long[]{size, Long.MIN_VALUE});
        if (g == null) {
            long at = top;
            top += size;
            peak = Math.max(peak, top);
            return at;
        }
        long at = g[1];
        removeGap(at, at + g[0]);
        if (g[0] > size) {
            addGap(at + size, at + g[0]);
        }
        return at;
    }

    /**
     * Up to {@code limit} gaps that hold {@code size} bytes, smallest first (ties: lowest offset), each as
     * {@code {start, end}} written into {@code out}; returns how many.
     */
    int fitting(long size, int limit, long[][] out) {
        int k = 0;
        for (long[] g : bySize.tailSet(new long[]{size, Long.MIN_VALUE}, true)) {
            if (k == limit) {
                break;
            }
            out[k][0] = g[1];
            out[k][1] = g[1] + g[0];
            k++;
        }
        return k;
    }

    /** Takes {@code [at, at + size)}, which must be free (in a gap or at or above the top). */
    void take(long at, long size) {
        if (at >= top) {
            if (at > top) {
                addGap(top, at);
            }
            top = at + size;
            peak = Math.max(peak, top);
            return;
        }
        Map.Entry<Long, Long> e = byStart.floorEntry(at);
        if (e == null || e.getValue() < at + size) {   // gaps never touch the top: no range runs from one past it
            throw new IllegalStateException("bytes [" + at + ", " + (at + size) + ") are not free");
        }
        long gs = e.getKey();
        long ge = e.getValue();
        removeGap(gs, ge);
        if (gs < at) {
            addGap(gs, at);
        }
        if (at + size < ge) {
            addGap(at + size, ge);
        }
    }

    /** Gives back {@code [at, at + size)}, merging it with the free bytes on either side. */
    void free(long at, long size) {
        long from = at;
        long to = at + size;
        Map.Entry<Long, Long> below = byStart.floorEntry(at);
        if (below != null && below.getValue() == at) {
            from = below.getKey();
            removeGap(from, at);
        }
        Long aboveEnd = byStart.get(to);
        if (aboveEnd != null) {
            removeGap(to, aboveEnd);
            to = aboveEnd;
        }
        if (to >= top) {
            top = from;
        } else {
            addGap(from, to);
        }
    }

    private void addGap(long from, long to) {
        byStart.put(from, to);
        bySize.add(new long[]{to - from, from});
    }

    private void removeGap(long from, long to) {
        byStart.remove(from);
        bySize.remove(new long[]{to - from, from});
    }
}
