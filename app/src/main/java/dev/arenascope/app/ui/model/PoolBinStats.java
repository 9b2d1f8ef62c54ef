package dev.arenascope.app.ui.model;

/** One pool bin's counts: a row of the pool histograms. Mutable while a digest builds it. */
public final class PoolBinStats {
    public final int memory;
    public final int bin;
    /** The bin's allocation size (the largest request it serves), from the requests seen. */
    public long binBytes;
    public long requests;
    public long hits;
    public long requestedBytes;
    /** Bytes handed out beyond what was requested (rounding up to the bin's size). */
    public long roundingWaste;
    /** Blocks and bytes held in the bin now (returned, kept for reuse). */
    public long heldBlocks;
    public long heldBytes;
    public long maxHeldBytes;

    public PoolBinStats(int memory, int bin) {
        this.memory = memory;
        this.bin = bin;
    }

    public long misses() {
        return requests - hits;
    }

    public PoolBinStats copy() {
        PoolBinStats c = new PoolBinStats(memory, bin);
        c.binBytes = binBytes;
        c.requests = requests;
        c.hits = hits;
        c.requestedBytes = requestedBytes;
        c.roundingWaste = roundingWaste;
        c.heldBlocks = heldBlocks;
        c.heldBytes = heldBytes;
        c.maxHeldBytes = maxHeldBytes;
        return c;
    }
}
