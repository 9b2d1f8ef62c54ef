package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.store.TraceStore;

/** Equality of two stores as a user sees them: metadata, every event, gauges and scopes. */
final class TraceAssertions {
    private TraceAssertions() {}

    static void assertSameTrace(TraceStore want, TraceStore got) {
        assertEquals(want.session(), got.session(), "session");
        assertEquals(want.memories(), got.memories(), "memories");
        assertEquals(want.strings(), got.strings(), "strings");
        assertEquals(want.threads(), got.threads(), "threads");
        assertEquals(want.lostEvents(), got.lostEvents(), "lost events");
        assertEquals(want.frameCount(), got.frameCount(), "frames");
        for (int i = 0; i < want.frameCount(); i++) {
            assertEquals(want.frame(i), got.frame(i), "frame " + i);
        }
        assertEquals(want.stackNodeCount(), got.stackNodeCount(), "stack nodes");
        for (int i = 0; i < want.stackNodeCount(); i++) {
            assertEquals(want.stackNode(i), got.stackNode(i), "stack node " + i);
        }
        assertEquals(want.eventCount(), got.eventCount(), "event count");
        for (long i = 0; i < want.eventCount(); i++) {
            assertEquals(want.event(i), got.event(i), "event " + i);
        }
        if (want.eventCount() > 0) {
            for (MemoryInfo m : want.memories()) {
                GaugeSeries a = want.gauges(m.id(), want.startNs(), want.endNs() + 1, 97);
                GaugeSeries b = got.gauges(m.id(), got.startNs(), got.endNs() + 1, 97);
                assertArrayEquals(a.usedMax(), b.usedMax());
                assertArrayEquals(a.auxMin(), b.auxMin());
                assertArrayEquals(a.count(), b.count());
                assertEquals(want.peakUsed(m.id()), got.peakUsed(m.id()));
                assertEquals(want.scopes(m.id(), want.startNs(), want.endNs() + 1, 0), got.scopes(m.id(), got.startNs(), got.endNs() + 1, 0));
            }
        }
    }
}
