package dev.arenascope.core.analysis;

import java.util.Arrays;
import java.util.List;

import dev.arenascope.core.trace.StackFrame;

/**
 * Every allocation of one memory, one by one, as {@link SiteAnalysis} indexed them: when each began
 * and ended (event indexes and effective times), its bytes, address, descriptor, the trace's site, the
 * analysis's site path (internal frames hidden unless the analysis kept them) and its category. Views
 * draw single allocations from this (the window's allocation stripes) rather than replaying events.
 *
 * <p>Allocations are numbered {@code 0 .. size()-1} in allocation order, which is event order, so
 * {@link #startNs(int)} never decreases with the number. An allocation is live over
 * {@code [startNs, endNs)}; one never freed has {@link #endNs(int)} {@link #NEVER} and
 * {@link #endEvent(int)} -1.
 *
 * <h2>The sampled query</h2>
 * {@link #largestLiveAt} finds the largest allocations live at any of a timeline's instants in time
 * proportional to the allocations that could qualify, not to all of them: allocations are grouped in
 * blocks of {@value #BLOCK} (in allocation order) whose largest size and latest end are kept, and a
 * block that cannot hold a qualifying allocation is skipped whole. Built with the analysis (one pass).
 *
 * <p>Immutable; safe to share between threads. Methods taking an allocation number throw
 * {@link ArrayIndexOutOfBoundsException} outside {@code 0 .. size()-1}.
 */
public final class Allocations {
    /** {@link #endNs(int)} of an allocation never freed. */
    public static final long NEVER = Long.MAX_VALUE;
    /** Allocations per block of the overlap index. */
    static final int BLOCK = 256;

    private final AllocationIndex x;
    private final int[] path;
    private final int[] category;
    private final SiteAnalysis owner;
    private final long[] blockMaxBytes;
    private final long[] blockMaxEnd;

    Allocations(SiteAnalysis owner, AllocationIndex x, int[] path, int[] category) {
        this.owner = owner;
        this.x = x;
        this.path = path;
        this.category = category;
        int blocks = (x.size + BLOCK - 1) / BLOCK;
        blockMaxBytes = new long[blocks];
        blockMaxEnd = new long[blocks];
        for (int i = 0; i < x.size; i++) {
            int b = i / BLOCK;
            blockMaxBytes[b] = Math.max(blockMaxBytes[b], x.bytes[i]);
            blockMaxEnd[b] = Math.max(blockMaxEnd[b], x.endNs[i]);
        }
    }

    /** How many allocations. */
    public int size() {
        return x.size;
    }

    /** When allocation {@code i} was made: effective time, ns since the session start. */
    public long startNs(int i) {
        check(i);
        return x.startNs[i];
    }

    /** When it was freed, or {@link #NEVER}. */
    public long endNs(int i) {
        check(i);
        return x.endNs[i];
    }

    /** The trace's event index of the allocation (its row in an event list). */
    public long startEvent(int i) {
        check(i);
        return x.start[i];
    }

    /** The trace's event index of what freed it (a free, a pointer restore, a reset, a close), -1 if never freed. */
    public long endEvent(int i) {
        check(i);
        return x.end[i] == AllocationIndex.NEVER ? -1 : x.end[i];
    }

    /** Bytes it held (as the memory's {@code used} gauge counts them). */
    public long bytes(int i) {
        check(i);
        return x.bytes[i];
    }

    /** Its offset (arenas, plans) or address (pools, imports). */
    public long address(int i) {
        check(i);
        return x.offset(i);
    }

    /** Its descriptor's string id in the trace ({@code float32[1024,3]}), -1 when it has none. */
    public int descriptor(int i) {
        check(i);
        return x.descriptor[i];
    }

    /** The trace's stack node of its site, -1 when it carries none. */
    public int site(int i) {
        check(i);
        return x.site[i];
    }

    /**
     * Its site path in the analysis: a node whose frames {@link #pathFrames(int)} gives (the trace's
     * stack without internal frames unless the analysis kept them, or the chain of open scopes when it
     * carries no stack); -1 when it has neither. Equal paths, equal numbers.
     */
    public int path(int i) {
        check(i);
        return path[i];
    }

    /** The frames of site path {@code p}, innermost first; empty for -1. */
    public List<StackFrame> pathFrames(int p) {
        return owner.pathFrames(p);
    }

    /** Site paths in the analysis (path numbers are {@code 0 .. pathCount()-1}). */
    public int pathCount() {
        return owner.pathCount();
    }

    /** Its category's number ({@link #categoryName(int)}). */
    public int category(int i) {
        check(i);
        return category[i];
    }

    /** The name of category {@code c}: the allocation's own, an arena scope's, a plan role, or {@code (none)}. */
    public String categoryName(int c) {
        return owner.categoryName(c);
    }

    /** Categories in the analysis. */
    public int categoryCount() {
        return owner.categoryCount();
    }

