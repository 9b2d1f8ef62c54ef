package dev.arenascope.core.trace.store;

import java.io.IOException;
import java.nio.file.Path;
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
 * by several readers at once (the cache has its own lock). A spilling store moves blocks to a
 * {@link SpillFile} ({@link #spill}); they are then read back from it when decoded.
 */
final class SealedBlocks {
    private static final int CACHE_SLOTS = 8;

    /**
     * A sealed block: events {@code [firstIndex, firstIndex+count)} packed by the chunk codec, held in
     * memory ({@code packed}) or, once spilled, at {@code spillAt} in the store's {@link SpillFile}
     * ({@code packed} null). {@code sites}: whether the packed events carry their sites (a spilled
     * block's do; an in-memory block's sites are in the store's side columns).
     */
    record Block(long firstIndex, int count, long firstEff, long lastEff, byte[] packed, int packedLength, long spillAt, int rawBytes,
            int layout, boolean sites) {
        /** A block held in memory, its sites beside it. */
        Block(long firstIndex, int count, long firstEff, long lastEff, byte[] packed, int rawBytes, int layout) {
            this(firstIndex, count, firstEff, lastEff, packed, packed.length, -1, rawBytes, layout, false);
        }

        boolean spilled() {
            return packed == null;
        }
    }

    private final List<Block> blocks = new ArrayList<>();
    private long heldBytes; // the in-memory blocks' packed bytes, with a charge for every block's record
    private SpillFile spill; // set when the store spills
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
        heldBytes += charge(b);
    }

    private static long charge(Block b) {
        return 64 + (b.spilled() ? 0 : b.packed().length);
    }

    /** From now on blocks may be spilled to {@code file}. */
    void spillTo(SpillFile file) {
        spill = file;
    }

    /**
     * Moves block {@code bi} to the spill file as {@code packed} (its events in {@code layout}, with
     * their sites when {@code sites}), freeing its bytes in memory.
     *
     * @throws IOException when the spill file cannot take it (the block then stays in memory)
     */
    void spill(int bi, byte[] packed, int rawBytes, int layout, boolean sites) throws IOException {
        Block b = blocks.get(bi);
        long at = spill.append(packed);
        Block moved = new Block(b.firstIndex(), b.count(), b.firstEff(), b.lastEff(), null, packed.length, at, rawBytes, layout, sites);
        heldBytes += charge(moved) - charge(b);
        blocks.set(bi, moved);
        synchronized (cacheKey) { // a decoded copy kept from before lacks the sites the spilled block carries
            for (int k = 0; k < CACHE_SLOTS; k++) {
                if (cacheKey[k] == bi) {
                    cacheKey[k] = -1;
                    cacheVal[k] = null;
                }
            }
        }
    }

    /** Bytes in the spill file (0 when the store has not spilled). */
    long spilledBytes() {
        return spill == null ? 0 : spill.size();
    }

    /**
     * Block {@code bi}'s events decoded afresh (not through the cache), without the sites an
     * in-memory block leaves to the side columns; for one pass over every block.
     */
    EventBatch decodeOnce(int bi, ChunkCodec codec) {
        return decode(bi, blocks.get(bi), codec);
    }

    /** Where the spill file was made, or null. */
    Path spillPath() {
        return spill == null ? null : spill.path();
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
            if (readCodec == null) {
                readCodec = new ChunkCodec();
            }
            EventBatch d = decode(bi, blocks.get(bi), readCodec);
            int slot = cacheNext;
            cacheNext = (cacheNext + 1) % CACHE_SLOTS;
            cacheKey[slot] = bi;
            cacheVal[slot] = d;
            return d;
        }
    }

    private EventBatch decode(int bi, Block blk, ChunkCodec codec) {
        byte[] packed = blk.spilled() ? spill.read(blk.spillAt(), blk.packedLength()) : blk.packed();
        EventBatch d = new EventBatch(blk.count());
        try {
            codec.unpackEvents(packed, blk.rawBytes(), blk.layout(), d, name + " (block " + bi + ")");
        } catch (TraceFormatException e) {
            throw new IllegalStateException("store block " + bi + " is corrupt: " + e.getMessage(), e);
        }
        if (!blk.sites()) {
            d.dropSites(); // a chunk adopted from a file may carry them; the side columns are what the store kept
        }
        return d;
    }

    /** Bytes the blocks hold in memory (packed bytes of those not spilled), with a small charge for each block's record. */
    long bytes() {
        return heldBytes;
    }
}
