package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;

class TraceAnalysisTest {
    static final int FRAMES = 10;
    static final int TILES = 8;
    static final int LIGHTS = 4;

    @Test
    void arenaPeaksHighWaterMarksAndFragmentation() {
        ListTraceView view = TestTraces.render(FRAMES, TILES, LIGHTS);
        TraceAnalysis a = TraceAnalysis.of(view);
        MemoryAnalysis m = a.memory("frame-arena");
        assertNotNull(m);
        assertEquals(MemoryKind.ARENA, m.kind());
        assertEquals(16L << 20, m.capacityBytes());
        long maxFrame = TestTraces.frameBytes(TILES, 3);
        long shadows = TestTraces.shadowBytes(LIGHTS);
        // the forward end peaks in the shadow pass of a frame with the most tiles
        assertEquals(maxFrame + shadows, m.highWater("forward").bytes());
        assertEquals(FRAMES * TestTraces.PERSISTENT_PER_FRAME, m.highWater("backward").bytes());
        // in use peaks in the shadow pass of the last frame with the most tiles (frame 7: 7 persistent blocks before it)
        assertEquals(maxFrame + shadows + 7 * TestTraces.PERSISTENT_PER_FRAME, m.peakUsedBytes());
        assertEquals(m.highWater("forward").bytes() + m.highWater("backward").bytes(), m.footprintBytes());
        assertEquals(1.0 - (double) m.peakUsedBytes() / m.footprintBytes(), m.fragmentation(), 1e-12);
        assertEquals(0.0, m.roundingWaste(), 1e-12, "float32 and uint8 tensors need no padding here");
        assertEquals(3L * FRAMES, m.allocations());
        assertTrue(m.peakUsedAtNs() >= view.startNs() && m.peakUsedAtNs() <= view.endNs());
        assertEquals(view.peakUsed(m.id()), m.peakUsedBytes());
        // the occupancy chart's most is the peak
        long chartMax = 0;
        for (long v : m.occupancy().usedMax()) {
            chartMax = Math.max(chartMax, v);
        }
        assertEquals(m.peakUsedBytes(), chartMax);
    }

    @Test
    void scopesTakeTheirPeakRunWithParamsAndACalibratedModel() {
        TraceAnalysis a = TraceAnalysis.of(TestTraces.render(FRAMES, TILES, LIGHTS));
        ScopeAnalysis frame = a.scopes(s -> s.path().equals("frame")).getFirst();
        ScopeAnalysis shadows = a.scopes(s -> s.path().equals("frame/shadows")).getFirst();
        assertEquals(FRAMES, frame.executions());
        assertEquals(TestTraces.frameBytes(TILES, 3) + TestTraces.shadowBytes(LIGHTS), frame.peakBytes());
        assertEquals(Map.of("tiles", (long) TILES + 3), frame.params());
        assertEquals(TestTraces.shadowBytes(LIGHTS), shadows.peakBytes());
        assertEquals(1, shadows.depth());
        assertEquals(frame, a.topScopes(1).getFirst(), "largest peak first");
        // calibration: frame's own bytes are 4096 per tile plus the 1000-byte persistent tensor
        assertNotNull(frame.model(), "calibrated model attached");
        assertTrue(frame.model().contains("4096·tiles"), frame.model());
        assertEquals(0.0, frame.modelError(), 1e-9);
    }

    @Test
    void poolBinsMatchThePoolsOwnStatistics() {
        TraceAnalysis a = TraceAnalysis.of(TestTraces.render(FRAMES, TILES, LIGHTS));
        MemoryAnalysis pool = a.memory("buffers");
        assertEquals(MemoryKind.POOL, pool.kind());
        var bins = a.bins(pool.id());
        assertEquals(2, bins.size());
        PoolBinAnalysis small = bins.stream().filter(b -> b.requestedBytes() == 2L * FRAMES * 1000).findFirst().orElseThrow();
        PoolBinAnalysis large = bins.stream().filter(b -> b.requestedBytes() == FRAMES * 4097L).findFirst().orElseThrow();
        assertEquals(2L * FRAMES, small.requests());
        assertEquals(2, small.misses(), "two blocks taken in the first frame, reused after");
        assertEquals(2L * FRAMES - 2, small.hits());
        assertEquals(FRAMES, small.reuseFactor(), 1e-12);
        assertEquals(2L * FRAMES * (small.binBytes() - 1000), small.roundingWasteBytes());
        assertEquals(1, large.misses());
        assertEquals((double) FRAMES, large.reuseFactor(), 1e-12);
        assertEquals(2 * small.binBytes(), small.peakHeldBytes());
        assertEquals(0, small.heldBytes(), "closing the pool gives held blocks back");
        assertEquals(2, small.releases());
        // reserved high-water: every block the pool ever took
        assertEquals(2 * small.binBytes() + large.binBytes(), pool.highWater("reserved").bytes());
        assertEquals(pool.highWater("reserved").bytes(), pool.footprintBytes());
    }

