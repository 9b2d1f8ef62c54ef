package dev.arenascope.core.trace.store;

/**
 * Where an out-of-core {@link GaugeIndex} finds the events of a leaf: the gauges of the trace chunk
 * the leaf lies in, read on demand (through the store's chunk cache). Thread-safe.
 */
interface LeafSource {
    /**
     * Chunk {@code chunk}'s gauges.
     *
     * @throws IllegalStateException when the chunk can no longer be read as it was indexed
     */
    ChunkGauges gauges(int chunk);
}
