package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/** Each lane's byte axis, its scale (what is in use and, for pools, reserved, in view) and where its label goes. */
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
    void aPoolsReservedLineIsUnderTheLanesTop() {
        // the lane: in use at most 128 KiB, reserved 1.71 MiB; the axis was 128 KiB and the line ran off its top
        MemoryInfo pool = new MemoryInfo(0, "pool", MemoryKind.POOL, "host", 0, null);
        long reserved = 1_793_064; // 1.71 MiB
        long scale = DrawListBuilder.scale(pool, 128 << 10, reserved, -1);
        assertTrue(scale >= reserved && scale <= reserved + reserved / 8 + 1, "scaled to the reserve with headroom: " + scale);
        MemoryInfo torch = new MemoryInfo(1, "cuda:0", MemoryKind.SEGMENTED, "cuda:0", 0, null);
        assertEquals(DrawListBuilder.scale(pool, 128 << 10, reserved, -1), DrawListBuilder.scale(torch, 128 << 10, reserved, -1),
                "a caching allocator's reserved line the same");
        assertEquals((3L << 20) + (3L << 17), DrawListBuilder.scale(pool, 3L << 20, 1L << 20, -1), "a reserve under in use: in use sets the scale");
        // a reserve 750 times what is in use (a generated snapshot's one 8 TiB segment) would flatten in use to nothing
        long inUse = 10L << 30;
        assertEquals(inUse + inUse / 8, DrawListBuilder.scale(torch, inUse, 8L << 40, -1));
    }

    @Test
    void poolsAreScaledToTheirReservedLineAndLabelsSitAboveTheData() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(5, 60_000, s);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, new TimeRange(s.startNs(), s.endNs() + 1), 1000, 760,
                d.snapshot(), null, null));
        for (DrawList.Lane lane : dl.lanes()) {
            assertTrue(lane.gaugeTop() - lane.top() >= DrawListBuilder.LANE_HEADER, "the label strip is above the gauge");
            assertTrue(lane.yUp(lane.scaleBytes()) >= lane.gaugeTop() - 1e-9, "the data starts below the label strip");
            if (!lane.memory().kind().twoPointer() && lane.memory().capacity() <= 0) {
                // the reserved line drawn over in use: its most in view is under the lane's top, not clipped there
                long reservedShown = 0;
                long usedShown = 0;
                for (int x = 0; x < lane.auxMax().length; x++) {
                    if (lane.usedMin()[x] >= 0) {
                        reservedShown = Math.max(reservedShown, lane.auxMax()[x]);
                        usedShown = Math.max(usedShown, lane.usedMax()[x]);
                    }
                }
                if (reservedShown / DrawListBuilder.RESERVE_CLIP_RATIO > usedShown) {
                    continue;
                }
                long top = Math.max(reservedShown, usedShown);
                assertTrue(lane.scaleBytes() >= top, lane.memory().name() + ": reserved " + reservedShown + " and in use " + usedShown
                        + " fit under the lane's top " + lane.scaleBytes());
                assertTrue(lane.yUp(reservedShown) >= lane.gaugeTop() - 1e-9, lane.memory().name() + ": the reserved line is inside the lane");
                assertTrue(lane.scaleBytes() <= top + top / 8 + 1, "with headroom, not more: " + lane.scaleBytes() + " for " + top);
            }
        }
    }

    /**
     * The peak's label never covers a byte label: a peak near the view's right edge put "peak 10.8 GiB"
     * (right-aligned to its mark) across the "11 GiB" beside it. Views that end at every column past a
     * lane's peak, at many heights, so the label meets the axis's labels at every distance.
     */
    @Test
    void thePeakLabelStaysOffTheByteLabels() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(5, 60_000, s);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        int w = 1000;
        DrawList full = DrawListBuilder.build(new DrawListBuilder.Frame(s, new TimeRange(s.startNs(), s.endNs() + 1), w, 760,
                d.snapshot(), null, null));
        int checked = 0;
        int oldRuleCovered = 0;
        for (DrawList.Lane lane : full.lanes()) {
            if (lane.peakColumn() < 0) {
                continue;
            }
            long peakAt = full.timeAt(lane.peakColumn());
            long perColumn = Math.max(1, (s.endNs() + 1 - s.startNs()) / w);
            for (int past = 0; past < 120; past += 3) { // the peak from the right edge to 120 columns in
                for (int h = 400; h <= 880; h += 40) {
                    TimeRange view = new TimeRange(s.startNs(), Math.min(s.endNs() + 1, peakAt + perColumn * past + 1));
                    DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, view, w, h, d.snapshot(), null, null));
                    DrawList.Lane l = dl.lanes().stream().filter(x -> x.memory().id() == lane.memory().id()).findFirst().orElseThrow();
                    double[] peak = TimelinePainter.peakLabelBox(l, w);
                    if (peak == null) {
                        continue;
                    }
                    checked++;
                    assertTrue(peak[0] >= 0 && peak[2] <= w, "inside the canvas: " + java.util.Arrays.toString(peak));
                    for (double[] b : TimelinePainter.byteLabelBoxes(l, w)) {
                        boolean over = peak[0] < b[2] && peak[2] > b[0] && peak[1] < b[3] && peak[3] > b[1];
                        assertTrue(!over, l.memory().name() + " at " + h + " px, peak " + past + " columns from the edge: the peak's label "
                                + java.util.Arrays.toString(peak) + " covers the byte label " + java.util.Arrays.toString(b));
                        // where the old rule put it: right-aligned to the mark when within 70 px of the edge
                        double x = l.peakColumn() + 0.5;
                        double tw = ("peak " + dev.arenascope.core.format.Bytes.format(l.peakUsed())).length() * TimelinePainter.SMALL_CHAR_PX;
                        boolean left = x + 8 + tw > w - 70;
                        double ox0 = left ? x - 7 - tw : x + 7;
                        if (ox0 < b[2] && ox0 + tw > b[0] && peak[1] < b[3] && peak[3] > b[1]) {
                            oldRuleCovered++;
                        }
                    }
                }
            }
        }
        assertTrue(checked > 100, "peaks in view: " + checked);
        assertTrue(oldRuleCovered > 0, "the frames include the case the old placement got wrong");
    }

    /**
     * Every line a lane draws has its key in the lane's header (the capacity's dashes, the peak's dots, the reserved line
     * and the baseline had none), and no key names a line the lane does not draw.
     */
    @Test
    void everyLineALaneDrawsHasItsKey() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(5, 60_000, s);
        EventStore base = new EventStore("base");
        SyntheticTrace.write(99, 20_000, base);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        for (EventStore baseline : new EventStore[] {null, base}) {
            DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, new TimeRange(s.startNs(), s.endNs() + 1), 1000, 760,
                    d.snapshot(), null, baseline));
            int reserves = 0;
            for (DrawList.Lane lane : dl.lanes()) {
                List<String> keys = TimelinePainter.lineKeyNames(lane);
                long cap = lane.memory().capacity();
                boolean capacityDrawn = cap > 0 && cap <= lane.scaleBytes();
                assertEquals(capacityDrawn, keys.contains("capacity"), lane.memory().name() + ": " + keys);
                // the whole session is in view: its high-water mark is under the lane's top and drawn
                assertTrue(keys.contains("peak in use"), lane.memory().name() + ": " + keys);
                boolean reserved = lane.memory().kind() == MemoryKind.POOL
                        || lane.memory().kind() == MemoryKind.SEGMENTED;
                assertEquals(reserved, keys.contains("reserved"), lane.memory().name() + ": " + keys);
                reserves += reserved ? 1 : 0;
                assertEquals(lane.baselineUsed() != null, keys.contains("baseline"), lane.memory().name() + ": " + keys);
                assertEquals(baseline != null, lane.baselineUsed() != null, "the synthetic memories pair by name");
            }
            assertTrue(reserves > 0, "lanes with a reserved line: " + reserves);
        }
    }
}
