package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;

/** Sites of a PyTorch snapshot recorded with {@code stacks="all"}: C++ internals kept, marked, hidden by default. */
class TorchSitesTest {

    private static TraceStore load() throws Exception {
        Path p = Path.of(TorchSitesTest.class.getResource("/pickles/stacks-all-snapshot-p4.pickle").toURI());
        EventStore store = new EventStore();
        TorchSnapshotToTrace.convert(p, store);
        return store;
    }

    private static List<String> functions(SiteBreakdown.Row r) {
        return r.frames().stream().map(StackFrame::function).toList();
    }

    @Test
    void pythonFramesShowFirstAndTheInternalsOnlyWhenAsked() throws Exception {
        TraceStore store = load();
        SiteAnalysis sa = SiteAnalysis.of(store, "cuda:0", false);
        SiteBreakdown peak = sa.ask(new SiteQuestion.AtPeak());
        // at the peak: the weights block live from the start, forward's 64 KiB and step's 128 KiB
        assertEquals(4096 + 65536 + 131072, peak.totalBytes());
        assertEquals(store.peakUsed(0), peak.totalBytes());
        assertEquals(List.of(List.of("step", "main"), List.of("forward", "main"), List.of("load_weights")),
                peak.rows().stream().map(TorchSitesTest::functions).toList());
        assertEquals("optim.py", peak.rows().getFirst().frames().getFirst().file());
        assertEquals(71, peak.rows().getFirst().frames().getFirst().line());

        SiteBreakdown all = SiteAnalysis.of(store, "cuda:0", true).ask(new SiteQuestion.AtPeak());
        List<StackFrame> top = all.rows().getFirst().frames();
        assertEquals("torch::unwind::unwind()", top.getFirst().function());
        assertTrue(top.subList(0, 4).stream().allMatch(StackFrame::internal), "the C++ frames are marked");
        assertTrue(top.subList(4, top.size()).stream().noneMatch(StackFrame::internal), "the Python frames are not");
    }

    @Test
    void olderSnapshotsWithoutTimesStillHaveSitesAtEveryInstant() throws Exception {
        TraceStore store = load();
        SiteAnalysis sa = SiteAnalysis.of(store, "cuda:0", false);
        SiteBreakdown end = sa.ask(new SiteQuestion.Leaks());
        // forward's first block was freed and a 1 KiB one allocated at the same place by the same code
        assertEquals(4096 + 131072 + 1024, end.totalBytes());
        assertEquals(3, end.totalCount());
        assertEquals(SiteSource.STACKS, end.source());
    }
}
