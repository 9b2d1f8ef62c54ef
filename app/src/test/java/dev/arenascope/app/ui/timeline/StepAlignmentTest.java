package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.BaselinePairing;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Two ranks compared in the timeline, their clocks different (each counts from its own start, one's steps
 * longer): aligned by step, each step of the baseline rank lands at the x where the same step begins on the
 * shown rank; aligned in time (the old rule, and the switch off) it does not.
 */
class StepAlignmentTest {
    static final long MIB = 1 << 20;

    /**
     * A rank whose pool holds {@code (k + 1) * perStep} bytes through step k: step k begins at
     * {@code t0 + k * stepNs} with a {@code ProfilerStep#k} marker.
     */
    static EventStore rank(String name, long t0, long stepNs, int steps, long perStep) {
        EventStore st = new EventStore(name);
        st.onSession(new SessionInfo(name, "h", 0, List.of(), Map.of()));
        st.onMemory(new MemoryInfo(0, "pool", MemoryKind.POOL, "cuda:0", 0, Map.of()));
        EventBatch b = new EventBatch();
        for (int k = 0; k < steps; k++) {
            st.onString(k + 1, "ProfilerStep#" + k);
            long t = t0 + k * stepNs;
            b.add(t, EventBatch.pack(EventKind.MARKER.code(), 0, -1), 1, 0, 0, 0, 0, 0, k + 1, -1);
            long used = (k + 1) * perStep;
            b.add(new Event(t + 1, EventKind.POOL_REQUEST, 0, 0, 1, 4096L * k, perStep, perStep, used, used, 0, -1));
        }
        b.add(new Event(t0 + steps * stepNs, EventKind.POOL_REQUEST, 0, 0, 1, 1L << 40, 1, 1, steps * perStep, steps * perStep, 0, -1));
        st.onEvents(b);
        return st;
    }

    private static DrawList frame(EventStore shown, EventStore baseline, boolean byStep, int width) {
        TimeRange full = new TimeRange(shown.startNs(), shown.endNs());
        return DrawListBuilder.build(new DrawListBuilder.Frame(shown, full, width, 300, TraceAggregate.Snapshot.EMPTY, null, baseline,
                BaselinePairing.match(shown.memories(), baseline.memories()), false, StripeOptions.NONE, byStep));
    }

    @Test
    void theSameStepLandsAtTheSameXOnTwoRanksWhoseClocksDiffer() {
        int steps = 5;
        // rank0: steps of 100 µs from 1 µs; rank1: its clock 7 ms on, steps of 160 µs, twice the bytes
        EventStore rank0 = rank("rank0", 1_000, 100_000, steps, MIB);
        EventStore rank1 = rank("rank1", 7_000_000, 160_000, steps, 2 * MIB);
        int w = 1000;
        DrawList aligned = frame(rank0, rank1, true, w);
        DrawList.Lane lane = aligned.lanes().getFirst();
        long[] base = lane.baselineUsed();
        for (int k = 0; k < steps; k++) {
            // the columns well inside step k of rank0 (a column either side of its edges left out: a column
            // folds what it spans)
            int x0 = (int) Math.ceil(aligned.xOf(1_000 + k * 100_000L)) + 2;
            int x1 = (int) Math.floor(aligned.xOf(1_000 + (k + 1) * 100_000L)) - 2;
            for (int x = x0; x <= x1; x++) {
                assertEquals((k + 1) * MIB, lane.usedMax()[x], "rank0 in step " + k + " at x " + x);
                assertEquals((k + 1) * 2 * MIB, base[x], "rank1's step " + k + " at rank0's step " + k + ", x " + x);
            }
        }
        // in time (aligned at the starts) rank1's steps are longer: its step 1 is still drawn where rank0 is in step 2
        DrawList inTime = frame(rank0, rank1, false, w);
        long[] timeBase = inTime.lanes().getFirst().baselineUsed();
        int midStep2 = (int) Math.round(inTime.xOf(1_000 + 250_000L));
        assertEquals(3 * MIB, inTime.lanes().getFirst().usedMax()[midStep2]);
        assertEquals(2 * 2 * MIB, timeBase[midStep2], "aligned in time, rank1 is a step behind there");
        assertEquals(3 * 2 * MIB, base[midStep2], "aligned by step, rank1 is in step 2 too");
    }

    @Test
    void withoutCommonStepsTheBaselineIsAlignedInTime() {
        EventStore rank0 = rank("rank0", 1_000, 100_000, 4, MIB);
        EventStore plain = new EventStore("plain");
        plain.onSession(new SessionInfo("plain", "h", 0, List.of(), Map.of()));
        plain.onMemory(new MemoryInfo(0, "pool", MemoryKind.POOL, "cuda:0", 0, Map.of()));
        EventBatch b = new EventBatch();
        for (int i = 0; i < 8; i++) {
            b.add(new Event(50_000L * i, EventKind.POOL_REQUEST, 0, 0, 1, 4096L * i, MIB, MIB, (i + 1) * MIB, (i + 1) * MIB, 0, -1));
        }
        plain.onEvents(b);
        assertNull(StepClocks.align(rank0, plain), "no steps on one side");
        assertTrue(java.util.Arrays.equals(frame(rank0, plain, false, 400).lanes().getFirst().baselineUsed(),
                frame(rank0, plain, true, 400).lanes().getFirst().baselineUsed()), "the switch changes nothing without steps");
    }
}
