package dev.arenascope.core.trace;

import java.util.Arrays;

/**
 * A growable batch of events held as columns of primitives (no object per event). Used by the
 * session's drain, by readers and by the store's loaders. Not thread-safe.
 */
public final class EventBatch {
    // package-private; the chunk codec (trace.codec) reaches them through columns() / reserveColumns()
    int size;
    long[] time;
    int[] kindFlagsMemory; // kind code (8 bits) | flags (8 bits) << 8 | memory (16 bits, +1) << 16
    int[] thread;
    long[] a;
    long[] b;
    long[] c;
    long[] used;
    long[] aux;
    int[] ref;
    int[] ref2;
    // allocation sites and categories, null until an event carries one (most streams never do);
    // when present they cover the same indexes as the other columns
    int[] site;
    int[] category;

    public EventBatch() {
        this(1024);
    }

    public EventBatch(int capacity) {
        int cap = Math.max(16, capacity);
        time = new long[cap];
        kindFlagsMemory = new int[cap];
        thread = new int[cap];
        a = new long[cap];
        b = new long[cap];
        c = new long[cap];
        used = new long[cap];
        aux = new long[cap];
        ref = new int[cap];
        ref2 = new int[cap];
    }

    /** The largest memory id an event may carry. */
    public static final int MAX_MEMORY_ID = 0xfffe;