    @Test
    void planHeightAgainstItsLowerBound() {
        TraceAnalysis a = TraceAnalysis.of(TestTraces.plan());
        PlanAnalysis p = a.plans().getFirst();
        assertEquals("scratch", p.arena());
        assertEquals("tiny-net", p.plan());
        assertEquals(3, p.tensors().size());
        assertEquals(3500, p.heightBytes());
        assertEquals(3000, p.lowerBoundBytes());
        assertEquals(4, p.steps());
        assertEquals(3000.0 / 3500, p.efficiency(), 1e-12);
        assertEquals(-1, p.searchHeightBytes());
        PlanAnalysis packed = p.withSearch(1_000_000_000L);
        assertTrue(packed.searchHeightBytes() >= p.lowerBoundBytes() && packed.searchHeightBytes() <= 3500, "a planner packs within the bound and the plan: " + packed.searchHeightBytes());
        assertTrue(!packed.searchPlanner().isEmpty());
        assertEquals("", p.searchProof());
        assertEquals(-1, p.searchBoundBytes());
        // the search reaches the load here, so its packing is proved optimal by it
        assertEquals(3000, packed.searchHeightBytes());
        assertEquals("optimal", packed.searchProof());
        assertEquals(3000, packed.searchBoundBytes());
        MemoryAnalysis m = a.memory("scratch");
        assertEquals(3000, m.peakUsedBytes());
        assertEquals(3500, m.footprintBytes());
        assertEquals(1 - 3000.0 / 3500, m.fragmentation(), 1e-12);
    }

    @Test
    void unclosedScopesCloseAtTheLastEventAndUnknownMemoriesAreSkipped() {
        ListTraceView v = new ListTraceView();
        v.onMemory(new MemoryInfo(0, "a", MemoryKind.ARENA, "host", 100, Map.of()));
        int name = v.intern("outer");
        v.add(new Event(0, EventKind.SCOPE_ENTER, 0, 0, 1, 0, 100, -1, 0, 0, name, 7));
        v.add(new Event(5, EventKind.ALLOC, 0, 0, 1, 0, 40, 40, 40, 0, -1, -1));
        v.add(new Event(6, EventKind.ALLOC, 0, 9, 1, 0, 40, 40, 99, 0, -1, -1)); // memory 9 was never registered
        TraceAnalysis a = TraceAnalysis.of(v, 8);
        assertEquals(1, a.memories().size());
        assertEquals(40, a.memory("a").peakUsedBytes());
        ScopeAnalysis s = a.scopes().getFirst();
        assertEquals(40, s.peakBytes());
        assertEquals(6, s.totalNs());
        assertNull(a.memory("b"));
    }

    @Test
    void hostileNestingStaysLinear() {
        // 200,000 scopes opened and never closed, then the outermost closed: one pass, no quadratic work
        ListTraceView v = new ListTraceView();
        v.onMemory(new MemoryInfo(0, "a", MemoryKind.ARENA, "host", 1 << 30, Map.of()));
        int name = v.intern("s");
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            v.add(new Event(i, EventKind.SCOPE_ENTER, 0, 0, 1, 0, 0, i - 1, i, 0, name, i));
        }
        v.add(new Event(n, EventKind.SCOPE_EXIT, 0, 0, 1, 0, 0, 0, 0, 0, name, 0));
        long t0 = System.nanoTime();
        TraceAnalysis a = TraceAnalysis.of(v, 16);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 20_000, ms + " ms");
        assertEquals(n, a.scopes().stream().mapToLong(ScopeAnalysis::executions).sum());
        // the outermost saw the deepest one's bytes
        assertEquals(n - 1, a.scopes(s -> s.depth() == 0).getFirst().peakBytes());
        assertEquals(ScopeAnalysis.MAX_PATH_DEPTH + 1, a.scopes().size(), "deep levels share one path");
        assertTrue(a.scopes().stream().anyMatch(s -> s.path().endsWith("/…")));
    }
}
