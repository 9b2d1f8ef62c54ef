package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SitedTrace;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.GeneratedTrace;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.testsupport.Fixtures;

/** The stream hands over what each memory's {@link SiteAnalysis#allocationTable()} lists, row for row. */
class AllocationStreamTest {

    /** Every field of a row, the path as its frames (its number too: equal paths, equal numbers). */
    private static String describe(long startEvent, long endEvent, long startNs, long endNs, long bytes, long requested,
                                   long address, int descriptor, int path, List<?> frames, int stack, int scope, String category) {
        return startEvent + " " + endEvent + " " + startNs + " " + endNs + " " + bytes + " " + requested + " " + address + " "
                + descriptor + " " + path + " " + frames + " " + stack + " " + scope + " " + category;
    }

    private static void assertStreamMatchesAnalyses(TraceView v, int batch) {
        Map<Integer, Map<Integer, String>> rows = new HashMap<>();
        List<Integer> order = new ArrayList<>();
        AllocationStream[] self = new AllocationStream[1];
        AllocationStream s = new AllocationStream(v, false, r -> {
            String row = describe(r.startEvent, r.endEvent, r.startNs, r.endNs, r.bytes, r.requestedBytes, r.address,
                    r.descriptor, r.path, null, r.stack, r.scope, r.category);
            String old = rows.computeIfAbsent(r.memory, m -> new HashMap<>()).put(r.number, row);
            assertEquals(null, old, "allocation " + r.number + " of memory " + r.memory + " handed over twice");
            order.add(r.endEvent < 0 ? Integer.MAX_VALUE : 0);
        });
        self[0] = s;
        long n = v.eventCount();
        EventBatch b = new EventBatch(batch);
        for (long at = 0; at < n; at += b.size()) {
            b.clear();
            TraceStore.copy(v, at, Math.min(n, at + batch), b);
            s.onEvents(b);
        }
        s.finish();
        assertEquals(v.memories().size(), s.memories().size());
        long total = 0;
        for (AllocationStream.Memory m : s.memories()) {
            MemoryInfo info = m.info();
            SiteAnalysis sa = SiteAnalysis.of(v, info, false);
            Allocations a = sa.allocationTable();
            assertEquals(sa.allocations(), m.allocations(), info.name());
            assertEquals(sa.peakBytes(), m.peakBytes(), info.name());
            assertEquals(sa.peakEvent(), m.peakEvent(), info.name());
            assertEquals(sa.peakNs(), m.peakNs(), info.name());
            assertEquals(sa.pathCount(), m.pathCount(), info.name());
            assertEquals(sa.source(), m.source(), info.name());
            for (int p = 0; p < sa.pathCount(); p++) {
                assertEquals(sa.pathFrames(p), m.pathFrames(p), info.name() + " path " + p);
            }
            Map<Integer, String> got = rows.getOrDefault(info.id(), Map.of());
            assertEquals(a.size(), got.size(), info.name() + ": rows handed over");
            for (int i = 0; i < a.size(); i++) {
                String c = a.categoryName(a.category(i));
                String want = describe(a.startEvent(i), a.endEvent(i), a.startNs(i), a.endNs(i), a.bytes(i), a.requestedBytes(i),
                        a.address(i), a.descriptor(i), a.path(i), null, a.site(i), a.scope(i), c);
                assertEquals(want, got.get(i), info.name() + " allocation " + i);
            }
            total += a.size();
        }
        assertEquals(total, order.size());
        // the ended ones as they end, the live ones after them all
        int firstLive = order.indexOf(Integer.MAX_VALUE);
        assertTrue(firstLive < 0 || order.subList(firstLive, order.size()).stream().allMatch(o -> o == Integer.MAX_VALUE));
    }

    @Test
    void aSitedSyntheticTraceStreamsItsAnalysesRows() {
        assertStreamMatchesAnalyses(SitedTrace.store(5, 60_000), 8192);
    }

    @Test
    void theGeneratedShapeStreamsItsAnalysesRowsInAnyBatching(@TempDir Path dir) throws Exception {
        // the shape `arenascope generate` writes: an arena with scopes, a pool, a plan arena, two caching allocators
        Path f = GeneratedTrace.write(dir.resolve("g.astrace"), 300_000, 3, null);
        TraceView v = TraceFormats.load(f).store();
        assertStreamMatchesAnalyses(v, 8192);
        assertStreamMatchesAnalyses(v, 77);
    }

    @ParameterizedTest
    @ValueSource(strings = {"cs336-a2-magma27.pickle", "cs336-a2-bcrafton.pickle"})
    void aTorchSnapshotStreamsItsAnalysesRows(String fixture) throws Exception {
        assertStreamMatchesAnalyses(TraceFormats.load(Fixtures.torch(fixture)).store(), 8192);
    }
}
