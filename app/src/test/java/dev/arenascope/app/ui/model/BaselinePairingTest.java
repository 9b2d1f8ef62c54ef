package dev.arenascope.app.ui.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.DrawListBuilder;
import dev.arenascope.core.trace.ForwardingSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/** Compare pairs memories whose names differ, by name's last segment and by kind, and says when nothing matched. */
class BaselinePairingTest {
    private static MemoryInfo m(int id, String name, MemoryKind k) {
        return new MemoryInfo(id, name, k, "virtual", 0, Map.of());
    }

    @Test
    void pairsByNameThenLastSegmentThenKind() {
        List<MemoryInfo> now = List.of(m(0, "resnet50-b2/frame", MemoryKind.ARENA), m(1, "resnet50-b2/pool", MemoryKind.POOL),
                m(2, "scratch", MemoryKind.PLAN_SCRATCH));
        List<MemoryInfo> was = List.of(m(0, "resnet50-b4/pool", MemoryKind.POOL), m(1, "resnet50-b4/frame", MemoryKind.ARENA),
                m(2, "activations", MemoryKind.PLAN_SCRATCH));
        BaselinePairing p = BaselinePairing.match(now, was);
        assertEquals(1, p.baselineOf(0), "frame with frame");
        assertEquals(0, p.baselineOf(1), "pool with pool");
        assertEquals(2, p.baselineOf(2), "the plan scratch arenas by kind");
        assertTrue(p.describe(now, was).contains("resnet50-b2/frame ↔ resnet50-b4/frame"), p.describe(now, was));
        BaselinePairing none = BaselinePairing.match(List.of(m(0, "a", MemoryKind.ARENA)), List.of(m(0, "b", MemoryKind.POOL)));
        assertTrue(none.isEmpty());
        assertTrue(none.describe(List.of(), List.of()).startsWith("no memory of the baseline matches"), none.describe(List.of(), List.of()));
        BaselinePairing sameNameOtherKind = BaselinePairing.match(List.of(m(0, "cuda:0", MemoryKind.SEGMENTED)),
                List.of(m(0, "cuda:0", MemoryKind.ARENA), m(1, "scratch:device", MemoryKind.PLAN_SCRATCH)));
        assertTrue(sameNameOtherKind.isEmpty(), "a name shared across kinds pairs nothing: " + sameNameOtherKind);
        assertEquals(List.of(was.get(0)), BaselinePairing.candidates(now.get(1), was), "a pool is offered only the baseline's pools");
        BaselinePairing user = p.with(2, -1);
        assertEquals(-1, user.baselineOf(2), "the user may unpair");
    }

    @Test
    void aBaselineWithOtherNamesIsDrawn() {
        EventStore s = new EventStore("now");
        SyntheticTrace.write(3, 30_000, s);
        EventStore base = new EventStore("base");
        SyntheticTrace.write(4, 20_000, new ForwardingSink(base) {
            @Override
            public void onMemory(MemoryInfo memory) {
                to.onMemory(new MemoryInfo(memory.id(), "b4/" + memory.name(), memory.kind(), memory.device(), memory.capacity(),
                        memory.attributes()));
            }
        });
        DrawList dl = DrawListBuilder.build(new DrawListBuilder.Frame(s, new TimeRange(s.startNs(), s.endNs() + 1), 400, 400,
                TraceAggregate.Snapshot.EMPTY, null, base));
        for (DrawList.Lane l : dl.lanes()) {
            assertTrue(l.baselineUsed() != null, "a baseline line in " + l.memory().name());
        }
    }
}