    /** The first allocation made at or after {@code ns} ({@link #size()} if none). */
    public int firstStartingAtOrAfter(long ns) {
        int lo = 0;
        int hi = x.size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (x.startNs[mid] < ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * The largest allocations of at least {@code minBytes} live at one or more of {@code instants}
     * (each made at or before the instant and freed after it), at most {@code limit} of them, in
     * allocation order; when more qualify, the largest are kept (ties: the earlier). A timeline asks
     * with the instants it samples (one per pixel column): an allocation live between two of them
     * is not seen there and is not returned.
     *
     * @param instants ns, sorted ascending (not checked beyond the first and last)
     * @param counted  when not null, {@code counted[0]} receives how many allocations qualified before
     *                 the limit was applied, {@code counted[1]} their bytes
     * @throws IllegalArgumentException when {@code limit} is negative
     */
    public int[] largestLiveAt(long[] instants, long minBytes, int limit, long[] counted) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, got " + limit);
        }
        if (counted != null && counted.length >= 2) {
            counted[0] = 0;
            counted[1] = 0;
        }
        if (instants.length == 0 || x.size == 0) {
            return new int[0];
        }
        long first = instants[0];
        int end = firstStartingAtOrAfter(instants[instants.length - 1] + 1);
        TopK top = new TopK(limit);
        long n = 0;
        long bytesIn = 0;
        long[] bytes = x.bytes;
        long[] starts = x.startNs;
        long[] ends = x.endNs;
        int k = 0; // the first instant at or after the allocation's start: never moves back (starts never decrease)
        for (int b = 0, blocks = (end + BLOCK - 1) / BLOCK; b < blocks; b++) {
            if (blockMaxEnd[b] <= first || blockMaxBytes[b] < minBytes) {
                continue;
            }
            for (int i = b * BLOCK, e = Math.min(end, i + BLOCK); i < e; i++) {
                long size = bytes[i];
                if (size < minBytes || ends[i] <= first) {
                    continue;
                }
                long s = starts[i];
                while (k < instants.length && instants[k] < s) {
                    k++;
                }
                if (k == instants.length || instants[k] >= ends[i]) {
                    continue;
                }
                n++;
                bytesIn += size;
                top.offer(size, i);
            }
        }
        if (counted != null && counted.length >= 2) {
            counted[0] = n;
            counted[1] = bytesIn;
        }
        return top.inAllocationOrder();
    }

    /**
     * The {@code limit} largest (size, number) pairs offered, ties going to the smaller number: a
     * min-heap whose root is the weakest kept, so that once it is full most offers are refused by one
     * comparison.
     */
    private static final class TopK {
        private final int limit;
        private long[] size;
        private int[] id;
        private int n;

        TopK(int limit) {
            this.limit = limit;
            int cap = Math.max(1, Math.min(limit, 1024)); // grown as offers come, up to the limit
            size = new long[cap];
            id = new int[cap];
        }

        /** Whether (s1, i1) ranks below (s2, i2): smaller, or as large and made later. */
        private static boolean weaker(long s1, int i1, long s2, int i2) {
            return s1 < s2 || (s1 == s2 && i1 > i2);
        }

        void offer(long s, int i) {
            if (limit == 0) {
                return;
            }
            if (n < limit) {
                if (n == size.length) {
                    int cap = (int) Math.min(limit, 2L * n);
                    size = Arrays.copyOf(size, cap);
                    id = Arrays.copyOf(id, cap);
                }
                int c = n++;
                while (c > 0) {
                    int p = (c - 1) >>> 1;
                    if (!weaker(s, i, size[p], id[p])) {
                        break;
                    }
                    size[c] = size[p];
                    id[c] = id[p];
                    c = p;
                }
                size[c] = s;
                id[c] = i;
                return;
            }
            if (!weaker(size[0], id[0], s, i)) {
                return; // no stronger than the weakest kept
            }
            int c = 0;
            while (true) {
                int l = 2 * c + 1;
                if (l >= n) {
                    break;
                }
                int r = l + 1;
                int m = r < n && weaker(size[r], id[r], size[l], id[l]) ? r : l;
                if (!weaker(size[m], id[m], s, i)) {
                    break;
                }
                size[c] = size[m];
                id[c] = id[m];
                c = m;
            }
            size[c] = s;
            id[c] = i;
        }

        int[] inAllocationOrder() {
            int[] out = Arrays.copyOf(id, n);
            Arrays.sort(out);
            return out;
        }
    }

    /** How many allocations are live at {@code ns} and their bytes: {@code {count, bytes}}. */
    public long[] liveAt(long ns) {
        int end = firstStartingAtOrAfter(ns + 1);
        long count = 0;
        long sum = 0;
        for (int b = 0, blocks = (end + BLOCK - 1) / BLOCK; b < blocks; b++) {
            if (blockMaxEnd[b] <= ns) {
                continue;
            }
            for (int i = b * BLOCK, e = Math.min(end, i + BLOCK); i < e; i++) {
                if (x.endNs[i] > ns) {
                    count++;
                    sum += x.bytes[i];
                }
            }
        }
        return new long[] {count, sum};
    }

    private void check(int i) {
        if (i < 0 || i >= x.size) {
            throw new ArrayIndexOutOfBoundsException("allocation " + i + " of " + x.size);
        }
    }
}
