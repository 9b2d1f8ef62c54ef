package dev.arenascope.core.pool;

import java.util.ArrayList;
import java.util.List;

/**
 * A pool's bins in a two-level table, {@code rows[exponent][mantissa]} (the two halves of a bin number,
 * {@link Bins}), rows and bins created on first use, so a pool that serves a few sizes holds a few
 * small rows. Guarded by the pool's lock.
 */
final class BinTable {
    /** Rows: one per exponent. */
    static final int ROWS = Bins.MAX_EXPONENT + 1;

    private final int mantissaBits;
    private final PoolBin[][] rows = new PoolBin[ROWS][];

    BinTable(int mantissaBits) {
        this.mantissaBits = mantissaBits;
    }

    /** The bin with this number, created on first use. */
    PoolBin bin(int binNr) {
        int e = binNr >>> mantissaBits;
        PoolBin[] row = rows[e];
        if (row == null) {
            row = rows[e] = new PoolBin[1 << mantissaBits];
        }
        int m = binNr & ((1 << mantissaBits) - 1);
        PoolBin bin = row[m];
        if (bin == null) {
            bin = row[m] = new PoolBin(binNr, Bins.size(binNr, mantissaBits));
        }
        return bin;
    }

    /** The bin with this number, or null when it was never used. */
    PoolBin existing(int binNr) {
        PoolBin[] row = rows[binNr >>> mantissaBits];
        return row == null ? null : row[binNr & ((1 << mantissaBits) - 1)];
    }

    /** Row {@code exponent} (bins by mantissa, null where unused), or null; for a walk largest first. */
    PoolBin[] row(int exponent) {
        return rows[exponent];
    }

    /** The figures of every bin that saw a request or holds a block, by bin number. */
    List<BinStatistics> statistics() {
        List<BinStatistics> out = new ArrayList<>();
        for (PoolBin[] row : rows) {
            if (row == null) {
                continue;
            }
            for (PoolBin b : row) {
                if (b != null && (b.requests > 0 || b.heldCount > 0)) {
                    out.add(new BinStatistics(b.number, b.allocSize, b.requests, b.hits, b.misses, b.heldCount,
                            b.heldCount * b.allocSize, b.roundingWaste));
                }
            }
        }
        return out;
    }
}
