package dev.arenascope.core.trace.store;

import java.util.Arrays;

import dev.arenascope.core.trace.EventBatch;

/**
 * One chunk's gauges as an out-of-core {@link GaugeIndex} reads its leaves: per memory, the memory's
 * events of the chunk in order as three plain columns (effective time, {@code used}, {@code aux}). Made
 * from a decoded chunk once and kept in the chunk cache beside it; immutable.
 */
final class ChunkGauges {
    private final long[][] time;
    private final long[][] used;
    private final long[][] aux;

    /**
     * @param events  the chunk's events
     * @param lastEff the effective time of the event before the chunk ({@code Long.MIN_VALUE} for none)
     */
    ChunkGauges(EventBatch events, long lastEff) {
        int n = events.size();
        int slots = 0;
        int[] counts = new int[8];
        for (int i = 0; i < n; i++) {
            int slot = (events.packed(i) >>> 16) - 1;
            if (slot >= 0) {
                if (slot >= counts.length) {
                    counts = Arrays.copyOf(counts, Math.max(slot + 1, counts.length * 2));
                }
                counts[slot]++;
                slots = Math.max(slots, slot + 1);
            }
        }
        time = new long[slots][];
        used = new long[slots][];
        aux = new long[slots][];
        for (int s = 0; s < slots; s++) {
            time[s] = new long[counts[s]];
            used[s] = new long[counts[s]];
            aux[s] = new long[counts[s]];
        }
        int[] at = new int[slots];
        long eff = lastEff;
        for (int i = 0; i < n; i++) {
            eff = Math.max(eff, events.time(i));
            int slot = (events.packed(i) >>> 16) - 1;
            if (slot >= 0) {
                int k = at[slot]++;
                time[slot][k] = eff;
                used[slot][k] = events.used(i);
                aux[slot][k] = events.aux(i);
            }
        }
    }

    private static final long[] NONE = new long[0];

    long[] time(int memory) {
        return memory < time.length ? time[memory] : NONE;
    }

    long[] used(int memory) {
        return memory < used.length ? used[memory] : NONE;
    }

    long[] aux(int memory) {
        return memory < aux.length ? aux[memory] : NONE;
    }

    /** Bytes held. */
    long bytes() {
        long n = 64;
        for (long[] t : time) {
            n += 3 * (16 + 8L * t.length);
        }
        return n;
    }
}
