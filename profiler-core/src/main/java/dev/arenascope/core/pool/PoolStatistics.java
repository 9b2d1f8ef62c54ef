package dev.arenascope.core.pool;

import java.util.List;

/**
 * The counters of a {@link MemoryPool}, named as pyopencl-style pools name them:
 * <ul>
 *   <li><b>allocations</b>: blocks allocated from the device (requests that missed), with their time;</li>
 *   <li><b>frees</b>: blocks given back to the device, with their time;</li>
 *   <li><b>reuses</b>: requests served by a held block (hits);</li>
 *   <li><b>returns</b>: buffers closed by their owners (held or, when not holding, freed).</li>
 * </ul>
 * Times are nanoseconds of the device calls alone. A pool keeps one instance under its lock and
 * hands out copies through {@link MemoryPool#statistics()}, which also carry the per-bin figures; a
 * copy never changes. An instance on its own is not thread-safe.
 */
public final class PoolStatistics {
    private long allocations;
    private long allocNanos;
    private long bytesAllocated;
    private long frees;
    private long freeNanos;
    private long bytesFreed;
    private long reuses;
    private long bytesReused;
    private long returns;
    private long bytesReturned;
    private long failures;
    private long bytesFailed;
    private List<BinStatistics> bins = List.of();

    /** A device allocation of {@code size} bytes that took {@code nanos}. */
    public void pushAlloc(long size, long nanos) {
        allocations++;
        bytesAllocated += size;
        allocNanos += nanos;
    }

    /** A block of {@code size} bytes given back to the device in {@code nanos}. */
    public void pushFree(long size, long nanos) {
        frees++;
        bytesFreed += size;
        freeNanos += nanos;
    }

    /** A request served by a held block of {@code size} bytes. */
    public void pushReuse(long size) {
        reuses++;
        bytesReused += size;
    }

    /** A buffer of {@code size} bytes closed by its owner. */
    public void pushReturn(long size) {
        returns++;
        bytesReturned += size;
    }

    /** A request of {@code size} bytes that failed for lack of memory. */
    public void pushFailure(long size) {
        failures++;
        bytesFailed += size;
    }

    /** A frozen copy carrying {@code binFigures}. */
    PoolStatistics copy(List<BinStatistics> binFigures) {
        PoolStatistics s = new PoolStatistics();
        s.allocations = allocations;
        s.allocNanos = allocNanos;
        s.bytesAllocated = bytesAllocated;
        s.frees = frees;
        s.freeNanos = freeNanos;
        s.bytesFreed = bytesFreed;
        s.reuses = reuses;
        s.bytesReused = bytesReused;
        s.returns = returns;
        s.bytesReturned = bytesReturned;
        s.failures = failures;
        s.bytesFailed = bytesFailed;
        s.bins = List.copyOf(binFigures);
        return s;
    }

    /** Blocks allocated from the device. */
    public long allocations() {
        return allocations;
    }

    /** Blocks given back to the device. */
    public long frees() {
        return frees;
    }

    /** Requests served by held blocks. */
    public long reuses() {
        return reuses;
    }

    /** Buffers closed by their owners. */
    public long returns() {
        return returns;
    }

    /** Requests that failed for lack of memory. */
    public long failures() {
        return failures;
    }

    /** Bytes asked for by the requests that failed. */
    public long bytesFailed() {
        return bytesFailed;
    }

    /** Requests served: {@code allocations + reuses}. */
    public long requests() {
        return allocations + reuses;
    }

    /** Bytes allocated from the device, over all allocations. */
    public long bytesAllocated() {
        return bytesAllocated;
    }

    /** Bytes given back to the device, over all frees. */
    public long bytesFreed() {
        return bytesFreed;
    }

    /** Bytes served by held blocks, over all reuses. */
    public long bytesReused() {
        return bytesReused;
    }

    /** Bytes of the buffers returned by their owners. */
    public long bytesReturned() {
        return bytesReturned;
    }

    /** Mean nanoseconds of one device allocation; 0 when there was none. */
    public double meanAllocNanos() {
        return allocations == 0 ? 0 : allocNanos / (double) allocations;
    }

    /** Mean nanoseconds of one device free; 0 when there was none. */
    public double meanFreeNanos() {
        return frees == 0 ? 0 : freeNanos / (double) frees;
    }

    /**
     * Requests served per device allocation: {@code (allocations + reuses) / allocations}. 1 means no
     * block was ever reused, 10 that each block served ten requests on average; 0 before any request.
     */
    public double reuseFactor() {
        return allocations == 0 ? 0 : (allocations + reuses) / (double) allocations;
    }

    /** The bins that saw a request or hold a block, by bin number (empty on the pool's own instance). */
    public List<BinStatistics> bins() {
        return bins;
    }

    /** The figures of bin {@code bin}, or null when it saw nothing. */
    public BinStatistics bin(int bin) {
        for (BinStatistics b : bins) {
            if (b.bin() == bin) {
                return b;
            }
        }
        return null;
    }

    /** Bytes lost to rounding over all requests of all bins. */
    public long roundingWasteBytes() {
        long sum = 0;
        for (BinStatistics b : bins) {
            sum += b.roundingWasteBytes();
        }
        return sum;
    }
}
