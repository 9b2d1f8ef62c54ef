package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/** Each lane's byte axis, its scale (in use, not reserved) and where its label goes. */
class ByteAxisTest {
    @Test
    void ticksArePowerOfTwoStepsInBinaryUnits() {
        assertArrayEquals(new long[] {0, 256L << 20, 512L << 20, 768L << 20, 1L << 30}, DrawListBuilder.byteTicks(1L << 30, 4));
        assertEquals("256 MiB", DrawListBuilder.tickLabel(256L << 20));
        assertEquals("1 GiB", DrawListBuilder.tickLabel(1L << 30));
        assertEquals("768 MiB", DrawListBuilder.tickLabel(768L << 20));
        assertEquals("512 B", DrawListBuilder.tickLabel(512));
        assertEquals("4 KiB", DrawListBuilder.tickLabel(4096));
        for (long scale : new long[] {1, 1000, 123_456_789, 14_800_000_000L}) {
            long[] t = DrawListBuilder.byteTicks(scale, 5);
            assertTrue(t.length >= 2 && t.length <= 6, scale + ": " + t.length + " ticks");
            assertTrue(t[t.length - 1] <= scale, "ticks stay inside the lane");
            assertTrue(Long.bitCount(t[1]) == 1, "the step is a power of two: " + t[1]);
        }
    }

    @Test
    void poolsAreScaledToInUseAndLabelsSitAboveTheData() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(5, 60_000, s);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, new TimeRange(s.startNs(), s.endNs() + 1), 1000, 760,
                d.snapshot(), null, null));
        for (DrawList.Lane lane : dl.lanes()) {
            assertTrue(lane.gaugeTop() - lane.top() >= DrawListBuilder.LANE_HEADER, "the label strip is above the gauge");
            assertTrue(lane.yUp(lane.scaleBytes()) >= lane.gaugeTop() - 1e-9, "the data starts below the label strip");
            if (lane.memory().kind() == MemoryKind.POOL && lane.memory().capacity() <= 0) {
                assertTrue(lane.scaleBytes() >= lane.peakUsed(), "in use fits");
                assertTrue(lane.scaleBytes() <= lane.peakUsed() + lane.peakUsed() / 8 + 1,
                        "scaled to in use (" + lane.peakUsed() + "), not reserved (" + lane.peakAux() + "): " + lane.scaleBytes());
            }
        }
    }
}
