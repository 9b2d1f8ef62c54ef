package dev.arenascope.app.ui.timeline;

import java.util.Arrays;

/**
 * A what-if's reserved bytes over time, drawn over a lane's recorded reserved line: the caching
 * allocator model's replay of the lane's memory under other settings ({@code arenascope whatif}'s),
 * kept as the instants where it changes. Immutable.
 *
 * @param memory   the lane's memory id
 * @param label    what the legend calls it ({@code what-if reserved (expandable_segments=true)})
 * @param timesNs  instants, non-decreasing, where the reserved bytes change
 * @param reserved the bytes reserved from each instant on
 */
public record WhatIfLine(int memory, String label, long[] timesNs, long[] reserved) {

    /** The line of a replay that reserved {@code reservedAfter[i]} after entry {@code i}, at {@code entryNs[i]}. */
    public static WhatIfLine of(int memory, String label, long[] entryNs, long[] reservedAfter) {
        long[] t = new long[Math.min(entryNs.length, reservedAfter.length) + 1];
        long[] r = new long[t.length];
        int n = 0;
        long last = -1;
        for (int i = 0; i < t.length - 1; i++) {
            if (reservedAfter[i] != last) {
                if (n > 0 && t[n - 1] == entryNs[i]) {
                    n--; // one instant, one value: the last entry's at it
                }
                t[n] = entryNs[i];
                r[n] = reservedAfter[i];
                n++;
                last = reservedAfter[i];
            }
        }
        return new WhatIfLine(memory, label, Arrays.copyOf(t, n), Arrays.copyOf(r, n));
    }

    /** The most reserved at any one instant. */
    public long peak() {
        long p = 0;
        for (long v : reserved) {
            p = Math.max(p, v);
        }
        return p;
    }

    /** The bytes reserved at {@code ns} (0 before the first change). */
    public long at(long ns) {
        int i = Arrays.binarySearch(timesNs, ns);
        if (i < 0) {
            i = -i - 2;
        } else {
            while (i + 1 < timesNs.length && timesNs[i + 1] == ns) {
                i++;
            }
        }
        return i < 0 ? 0 : reserved[i];
    }

    /**
     * Per pixel column of {@code d}, the most reserved in it (-1 before the line's first instant): the line
     * folded to the frame's columns as the lanes' gauges are.
     */
    long[] columns(DrawList d) {
        long[] out = new long[d.width()];
        for (int x = 0; x < out.length; x++) {
            long from = d.timeAt(x);
            long to = d.timeAt(x + 1);
            if (timesNs.length == 0 || to < timesNs[0]) {
                out[x] = -1;
                continue;
            }
            long most = at(from);
            int i = Arrays.binarySearch(timesNs, from);
            i = i < 0 ? -i - 1 : i;
            for (; i < timesNs.length && timesNs[i] < to; i++) {
                most = Math.max(most, reserved[i]);
            }
            out[x] = most;
        }
        return out;
    }
}
