package dev.arenascope.core.plan;

/**
 * Which arena of a {@link MemoryPlan} a tensor lives in.
 *
 * <ul>
 *   <li>{@link #SCRATCH}: activations and temporaries, live only between their first and last step;
 *       scratch arenas are purely transient and may be shared between models.</li>
 *   <li>{@link #PERSISTENT}: state kept across runs (resource variables, caches).</li>
 *   <li>{@link #CONSTANT}: weights, read from a cold blob in place or from a staged (hydrated) copy.</li>
 * </ul>
 */
public enum TensorRole {
    SCRATCH,
    PERSISTENT,
    CONSTANT
}
