package dev.arenascope.app.ui.live;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.live.ConnectionStats.State;

/** The Listen window replaces a row only when what it reads changed (its ticker runs ten times a second). */
class ListenRowsTest {
    private static ConnectionStats stats(State state, long events, double rate, long endedMs) {
        return new ConnectionStats(3, null, state, events, rate, 0, 4_096, 1_000, endedMs, null);
    }

    @Test
    void aRateThatReadsTheSameIsTheSameRow() {
        assertTrue(ListenView.sameRow(stats(State.STREAMING, 500, 1_234.2, 0), stats(State.STREAMING, 500, 1_233.9, 0)), "1,234 both");
        // an ended connection's rate reads 0, whatever its last figure
        assertTrue(ListenView.sameRow(stats(State.CLOSED, 500, 80.0, 2_000), stats(State.CLOSED, 500, 0.0, 2_000)));
    }

    @Test
    void anyFigureTheTableOrItsReadersSeeIsAChange() {
        ConnectionStats a = stats(State.STREAMING, 500, 1_234.0, 0);
        assertFalse(ListenView.sameRow(a, stats(State.STREAMING, 501, 1_234.0, 0)), "events");
        assertFalse(ListenView.sameRow(a, stats(State.STREAMING, 500, 1_300.0, 0)), "the rate shown");
        assertFalse(ListenView.sameRow(a, stats(State.CLOSED, 500, 1_234.0, 0)), "the state");
        assertFalse(ListenView.sameRow(a, stats(State.STREAMING, 500, 1_234.0, 9)), "the end time, read by the window");
        assertFalse(ListenView.sameRow(a, new ConnectionStats(3, null, State.STREAMING, 500, 1_234.0, 0, 4_096, 1_000, 0, "slow")), "the detail");
    }
}
