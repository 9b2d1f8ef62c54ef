package dev.arenascope.core.trace.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.codec.ChunkCodec;

/**
 * The store's sealed blocks: each a run of events packed by the {@link ChunkCodec} (a file chunk's
 * payload, adopted as it is, or the store's own open block once full), found by event index or by
 * effective time through binary search, and decoded on demand into a small cache of the last
 * {@value #CACHE_SLOTS} blocks read (round robin), so a view scrolling through one region decodes each
 * block once. Appending is the store's one writer, under its write lock; {@link #decoded} may be called
 * by several readers at once (the cache has its own lock).
 */
final class SealedBlocks {
    private static final int CACHE_SLOTS = 8;

    /** A sealed block: events {@code [firstIndex, firstIndex+count)} packed by the chunk codec. */
    record Block(long firstIndex, int count, long firstEff, long lastEff, byte[] packed, int rawBytes, int layout) {}

    private final List<Block> blocks = new ArrayList<>();
    private ChunkCodec readCodec; // made at the first block decoded (under the cache's lock)
    private final String name;
    private final long[] cacheKey = new long[CACHE_SLOTS];
    private final EventBatch[] cacheVal = new EventBatch[CACHE_SLOTS];
    private int cacheNext;

    /** @param name the store's name, for messages */
    SealedBlocks(String name) {
        this.name = name;
        Arrays.fill(cacheKey, -1);
    }

    void add(Block b) {
        blocks.add(b);
    }

    int size() {
        return blocks.size();
    }

    boolean isEmpty() {
        return blocks.isEmpty();
    }

    Block get(int i) {
        return blocks.get(i);
    }

    Block last() {
        return blocks.getLast();
    }

    /** The block holding event {@code index} (which must precede the open block). */
    int blockOf(long index) {
        int lo = 0;
        int hi = blocks.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (blocks.get(mid).firstIndex() <= index) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** The first block whose last effective time reaches {@code timeNs}; {@link #size()} when none does. */
    int firstEndingAtOrAfter(long timeNs) {
        int lo = 0;
        int hi = blocks.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (blocks.get(mid).lastEff() >= timeNs) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * Block {@code bi}'s events, decoded (without sites: the store's side columns hold those).
     *
     * @throws IllegalStateException when the block does not decode (a store never holds such a block:
     *                               chunks are checked when read)
     */
    EventBatch decoded(int bi) {
        synchronized (cacheKey) {
            for (int k = 0; k < CACHE_SLOTS; k++) {
                if (cacheKey[k] == bi) {
                    return cacheVal[k];
                }
            }
            Block blk = blocks.get(bi);
            EventBatch d = new EventBatch(blk.count());
            try {
                if (readCodec == null) {
                    readCodec = new ChunkCodec();
                }
                readCodec.unpackEvents(blk.packed(), blk.rawBytes(), blk.layout(), d, name + " (block " + bi + ")");
                d.dropSites(); // a chunk adopted from a file may carry them; the side columns are what the store kept
            } catch (TraceFormatException e) {
                throw new IllegalStateException("store block " + bi + " is corrupt: " + e.getMessage(), e);
            }
            int slot = cacheNext;
            cacheNext = (cacheNext + 1) % CACHE_SLOTS;
            cacheKey[slot] = bi;
            cacheVal[slot] = d;
            return d;
        }
    }

    /** Bytes the packed blocks hold, with a small charge for each block's record. */
    long bytes() {
        long n = 0;
        for (Block b : blocks) {
            n += 64 + b.packed().length;
        }
        return n;
    }
}
