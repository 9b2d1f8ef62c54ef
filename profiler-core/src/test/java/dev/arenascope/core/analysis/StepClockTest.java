package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.store.EventStore;

/** Step starts read from a trace's markers (both spellings), and one rank's time carried to another's by step. */
class StepClockTest {

    private static void mark(EventStore st, EventBatch b, int id, long t, String text) {
        st.onString(id, text);
        b.add(t, EventBatch.pack(EventKind.MARKER.code(), 0, -1), 1, 0, 0, 0, 0, 0, id, -1);
    }

    @Test
    void stepsFromAnnotationsAndMarkersTheFirstOfEachAndAGrowingTraceReadOnce() {
        EventStore st = new EventStore("r");
        st.onSession(new SessionInfo("r", "h", 0, List.of(), Map.of()));
        EventBatch b = new EventBatch();
        mark(st, b, 1, 100, "ProfilerStep#3 START");
        mark(st, b, 2, 150, "ProfilerStep#3"); // the same step again: its first start counts
        mark(st, b, 3, 200, "warm-up done");
        mark(st, b, 4, 300, "ProfilerStep#4");
        st.onEvents(b);
        StepClock.Scanner scan = new StepClock.Scanner();
        StepClock c = scan.advance(st);
        assertEquals(2, c.size());
        assertEquals(100, c.startOf(3));
        assertEquals(300, c.startOf(4));
        assertEquals(-1, c.startOf(5));
        EventBatch more = new EventBatch();
        mark(st, more, 5, 420, "ProfilerStep#5 START");
        st.onEvents(more);
        assertEquals(420, scan.advance(st).startOf(5), "the new events read");
        assertEquals(3, StepClock.of(st).size());
    }

    @Test
    void aTimeOfOneRankIsTheOtherRanksTimeAtTheSamePointOfTheSameStep() {
        StepClock a = StepClock.of(new long[] {1, 2, 3, 9}, new long[] {1_000, 2_000, 4_000, 9_000});
        StepClock b = StepClock.of(new long[] {0, 1, 2, 3}, new long[] {0, 50_000, 53_000, 54_000});
        StepClock.Alignment al = a.align(b);
        assertEquals(List.of(1L, 2L, 3L), java.util.Arrays.stream(al.steps()).boxed().toList(), "the common steps");
        assertEquals(50_000, al.map(1_000), "a step's start is the other's start of it");
        assertEquals(53_000, al.map(2_000));
        assertEquals(51_500, al.map(1_500), "half way through step 1 on both");
        assertEquals(53_500, al.map(3_000), "step 2 is 2 µs long on one, 1 µs on the other");
        assertEquals(49_900, al.map(900), "before the first common step: shifted by its offset");
        assertEquals(60_000, al.map(10_000), "after the last: shifted by its offset");
        assertEquals(2_000, al.nextBoundaryAfter(1_000));
        assertEquals(Long.MAX_VALUE, al.nextBoundaryAfter(4_000));
        assertNull(a.align(StepClock.of(new long[] {7}, new long[] {1})), "no common step");
    }
}
