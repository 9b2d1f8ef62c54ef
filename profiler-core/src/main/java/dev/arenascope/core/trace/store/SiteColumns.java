package dev.arenascope.core.trace.store;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;

/**
 * The store's allocation sites, kept beside its blocks: two paged columns, the indexes of the events
 * that carry a site or a category (ascending) and, for each, the site and category packed in one long
 * ({@code site << 32 | category}, both as unsigned 32 bits). A stream without sites costs nothing, one
 * with sites 16 bytes an allocation. Lookups are binary searches over the index column. Not
 * thread-safe: the store guards it with its lock.
 */
final class SiteColumns {
    private final LongColumn index = new LongColumn();
    private final LongColumn value = new LongColumn();

    /** Whether any event carries a site or a category. */
    boolean isEmpty() {
        return index.size() == 0;
    }

    /** Keeps the sites of events {@code [from, to)} of {@code b}, the first being store event {@code firstIndex}. */
    void keep(EventBatch b, int from, int to, long firstIndex) {
        if (!b.hasSites()) {
            return;
        }
        for (int i = from; i < to; i++) {
            int site = b.site(i);
            int cat = b.category(i);
            if (site != -1 || cat != -1) {
                index.add(firstIndex + (i - from));
                value.add((long) site << 32 | (cat & 0xFFFF_FFFFL));
            }
        }
    }

    /** {@code e}, store event {@code at}, with its site and category put back. */
    Event on(Event e, long at) {
        long p = atOrAfter(at);
        if (p < index.size() && index.get(p) == at) {
            long v = value.get(p);
            return e.withSite((int) (v >> 32), (int) v);
        }
        return e;
    }

    /**
     * Sets the sites of events {@code [outFrom, out.size())} of {@code out}, which hold store events from
     * {@code firstIndex} on.
     */
    void put(EventBatch out, int outFrom, long firstIndex) {
        long end = firstIndex + (out.size() - outFrom);
        for (long p = atOrAfter(firstIndex); p < index.size(); p++) {
            long idx = index.get(p);
            if (idx >= end) {
                break;
            }
            long v = value.get(p);
            out.setSite(outFrom + (int) (idx - firstIndex), (int) (v >> 32), (int) v);
        }
    }

    /** Bytes the two columns hold. */
    long bytes() {
        return index.bytes() + value.bytes();
    }

    /** The first position in the columns whose event index is at least {@code at}. */
    private long atOrAfter(long at) {
        long lo = 0;
        long hi = index.size();
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (index.get(mid) < at) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