    /** Packs kind, flags and memory (-1 for none) into one int, as stored in {@link #packed(int)}. */
    public static int pack(int kindCode, int flags, int memory) {
        return (kindCode & 0xff) | (flags & 0xff) << 8 | ((memory + 1) & 0xffff) << 16;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Drops the events from index {@code newSize} on (a reader taking back what it found unsound). */
    public void truncate(int newSize) {
        if (newSize < 0 || newSize > size) {
            throw new IndexOutOfBoundsException("truncate to " + newSize + " of " + size + " events");
        }
        size = newSize;
    }

    /** Empties the batch, keeping its capacity. */
    public void clear() {
        size = 0;
        site = null;
        category = null;
    }

    public long time(int i) {
        return time[i];
    }

    public int packed(int i) {
        return kindFlagsMemory[i];
    }

    public int kindCode(int i) {
        return kindFlagsMemory[i] & 0xff;
    }

    public EventKind kind(int i) {
        return EventKind.ofCode(kindCode(i));
    }

    public int flags(int i) {
        return (kindFlagsMemory[i] >>> 8) & 0xff;
    }

    public int memory(int i) {
        return (kindFlagsMemory[i] >>> 16) - 1;
    }

    public int thread(int i) {
        return thread[i];
    }

    public long a(int i) {
        return a[i];
    }

    public long b(int i) {
        return b[i];
    }

    public long c(int i) {
        return c[i];
    }

    public long used(int i) {
        return used[i];
    }

    public long aux(int i) {
        return aux[i];
    }

    public int ref(int i) {
        return ref[i];
    }

    public int ref2(int i) {
        return ref2[i];
    }

    /** The allocation site of event {@code i} (a {@link StackNode} id), -1 for none. */
    public int site(int i) {
        return site == null ? -1 : site[i];
    }

    /** The category of event {@code i} (a string id), -1 for none. */
    public int category(int i) {
        return category == null ? -1 : category[i];
    }

    /**
     * The batch's site column (stack node ids, -1 for none) as it is, not a copy, or null when no event
     * carries a site or category; valid for indexes below {@link #size()} until the batch next changes.
     */
    public int[] siteColumn() {
        return site;
    }

    /** The category column (string ids, -1 for none) as {@link #siteColumn()} gives the sites. */
    public int[] categoryColumn() {
        return category;
    }

    /** Forgets every event's site and category (a store whose own columns hold them clears what a block decoded). */
    public void dropSites() {
        site = null;
        category = null;
    }

    /** Whether any event of this batch may carry a site or category (false: none does). */
    public boolean hasSites() {
        return site != null;
    }

    /** Sets the site and category of event {@code i} (-1 for none). */
    public void setSite(int i, int vSite, int vCategory) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("event " + i + " of " + size);
        }
        if (vSite < -1 || vCategory < -1) {
            throw new IllegalArgumentException("site or category below -1: " + vSite + ", " + vCategory);
        }
        if (site == null) {
            if (vSite == -1 && vCategory == -1) {
                return;
            }
            siteColumns();
        }
        site[i] = vSite;
        category[i] = vCategory;
    }

    private void siteColumns() {
        site = new int[time.length];
        category = new int[time.length];
        Arrays.fill(site, -1);
        Arrays.fill(category, -1);
    }

    /** Event {@code i} as a record. */
    public Event get(int i) {
        return new Event(time[i], kind(i), flags(i), memory(i), thread[i], a[i], b[i], c[i], used[i], aux[i], ref[i], ref2[i],
                site(i), category(i));
    }

    /** Appends one event. */
    public void add(Event e) {
        add(e.timeNs(), pack(e.kind().code(), e.flags(), e.memory()), e.thread(), e.a(), e.b(), e.c(), e.used(), e.aux(), e.ref(), e.ref2(),
                e.site(), e.category());
    }

    /**
     * Appends one event with an allocation site and category (see {@link Event#site()}, {@link Event#category()}).
     */
    public void add(long timeNs, int packed, int threadId, long va, long vb, long vc, long vUsed, long vAux, int vRef, int vRef2,
                    int vSite, int vCategory) {
        add(timeNs, packed, threadId, va, vb, vc, vUsed, vAux, vRef, vRef2);
        if (vSite != -1 || vCategory != -1 || site != null) {
            setSite(size - 1, vSite, vCategory);
        }
    }

    /** Appends one event given its packed kind/flags/memory word (see {@link #pack}). */
    public void add(long timeNs, int packed, int threadId, long va, long vb, long vc, long vUsed, long vAux, int vRef, int vRef2) {
        if (size == time.length) {
            grow();
        }
        int i = size++;
        time[i] = timeNs;
        kindFlagsMemory[i] = packed;
        thread[i] = threadId;
        a[i] = va;
        b[i] = vb;
        c[i] = vc;
        used[i] = vUsed;
        aux[i] = vAux;
        ref[i] = vRef;
        ref2[i] = vRef2;
        if (site != null) {
            site[i] = -1;
            category[i] = -1;
        }
    }

    /** Appends event {@code i} of {@code other}. */
    public void addFrom(EventBatch other, int i) {
        add(other.time[i], other.kindFlagsMemory[i], other.thread[i], other.a[i], other.b[i], other.c[i],
                other.used[i], other.aux[i], other.ref[i], other.ref2[i], other.site(i), other.category(i));
    }

    /** Appends events {@code [from, to)} of {@code other}, column by column. */
    public void addRange(EventBatch other, int from, int to) {
        int n = to - from;
        if (from < 0 || n < 0 || to > other.size) {
            throw new IndexOutOfBoundsException("events [" + from + ", " + to + ") of " + other.size);
        }
        reserve(n);
        System.arraycopy(other.time, from, time, size, n);
        System.arraycopy(other.kindFlagsMemory, from, kindFlagsMemory, size, n);
        System.arraycopy(other.thread, from, thread, size, n);
        System.arraycopy(other.a, from, a, size, n);
        System.arraycopy(other.b, from, b, size, n);
        System.arraycopy(other.c, from, c, size, n);
        System.arraycopy(other.used, from, used, size, n);
        System.arraycopy(other.aux, from, aux, size, n);
        System.arraycopy(other.ref, from, ref, size, n);
        System.arraycopy(other.ref2, from, ref2, size, n);
        if (other.site != null) {
            if (site == null) {
                siteColumns();
            }
            System.arraycopy(other.site, from, site, size, n);
            System.arraycopy(other.category, from, category, size, n);
        }
        size += n;
    }

    /**
     * Makes room for {@code more} events beyond the current size. Whoever writes the columns directly
     * after this (the chunk codec) writes no sites: those slots are reset to none here.
     */
    void reserve(int more) {
        while (time.length - size < more) {
            grow();
        }
        if (site != null) {
            Arrays.fill(site, size, size + more, -1);
            Arrays.fill(category, size, size + more, -1);
        }
    }

    /**
     * The batch's backing arrays, for a codec that reads or fills the columns in place (the chunk
     * codec's hot loops). Valid until the batch next grows; index {@code i} is event {@code i}.
     * {@code packed} holds {@link #pack} words.
     */
    public record Columns(long[] time, int[] packed, int[] thread, long[] a, long[] b, long[] c,
                          long[] used, long[] aux, int[] ref, int[] ref2) {}

    /** The backing arrays as they are now (see {@link Columns}); one small object a call. */
    public Columns columns() {
        return new Columns(time, kindFlagsMemory, thread, a, b, c, used, aux, ref, ref2);
    }

    /**
     * Makes room for {@code more} events beyond the current size and returns the backing arrays; a
     * codec writes events {@code [size(), size() + more)} into them, then calls {@link #extendTo}.
     */
    public Columns reserveColumns(int more) {
        if (more < 0) {
            throw new IllegalArgumentException("reserve " + more + " events");
        }
        reserve(more);
        return columns();
    }

    /**
     * Sets the size after a codec wrote events directly into the arrays of {@link #reserveColumns}:
     * {@code newSize} must lie between the current size and the capacity.
     */
    public void extendTo(int newSize) {
        if (newSize < size || newSize > time.length) {
            throw new IndexOutOfBoundsException("extend " + size + " events to " + newSize + " (capacity " + time.length + ")");
        }
        if (site != null) {
            // the codec wrote no site columns: the new events carry none
            Arrays.fill(site, size, newSize, -1);
            Arrays.fill(category, size, newSize, -1);
        }
        size = newSize;
    }

    private void grow() {
        int cap = time.length * 2;
        time = Arrays.copyOf(time, cap);
        kindFlagsMemory = Arrays.copyOf(kindFlagsMemory, cap);
        thread = Arrays.copyOf(thread, cap);
        a = Arrays.copyOf(a, cap);
        b = Arrays.copyOf(b, cap);
        c = Arrays.copyOf(c, cap);
        used = Arrays.copyOf(used, cap);
        aux = Arrays.copyOf(aux, cap);
        ref = Arrays.copyOf(ref, cap);
        ref2 = Arrays.copyOf(ref2, cap);
        if (site != null) {
            int old = site.length;
            site = Arrays.copyOf(site, cap);
            category = Arrays.copyOf(category, cap);
            Arrays.fill(site, old, cap, -1);
            Arrays.fill(category, old, cap, -1);
        }
    }
}
