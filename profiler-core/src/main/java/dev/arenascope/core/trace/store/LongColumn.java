package dev.arenascope.core.trace.store;

import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * A growable column of longs kept in fixed pages, so growing never copies the values (only the small
 * page directory). Not thread-safe; the store guards it with its lock.
 */
final class LongColumn {
    private static final int SHIFT = 12;
    private static final int PAGE = 1 << SHIFT;
    private static final int MASK = PAGE - 1;
    private static final int FIRST_PAGE = 16;

    private long[][] pages = new long[4][];
    private long size;

    long size() {
        return size;
    }

    long get(long i) {
        return pages[(int) (i >>> SHIFT)][(int) (i & MASK)];
    }

    void set(long i, long v) {
        pages[(int) (i >>> SHIFT)][(int) (i & MASK)] = v;
    }

    void add(long v) {
        int p = (int) (size >>> SHIFT);
        if (p == pages.length) {
            pages = Arrays.copyOf(pages, p * 2);
        }
        int within = (int) (size & MASK);
        if (pages[p] == null) {
            pages[p] = new long[p == 0 ? FIRST_PAGE : PAGE];
        } else if (within == pages[p].length) {
            pages[p] = Arrays.copyOf(pages[p], within * 2); // only the first page grows: small columns stay small
        }
        pages[p][within] = v;
        size++;
    }

    /** Writes the column (its size, then its values) for {@link #read}. */
    void write(DataOutput out) throws IOException {
        out.writeLong(size);
        for (long i = 0; i < size; i++) {
            out.writeLong(get(i));
        }
    }

    /** A column written by {@link #write}. */
    static LongColumn read(IndexInput in) {
        int n = in.count(8);
        LongColumn c = new LongColumn();
        for (int i = 0; i < n; i++) {
            c.add(in.i64());
        }
        return c;
    }

    /** Bytes held, for memory accounting. */
    long bytes() {
        long n = 16L + pages.length * 8L;
        for (long[] page : pages) {
            if (page != null) {
                n += 16L + page.length * 8L;
            }
        }
        return n;
    }
}
