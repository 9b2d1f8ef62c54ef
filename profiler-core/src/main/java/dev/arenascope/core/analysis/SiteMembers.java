package dev.arenascope.core.analysis;

import java.util.Arrays;
import java.util.BitSet;

import dev.arenascope.core.util.SortedLongs;

/**
 * The allocations behind part of a {@link SiteAnalysis} answer (one site, one node of a {@link SiteTree},
 * one category): what a view highlights and lists when the user picks that part. Built by
 * {@link SiteAnalysis#members}; immutable (the arrays are not handed out) and thread-safe.
 *
 * <p>Event indexes are positions in the trace the analysis was built from ({@code TraceView#event(long)}).
 */
public final class SiteMembers {
    /** No allocation. */
    public static final SiteMembers NONE = new SiteMembers(new long[0], new long[0], new BitSet(), 0, 0);

    private final long[] allocations;
    private final long[] frees;
    private final BitSet stacks;
    private final long bytes;
    private final long count;

    SiteMembers(long[] allocations, long[] frees, BitSet stacks, long bytes, long count) {
        this.allocations = allocations;
        this.frees = frees;
        this.stacks = stacks;
        this.bytes = bytes;
        this.count = count;
    }

    /** How many allocations (the answer's count for this part). */
    public long count() {
        return count;
    }

    /** Their bytes (the answer's bytes for this part). */
    public long bytes() {
        return bytes;
    }

    /** Whether the event at {@code eventIndex} made one of these allocations. O(log n). */
    public boolean isAllocation(long eventIndex) {
        return Arrays.binarySearch(allocations, eventIndex) >= 0;
    }

    /**
     * Whether the event at {@code eventIndex} made or freed one of these allocations (a free may be a
     * FREE, a pool hold or release, a pointer restore, a reset or the memory's close). O(log n).
     */
    public boolean isAllocationOrFree(long eventIndex) {
        return isAllocation(eventIndex) || Arrays.binarySearch(frees, eventIndex) >= 0;
    }

    /** The allocating events' indexes, ascending (a copy). */
    public long[] allocationEvents() {
        return allocations.clone();
    }

    /** The indexes of the events that freed them, ascending, each once (a copy; those never freed have none). */
    public long[] freeEvents() {
        return frees.clone();
    }

    /**
     * The allocating and freeing events whose index lies in {@code [from, to)}, ascending, each once:
     * what an events table lists for this part over a range of the trace.
     */
    public long[] eventsIn(long from, long to) {
        int a0 = SortedLongs.firstAtOrAfter(allocations, from);
        int a1 = SortedLongs.firstAtOrAfter(allocations, to);
        int f0 = SortedLongs.firstAtOrAfter(frees, from);
        int f1 = SortedLongs.firstAtOrAfter(frees, to);
        long[] out = new long[(a1 - a0) + (f1 - f0)];
        int n = 0;
        int i = a0;
        int j = f0;
        while (i < a1 || j < f1) {
            long v = j >= f1 || (i < a1 && allocations[i] <= frees[j]) ? allocations[i++] : frees[j++];
            if (n == 0 || out[n - 1] != v) {
                out[n++] = v;
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    @Override
    public String toString() {
        return "SiteMembers[" + count + " allocations, " + bytes + " bytes]";
    }
}
