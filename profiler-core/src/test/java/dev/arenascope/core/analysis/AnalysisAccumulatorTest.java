package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The scope and pool-bin accumulators answer a live view as they answer a report: fed the trace in
 * pieces and asked after each piece, they end with the rows the one-pass analysis gives, and a query
 * in between changes nothing.
 */
class AnalysisAccumulatorTest {

    @Test
    void scopeRowsFedInPiecesEqualTheOnePassAnswer() {
        ListTraceView view = TestTraces.render(10, 8, 4);
        List<ScopeAnalysis> whole = ScopeAnalysis.of(view);
        ScopeAnalysis.Accumulator acc = new ScopeAnalysis.Accumulator(view, true);
        long n = view.eventCount();
        boolean sawOpen = false;
        for (long i = 0; i < n; i++) {
            acc.accept(view.event(i));
            if (i % 7 == 3) {
                List<ScopeAnalysis> mid = acc.snapshot(view.event(i).timeNs());
                // a parent before its children, every row with at least one (possibly still open) run
                for (ScopeAnalysis s : mid) {
                    assertTrue(s.executions() > 0);
                    int slash = s.path().lastIndexOf('/');
                    if (slash > 0) {
                        String parent = s.path().substring(0, slash);
                        assertTrue(mid.stream().limit(mid.indexOf(s)).anyMatch(p -> p.path().equals(parent)), s.path());
                    }
                }
                sawOpen |= !mid.isEmpty();
            }
        }
        assertTrue(sawOpen);
        List<ScopeAnalysis> last = sorted(acc.snapshot(view.endNs()));
        assertEquals(whole.size(), last.size());
        for (int i = 0; i < whole.size(); i++) {
            ScopeAnalysis a = whole.get(i);
            ScopeAnalysis b = last.get(i);
            assertEquals(List.of(a.memory(), a.path(), a.depth(), a.executions(), a.peakBytes(), a.peakAtNs(), a.meanBytes(),
                            a.totalNs(), a.maxNs(), a.params(), a.allocations(), a.forwardBytes(), a.backwardBytes(), a.peakUsedBytes()),
                    List.of(b.memory(), b.path(), b.depth(), b.executions(), b.peakBytes(), b.peakAtNs(), b.meanBytes(),
                            b.totalNs(), b.maxNs(), b.params(), b.allocations(), b.forwardBytes(), b.backwardBytes(), b.peakUsedBytes()));
            assertEquals(b.executions(), b.executionTimes().count(), "every run's times kept");
        }
        ScopeAnalysis frame = last.stream().filter(s -> s.path().equals("frame")).findFirst().orElseThrow();
        ScopeAnalysis shadows = last.stream().filter(s -> s.path().equals("frame/shadows")).findFirst().orElseThrow();
        assertTrue(frame.allocations() >= shadows.allocations() && frame.peakUsedBytes() >= frame.peakBytes(),
                "a scope counts its nested scopes' allocations; its peak in use includes its entry level");
        long t = frame.executionTimes().start(0);
        assertTrue(frame.executionTimes().covers(t) && !frame.executionTimes().covers(t - 1));
    }

    @Test
    void binsFedInPiecesEqualTheOnePassAnswer() {
        ListTraceView view = TestTraces.render(10, 8, 4);
        List<PoolBinAnalysis> whole = PoolBinAnalysis.of(view);
        assertTrue(!whole.isEmpty());
        PoolBinAnalysis.Accumulator acc = new PoolBinAnalysis.Accumulator();
        for (long i = 0, n = view.eventCount(); i < n; i++) {
            acc.accept(view.event(i));
            if (i % 5 == 0) {
                acc.snapshot(view.memories());
            }
        }
        assertEquals(whole, acc.snapshot(view.memories()));
    }

    private static List<ScopeAnalysis> sorted(List<ScopeAnalysis> rows) {
        return rows.stream().sorted(Comparator.comparingLong(ScopeAnalysis::peakBytes).reversed()
                .thenComparing(ScopeAnalysis::subject)).toList();
    }
}
