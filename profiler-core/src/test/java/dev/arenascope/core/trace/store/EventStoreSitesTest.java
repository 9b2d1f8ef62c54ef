package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;

class EventStoreSitesTest {

    @Test
    void keepsSiteAndCategoryPerAllocationAcrossSealedBlocks() {
        SiteTable table = new SiteTable();
        int outer = table.frame("render", "Renderer.java", 12, 0);
        int inner = table.frame("rasterize", "Rasterizer.java", 88, 0);
        int siteA = table.stack(outer, inner);
        int siteB = table.stack(outer);
        EventStore store = new EventStore("t");
        store.onSession(new SessionInfo("s", "", 0, List.of(), Map.of()));
        store.onMemory(new MemoryInfo(0, "heap", MemoryKind.SEGMENTED, "cuda:0", 0, Map.of()));
        store.onString(0, "activation");
        table.announceNew(store);
        int n = EventStore.BLOCK_EVENTS * 2 + 100;
        List<Event> sent = new ArrayList<>();
        EventBatch b = new EventBatch();
        for (int i = 0; i < n; i++) {
            Event e = new Event(i, EventKind.ALLOC, 0, 0, 0, i * 16L, 16, 16, 16L * (i + 1), 0, -1, -1);
            if (i % 7 == 0) {
                e = e.withSite(siteA, 0);
            } else if (i % 11 == 0) {
                e = e.withSite(siteB, -1);
            }
            sent.add(e);
            b.add(e);
            if (b.size() == 1000) {
                store.onEvents(b);
                b.clear();
            }
        }
        store.onEvents(b);
        assertTrue(store.hasSites());
        for (int i : new int[] {0, 1, 7, 11, 16384, 16387, 16390, n - 1, n - 3}) {
            assertEquals(sent.get(i), store.event(i), "event " + i);
        }
        EventBatch out = new EventBatch();
        store.copyEvents(16380, 16400, out);
        for (int k = 0; k < out.size(); k++) {
            assertEquals(sent.get(16380 + k), out.get(k));
        }
        assertEquals(List.of("rasterize", "render"), store.stack(siteA).stream().map(StackFrame::function).toList());

        CollectingSink replay = new CollectingSink();
        store.replayTo(replay);
        assertEquals(sent, replay.events);
    }

    @Test
    void storesWithoutSitesCostNothingMore() {
        EventStore store = new EventStore("t");
        EventBatch b = new EventBatch();
        b.add(new Event(1, EventKind.ALLOC, 0, 0, 0, 0, 8, 8, 8, 0, -1, -1));
        store.onEvents(b);
        assertFalse(store.hasSites());
        assertEquals(-1, store.event(0).site());
        assertEquals(0, store.stackNodeCount());
    }
}
