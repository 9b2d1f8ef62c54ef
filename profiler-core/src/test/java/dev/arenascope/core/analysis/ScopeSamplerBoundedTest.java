package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;

/**
 * A bounded sampler keeps at most twice its bound a scope name, spread over the whole stream, and
 * every execution below it (what report's calibration reads of a trace with millions of scopes).
 */
class ScopeSamplerBoundedTest {
    private static List<ScopeSample> run(ScopeSampler s, int executions) {
        s.onMemory(new MemoryInfo(0, "arena", MemoryKind.ARENA, "cpu", 1 << 20, Map.of()));
        EventBatch b = new EventBatch(16);
        long t = 0;
        for (int i = 0; i < executions; i++) {
            b.clear();
            b.add(new Event(t++, EventKind.SCOPE_ENTER, 0, 0, 0, 0, 1 << 20, -1, 0, 0, 7, i));
            b.add(new Event(t++, EventKind.ALLOC, 0, 0, 0, 0, 64, 64, 64, 0, 0, i));
            b.add(new Event(t++, EventKind.SCOPE_EXIT, 0, 0, 0, 0, 0, 0, 0, 0, 7, i));
            b.add(new Event(t++, EventKind.POINTER_RESTORE, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1));
            s.consume(b, id -> "frame");
        }
        return s.samples();
    }

    @Test
    void keepsAtMostTwiceItsBoundSpreadOverTheStream() {
        List<ScopeSample> kept = run(ScopeSampler.bounded(100), 100_000);
        assertTrue(kept.size() >= 100 && kept.size() < 200, "kept " + kept.size());
        assertEquals(0, kept.getFirst().startNs(), "the first execution");
        assertTrue(kept.getLast().startNs() > 4 * 90_000, "and late ones: " + kept.getLast().startNs());
        for (int i = 1; i < kept.size(); i++) {
            assertTrue(kept.get(i).startNs() > kept.get(i - 1).startNs(), "in the order they closed");
        }
        assertEquals(run(new ScopeSampler(), 150), run(ScopeSampler.bounded(100), 150), "under twice the bound: every one");
    }
}
