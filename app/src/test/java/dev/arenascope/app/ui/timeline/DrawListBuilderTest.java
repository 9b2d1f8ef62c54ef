package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

class DrawListBuilderTest {

    static EventStore synthetic(long events) {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(3, events, s);
        return s;
    }

    @Test
    void oneColumnPerPixelAndLanesPerMemory() {
        EventStore s = synthetic(200_000);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        TraceAggregate.Snapshot snap = d.snapshot();
        TimeRange full = new TimeRange(s.startNs(), s.endNs());
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, full, 800, 600, snap, null, null));
        assertEquals(s.memories().size(), dl.lanes().size());
        for (DrawList.Lane l : dl.lanes()) {
            assertEquals(800, l.usedMax().length);
            long max = 0;
            for (long v : l.usedMax()) {
                max = Math.max(max, v);
            }
            assertEquals(s.peakUsed(l.memory().id()), max, "the columns' maximum is the memory's high-water: " + l.memory().name());
        }
        DrawList.Lane arena = dl.lanes().get(0);
        assertTrue(arena.bandRows() > 0, "the arena has scope rows");
        assertFalse(arena.bands().isEmpty(), "scope bands are drawn");
        for (DrawList.Band b : arena.bands()) {
            assertTrue(b.x1() - b.x0() >= DrawListBuilder.FOLD_PX - 1e-6 || b.x0() < 0 || b.x1() > 800,
                    "bands narrower than the fold width are folded away: " + b);
        }
    }

    @Test
    void highlightsFollowTheSelectedScope() {
        EventStore s = synthetic(100_000);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        TraceAggregate.Snapshot snap = d.snapshot();
        List<ScopeAnalysis> scopes = snap.scopes();
        assertFalse(scopes.isEmpty());
        ScopeAnalysis sc = scopes.get(0);
        TimeRange full = new TimeRange(s.startNs(), s.endNs());
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, full, 800, 600, snap, sc, null));
        DrawList.Lane lane = dl.lanes().stream().filter(l -> l.memory().id() == sc.memory()).findFirst().orElseThrow();
        assertTrue(lane.highlights().length >= 2, "executions of " + sc.path() + " are highlighted");
        String tip = TimelineView.describe(dl, 400, lane.top() + lane.gaugeHeight() / 2);
        assertTrue(tip.contains(lane.memory().name()), tip);
        assertTrue(tip.matches("(?s).*(KiB|MiB|GiB| B).*"), "figures carry units: " + tip);
    }

    @Test
    void theLanesFillATallWindowWithNoBlankBandUnderThem() {
        EventStore s = synthetic(20_000);
        TimeRange full = new TimeRange(s.startNs(), s.endNs() + 1);
        for (int h : new int[] {500, 1080, 1400}) {
            DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, full, 800, h, TraceAggregate.Snapshot.EMPTY, null, null));
            DrawList.Lane last = dl.lanes().getLast();
            double bottom = last.top() + last.height();
            assertTrue(bottom >= h - 8, h + " px: the last lane ends at " + bottom + ", leaving a blank band");
            assertTrue(dl.height() <= h + 1, h + " px: no scroll bar for lanes that fit: " + dl.height());
        }
    }

    @Test
    void aBaselineIsDrawnInTheLaneOfTheSameName() {
        EventStore s = synthetic(50_000);
        EventStore base = new EventStore("base");
        SyntheticTrace.write(99, 20_000, base);
        TimeRange full = new TimeRange(s.startNs(), s.endNs() + 1);
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, full, 400, 400, TraceAggregate.Snapshot.EMPTY, null, base));
        for (DrawList.Lane l : dl.lanes()) {
            assertTrue(l.baselineUsed() != null && l.baselineUsed().length == 400, "baseline for " + l.memory().name());
            assertTrue(l.scaleBytes() >= base.peakUsed(l.memory().id()), "the lane's scale fits the baseline");
        }
    }

    @Test
    void widthChangesTheColumnsNotTheFigures() {
        EventStore s = synthetic(50_000);
        TimeRange full = new TimeRange(s.startNs(), s.endNs() + 1);
        DrawList narrow = DrawListBuilder.build(new DrawListBuilder.Frame(s, full, 123, 300, TraceAggregate.Snapshot.EMPTY, null, null));
        DrawList wide = DrawListBuilder.build(new DrawListBuilder.Frame(s, full, 2000, 300, TraceAggregate.Snapshot.EMPTY, null, null));
        for (int i = 0; i < narrow.lanes().size(); i++) {
            long a = Arrays.stream(narrow.lanes().get(i).usedMax()).max().orElse(0);
            long b = Arrays.stream(wide.lanes().get(i).usedMax()).max().orElse(0);
            assertEquals(a, b, "the peak survives folding at any width");
        }
    }
}
