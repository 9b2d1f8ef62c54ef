package dev.arenascope.core.pool;

/**
 * One bin of a {@link MemoryPool} as {@link PoolStatistics} reports it.
 *
 * @param bin                the bin number ({@link Bins#binNumber})
 * @param allocSize          bytes of every block in the bin ({@link Bins#allocSize})
 * @param requests           requests served from this bin ({@code hits + misses}); failed ones are not counted
 * @param hits               requests served by a held block
 * @param misses             requests that allocated a new block from the device
 * @param heldBlocks         blocks held in the bin now
 * @param heldBytes          bytes held in the bin now ({@code heldBlocks * allocSize})
 * @param roundingWasteBytes bytes lost to rounding over all requests: the sum of {@code allocSize}
 *                           minus the bytes asked for (alignment padding included)
 */
public record BinStatistics(int bin, long allocSize, long requests, long hits, long misses, int heldBlocks,
                            long heldBytes, long roundingWasteBytes) {
}
