/**
 * Binned device memory pools: {@link dev.arenascope.core.pool.MemoryPool} with pyopencl's bin math
 * ({@link dev.arenascope.core.pool.Bins}), held blocks reused last in first out, a software ceiling,
 * {@link dev.arenascope.core.pool.PoolStatistics} and events into the session stream.
 */
package dev.arenascope.core.pool;
