package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/** Each lane's byte axis, its scale (in use, not reserved) and where its label goes. */
class ByteAxisTest {
    @Test
    void ticksAreRoundValuesInOneUnit() {
        assertArrayEquals(new long[] {0, 256L << 20, 512L << 20, 768L << 20, 1L << 30}, DrawListBuilder.byteTicks(1L << 30, 4));
        assertEquals("0.25 GiB", DrawListBuilder.tickLabel(256L << 20, 1L << 30));
        assertEquals("1 GiB", DrawListBuilder.tickLabel(1L << 30, 1L << 30));
        assertEquals("512 B", DrawListBuilder.tickLabel(512, 1000));
        assertEquals("4 KiB", DrawListBuilder.tickLabel(4096, 8000));
        // the axes: 5.5 GiB and 4.5 GiB, not 5632 MiB and 4608 MiB; 3.5 MiB, not 3584 KiB
        long big = 6L << 30;
        long[] t = DrawListBuilder.byteTicks(big, 12);
        List<String> labels = new ArrayList<>();
        for (long v : t) {
            labels.add(DrawListBuilder.tickLabel(v, big));
        }
        assertTrue(labels.contains("4.5 GiB") && labels.contains("5.5 GiB"), labels.toString());
        long small = 3_700_000;
        labels.clear();
        for (long v : DrawListBuilder.byteTicks(small, 7)) {
            labels.add(DrawListBuilder.tickLabel(v, small));
        }
        assertTrue(labels.contains("3.5 MiB"), labels.toString());
        for (long scale : new long[] {1, 1000, 123_456_789, 14_800_000_000L, 3L << 20, 5_800_000_000L}) {
            long[] ticks = DrawListBuilder.byteTicks(scale, 5);
            assertTrue(ticks.length >= 2 && ticks.length <= 6, scale + ": " + ticks.length + " ticks");
            assertTrue(ticks[ticks.length - 1] <= scale, "ticks stay inside the lane");
            String unit = DrawListBuilder.tickLabel(ticks[1], scale).replaceAll("^[0-9.]+ ", "");
            for (long v : ticks) {
                String l = DrawListBuilder.tickLabel(v, scale);
                assertTrue(l.endsWith(" " + unit), "one unit along the axis: " + l + " beside " + unit);
                assertTrue(l.matches("\\d+(\\.\\d{1,2})? [KMGT]?i?B"), "a round value: " + l);
            }
        }
    }

    @Test
    void aLaneZoomedInTimeIsScaledToWhatItShowsAndMarksThePeakWhereItIs() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(5, 60_000, s);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        TimeRange whole = new TimeRange(s.startNs(), s.endNs() + 1);
        DrawList full = DrawListBuilder.build(new DrawListBuilder.Frame(s, whole, 1000, 760, d.snapshot(), null, null));
        for (DrawList.Lane lane : full.lanes()) {
            if (lane.memory().kind().twoPointer() || lane.peakUsed() <= 0) {
                continue;
            }
            assertTrue(lane.peakColumn() >= 0, lane.memory().name() + ": the whole session shows its peak");
            // a slice early on, before the peak: its lane is scaled to the slice's own most in use
            int pc = lane.peakColumn();
            long peakAt = full.timeAt(pc);
            long from = whole.fromNs();
            long to = from + Math.max(1000, (peakAt - from) / 4);
            DrawList zoomed = DrawListBuilder.build(new DrawListBuilder.Frame(s, new TimeRange(from, to), 1000, 760, d.snapshot(), null, null));
            DrawList.Lane z = zoomed.lanes().stream().filter(l -> l.memory().id() == lane.memory().id()).findFirst().orElseThrow();
            long shown = 0;
            for (int x = 0; x < z.usedMax().length; x++) {
                if (z.usedMin()[x] >= 0) {
                    shown = Math.max(shown, z.usedMax()[x]);
                }
            }
            if (shown > 0 && shown < lane.peakUsed() / 2 && lane.memory().capacity() <= 0) {
                assertTrue(z.scaleBytes() < lane.scaleBytes(), lane.memory().name() + ": rescaled, " + z.scaleBytes() + " < " + lane.scaleBytes());
                assertTrue(z.scaleBytes() >= shown, "what is shown fits");
                assertEquals(-1, z.peakColumn(), "the peak is not in this slice");
            }
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
