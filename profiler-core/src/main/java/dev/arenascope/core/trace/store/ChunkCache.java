package dev.arenascope.core.trace.store;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.arenascope.core.trace.EventBatch;

/**
 * The out-of-core store's one cache of decoded chunks: least recently used first out, bounded by
 * bytes (a chunk's events at about 72 bytes an event, its gauge columns at 24 when a zoomed frame has
 * asked for them). Chunks are decoded outside the cache's lock, so readers of cached chunks never wait
 * on a decode; two readers missing the same chunk at once may both decode it (the second result is
 * kept). Thread-safe.
 */
final class ChunkCache {
    /** Bytes an event of a decoded chunk holds (its columns, sites included). */
    static final int EVENT_BYTES = 72;

    /** What the cache holds for one chunk. */
    static final class Entry {
        final EventBatch events;
        volatile ChunkGauges gauges;
        final long bytes;

        Entry(EventBatch events) {
            this.events = events;
            this.bytes = 64 + (long) events.size() * EVENT_BYTES;
        }

        long bytes() {
            ChunkGauges g = gauges;
            return bytes + (g == null ? 0 : g.bytes());
        }
    }

    private final long maxBytes;
    private final LinkedHashMap<Integer, Entry> map = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;
    private long hits;
    private long misses;

    ChunkCache(long maxBytes) {
        this.maxBytes = Math.max(1, maxBytes);
    }

    /** The cached entry of chunk {@code n}, or null; counts a hit or a miss. */
    synchronized Entry get(int n) {
        Entry e = map.get(n);
        if (e == null) {
            misses++;
        } else {
            hits++;
        }
        return e;
    }

    /** Whether chunk {@code n} is cached, without counting a hit or a miss or touching its age. */
    synchronized boolean contains(int n) {
        return map.containsKey(n); // containsKey does not reorder an access-ordered map
    }

    /** Keeps {@code e} as chunk {@code n}'s, dropping the least recently used past the bound (never {@code e} itself). */
    synchronized Entry put(int n, Entry e) {
        Entry old = map.put(n, e);
        if (old != null) {
            bytes -= old.bytes();
        }
        bytes += e.bytes();
        trim(e);
        return e;
    }

    /** Charges {@code more} bytes added to a cached entry (its gauges). */
    synchronized void grew(Entry e, long more) {
        if (map.containsValue(e)) {
            bytes += more;
            trim(e);
        }
    }

    private void trim(Entry keep) {
        var it = map.entrySet().iterator();
        while (bytes > maxBytes && it.hasNext()) {
            Map.Entry<Integer, Entry> oldest = it.next();
            if (oldest.getValue() == keep) {
                continue;
            }
            bytes -= oldest.getValue().bytes();
            it.remove();
        }
    }

    long maxBytes() {
        return maxBytes;
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized int size() {
        return map.size();
    }

    synchronized long hits() {
        return hits;
    }

    synchronized long misses() {
        return misses;
    }
}
