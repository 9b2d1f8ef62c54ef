package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/**
 * An arena's figures in the painter's columns, the hover card, the lane label and the report, each
 * checked against the raw events: used is forward plus backward, and each end is counted once.
 */
class ArenaFiguresTest {

    private record Raw(long peakUsed, long peakForward, long peakBackward) {}

    private static Raw raw(EventStore s, int memory) {
        long used = 0;
        long fwd = 0;
        long bwd = 0;
        for (long i = 0; i < s.eventCount(); i++) {
            Event e = s.event(i);
            if (e.memory() != memory) {
                continue;
            }
            used = Math.max(used, e.used());
            fwd = Math.max(fwd, e.used() - e.aux());
            bwd = Math.max(bwd, e.aux());
        }
        return new Raw(used, fwd, bwd);
    }

    @Test
    void laneHoverCardAndReportAgreeWithTheRawEvents() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(7, 120_000, s);
        MemoryInfo arena = s.memories().stream().filter(m -> m.kind().twoPointer()).findFirst().orElseThrow();
        Raw raw = raw(s, arena.id());
        assertTrue(raw.peakBackward() > 0 && raw.peakForward() < raw.peakUsed(), "the fixture uses both ends: " + raw);

        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        TimeRange full = new TimeRange(s.startNs(), s.endNs() + 1);
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, full, 1200, 700, d.snapshot(), null, null));
        DrawList.Lane lane = dl.lanes().stream().filter(l -> l.memory().id() == arena.id()).findFirst().orElseThrow();

        // the lane label and its high-water line
        assertEquals(raw.peakUsed(), lane.peakUsed());
        assertEquals(raw.peakForward(), lane.peakForward(), "forward high-water");
        assertEquals(raw.peakBackward(), lane.peakAux(), "backward high-water");
        String label = TimelinePainter.laneLabel(lane);
        assertTrue(label.contains("peak " + Bytes.format(raw.peakUsed()) + " used (forward " + Bytes.format(raw.peakForward())
                + ", backward " + Bytes.format(raw.peakBackward()) + ")"), label);

        // the report gives the same high-waters
        MemoryAnalysis m = TraceAnalysis.of(s).memory(arena.id());
        assertEquals(raw.peakUsed(), m.peakUsedBytes());
        assertEquals(raw.peakForward(), m.highWaterMarks().stream().filter(h -> h.key().equals("forward")).findFirst().orElseThrow().bytes());
        assertEquals(raw.peakBackward(), m.highWaterMarks().stream().filter(h -> h.key().equals("backward")).findFirst().orElseThrow().bytes());

        // the painter: forward from the bottom and backward from the top never draw more than is used
        long fwdMax = 0;
        for (int x = 0; x < dl.width(); x++) {
            if (lane.usedMin()[x] < 0) {
                continue;
            }
            assertTrue(lane.forwardLast()[x] + lane.auxMin()[x] <= lane.usedMax()[x],
                    "column " + x + ": forward " + lane.forwardLast()[x] + " + backward " + lane.auxMin()[x] + " > used " + lane.usedMax()[x]);
            fwdMax = Math.max(fwdMax, lane.forwardMax()[x]);
        }
        assertTrue(fwdMax >= raw.peakForward(), "the forward envelope reaches the forward high-water");
    }

    @Test
    void hoverCardNamesUsedAndEachEndAtOneEvent() {
        EventStore s = new EventStore("synthetic");
        SyntheticTrace.write(3, 20_000, s);
        MemoryInfo arena = s.memories().stream().filter(m -> m.kind().twoPointer()).findFirst().orElseThrow();
        // find an event of the arena holding bytes at both ends and zoom onto it: one event in view
        Event hit = null;
        long before = -1;
        for (long i = 1; i < s.eventCount() && hit == null; i++) {
            Event e = s.event(i);
            if (e.memory() == arena.id() && e.aux() > 0 && e.used() - e.aux() > 0 && e.timeNs() > s.event(i - 1).timeNs() + 10) {
                hit = e;
                before = s.event(i - 1).timeNs();
            }
        }
        assertTrue(hit != null, "an event with both ends in use");
        TimeRange r = new TimeRange(Math.max(before + 1, hit.timeNs() - 5), hit.timeNs() + 5);
        TraceAggregate d = new TraceAggregate(s);
        d.advance(null);
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, r, 100, 600, d.snapshot(), null, null));
        DrawList.Lane lane = dl.lanes().stream().filter(l -> l.memory().id() == arena.id()).findFirst().orElseThrow();
        int col = (int) Math.floor(dl.xOf(hit.timeNs())) + 2; // just after the event: the gauges hold its values
        String tip = TimelineView.describe(dl, col + 0.5, lane.top() + lane.gaugeHeight() / 2);
        long fwd = hit.used() - hit.aux();
        assertTrue(tip.contains("used (forward + backward) " + TimelineView.exact(hit.used())), tip);
        assertTrue(tip.contains("forward " + TimelineView.exact(fwd) + "\n"), tip);
        assertTrue(tip.contains("backward " + TimelineView.exact(hit.aux())), tip);
        String pct = String.format(Locale.ROOT, "(%.1f%% used)", 100.0 * hit.used() / arena.capacity());
        assertTrue(tip.contains(pct), "% used is used over capacity, " + pct + ": " + tip);
    }
}
