package dev.arenascope.app.ui.pools;

import java.util.TreeMap;

import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.pool.Bins;

/**
 * Re-bins a pool's recorded requests with another number of mantissa bits, using the pool's own bin
 * math ({@link Bins}): how many bins the requests would fall in, the bytes lost to rounding, and how
 * many requests would find their bin already used (the most a pool could serve from held blocks).
 *
 * @param mantissaBits the bits tried
 * @param requests     requests re-binned
 * @param bins         distinct bins used
 * @param requestedBytes bytes requested
 * @param roundingWaste  bytes the bins' sizes add on top
 * @param reusable     requests whose bin had been requested before
 * @param perBin       requests per bin number
 */
public record BinWhatIf(int mantissaBits, long requests, int bins, long requestedBytes, long roundingWaste, long reusable,
                        TreeMap<Integer, Long> perBin) {

    /** Re-bins the requests of pool {@code memory}. */
    public static BinWhatIf of(TraceAggregate.PoolRequests r, int memory, int mantissaBits) {
        TreeMap<Integer, Long> per = new TreeMap<>();
        long n = 0;
        long req = 0;
        long waste = 0;
        long reusable = 0;
        for (int i = 0; i < r.size(); i++) {
            if (r.pool()[i] != memory) {
                continue;
            }
            long size = Math.max(0, r.requestedBytes()[i]);
            int bin = Bins.binNumber(size, mantissaBits);
            long alloc = Bins.allocSize(bin, mantissaBits);
            Long prev = per.merge(bin, 1L, Long::sum);
            if (prev > 1) {
                reusable++;
            }
            n++;
            req += size;
            waste += alloc - size;
        }
        return new BinWhatIf(mantissaBits, n, per.size(), req, waste, reusable, per);
    }

    /** Waste as a share of the bytes handed out, the core's one definition ({@link MemoryAnalysis#roundingWaste}). */
    public double wasteRatio() {
        return MemoryAnalysis.roundingWaste(requestedBytes + roundingWaste, requestedBytes);
    }
}
