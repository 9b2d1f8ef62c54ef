package dev.arenascope.core.analysis;

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
 * {@link #largest} finds the largest allocations live at any of a timeline's
 * instants in time proportional to the allocations that could qualify, not to all of them: the table is
 * kept again thinned by size ({@link SizeLevels}: the allocations of at least 2^j bytes, in columns of
 * their own) and cut in blocks of {@value #BLOCK} whose largest size and latest end are kept; the query
 * scans the thinnest level that holds every allocation of its {@code minBytes}, skipping a block that
 * cannot hold a qualifying allocation whole. Built with the analysis (two passes).
 *
 * <p>Immutable; safe to share between threads. Methods taking an allocation number throw
 * {@link ArrayIndexOutOfBoundsException} outside {@code 0 .. size()-1}.
 */
public final class Allocations {
    /** {@link #endNs(int)} of an allocation never freed. */
    public static final long NEVER = Long.MAX_VALUE;
    /** Allocations per block of the overlap index. */
    static final int BLOCK = SizeLevels.BLOCK;

    private final AllocationIndex x;
    private final int[] path;
    private final int[] category;
    private final SiteAnalysis owner;
    private final SizeLevels levels;

    Allocations(SiteAnalysis owner, AllocationIndex x, int[] path, int[] category) {
        this.owner = owner;
        this.x = x;
        this.path = path;
        this.category = category;
        levels = new SizeLevels(x.size, x.bytes, x.startNs, x.endNs);
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

    /**
     * The bytes it asked for before alignment or rounding ({@code c} of an {@code ALLOC} or
     * {@code POOL_REQUEST}; a plan tensor's own bytes). As the producer recorded it: 0 where it did not.
     */
    public long requestedBytes(int i) {
        check(i);
        return x.requested[i];
    }

    /** The innermost scope open when it was made (an arena's scope id), -1 for none. */
    public int scope(int i) {
        check(i);
        return x.scope[i];
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
     * is not seen there and is not returned. The answer carries what a drawing needs of each beside
     * it, so that it is not gathered again from the table's columns (at a coarse zoom the answers are
     * spread over the whole table: each a cache miss), and how many qualified before the limit.
     *
     * @param instants ns, sorted ascending (not checked beyond the first and last)
     * @throws IllegalArgumentException when {@code limit} is negative
     */
    public Largest largest(long[] instants, long minBytes, int limit) {
        return levels.largest(instants, minBytes, limit);
    }

    /**
     * The least size of the allocations a query for at least {@code minBytes} reads (0: every
     * allocation): the floor of the size level it scans. For tests and the bench's account of a query.
     */
    public long scannedFloor(long minBytes) {
        return levels.forMinBytes(minBytes).floor;
    }

    /**
     * The answer of {@link #largest}: per allocation kept (in allocation order) its number, bytes, start
     * and end ({@link #startNs}, {@link #endNs}) and the first of the asked instants at or after its
     * start; and how many allocations qualified before the limit, and their bytes. The arrays are the
     * answer's own, shared by whoever holds it: read only.
     */
    public record Largest(int[] ids, long[] bytes, long[] startNs, long[] endNs, int[] firstInstant, long qualified,
                          long qualifiedBytes) {
        static final Largest NONE = new Largest(new int[0], new long[0], new long[0], new long[0], new int[0], 0, 0);

        /** Allocations kept. */
        public int size() {
            return ids.length;
        }
    }

    /** How many allocations are live at {@code ns} and their bytes: {@code {count, bytes}}. */
    public long[] liveAt(long ns) {
        int end = firstStartingAtOrAfter(ns + 1);
        long count = 0;
        long sum = 0;
        long[] blockMaxEnd = levels.forMinBytes(0).blockMaxEnd;
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
