package dev.arenascope.core.trace.codec;

import java.util.Arrays;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;

/**
 * What the event columns are predicted from, so that most stored values are small: per kind, how an
 * event moves its memory's {@code used} and where the memory's next {@code a} lies; per memory (a
 * "slot", the memory id + 1, 0 for none), the last {@code a}, {@code used} and {@code aux} seen in
 * the chunk. The encoder stores each value minus its prediction, the decoder adds it back; both
 * restart from zero at every chunk, so chunks stay independent.
 *
 * <p>The tables are static; the per-memory state is one instance per encoder or decoder (not
 * thread-safe).
 */
final class Predictor {
    /** Slots run from 0 (no memory) to {@link EventBatch#MAX_MEMORY_ID} + 1. */
    static final int MAX_MEMORY_SLOT = EventBatch.MAX_MEMORY_ID + 1;
    /** Per kind code: how {@code used} is predicted to move by {@code b} (+1 grows, -1 shrinks, 0 stays). */
    static final int[] USED_SIGN = new int[256];
    /**
     * The predictions as masks, so the column loops take no data-dependent branch (kinds come mixed):
     * by kind code and the backward flag (the low 9 bits of the packed word), -1 where the next
     * {@code a} is predicted at {@code a + b} (a forward bump allocation's end); by kind code, -1 where
     * {@code c} is stored against {@code b} (requested vs allocated bytes).
     */
    static final long[] A_NEXT = new long[512];
    static final long[] C_MASK = new long[256];
    /** Kind codes a reader accepts (the known {@link EventKind} codes). */
    static final boolean[] KNOWN_KIND = new boolean[256];

    static {
        for (EventKind k : new EventKind[] {EventKind.ALLOC, EventKind.POOL_REQUEST, EventKind.TENSOR_LIVE}) {
            USED_SIGN[k.code()] = 1;
        }
        for (EventKind k : new EventKind[] {EventKind.FREE, EventKind.POINTER_RESTORE, EventKind.RESET,
                EventKind.POOL_HOLD, EventKind.TENSOR_DEAD}) {
            USED_SIGN[k.code()] = -1;
        }
        boolean[] aPlusB = new boolean[256];
        aPlusB[EventKind.ALLOC.code()] = true;
        aPlusB[EventKind.POOL_REQUEST.code()] = true;
        for (int kf = 0; kf < 512; kf++) {
            boolean backward = (kf >>> 8 & Event.FLAG_BACKWARD) != 0;
            A_NEXT[kf] = aPlusB[kf & 0xff] && !backward ? -1L : 0;
        }
        C_MASK[EventKind.ALLOC.code()] = -1L;
        C_MASK[EventKind.POOL_REQUEST.code()] = -1L;
        for (EventKind k : EventKind.values()) {
            KNOWN_KIND[k.code()] = true;
        }
    }

    /** Per slot: the predicted next {@code a}, the last {@code used}, the last {@code aux}. */
    long[] prevA = new long[64];
    long[] prevUsed = new long[64];
    long[] prevAux = new long[64];
    private int slotsInUse;

    /** Forgets the chunk's state (only the slots it used are cleared). */
    void reset() {
        int n = Math.min(slotsInUse, prevA.length);
        Arrays.fill(prevA, 0, n, 0);
        Arrays.fill(prevUsed, 0, n, 0);
        Arrays.fill(prevAux, 0, n, 0);
        slotsInUse = 0;
    }

    /** Makes slots {@code [0, s]} usable; the arrays may be replaced, so re-read them after. */
    void slot(int s) {
        if (s >= prevA.length) {
            int cap = Math.min(MAX_MEMORY_SLOT + 1, Math.max(s + 1, prevA.length * 2));
            prevA = Arrays.copyOf(prevA, cap);
            prevUsed = Arrays.copyOf(prevUsed, cap);
            prevAux = Arrays.copyOf(prevAux, cap);
        }
        if (s >= slotsInUse) {
            slotsInUse = s + 1;
        }
    }
}
