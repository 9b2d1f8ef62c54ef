package dev.arenascope.app.ui.pools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.format.Percent;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.pool.PooledBuffer;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.report.Report;
import dev.arenascope.core.report.ReportFormat;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.util.Progress;

/**
 * One definition of each figure the window and the report both state: the pool's rounding waste
 * (the report said 2.40%, the window 2.5%: shares of different totals) and the instant of a memory's
 * peak (the report counted from the first event, the window and {@code sites} from the session's start).
 */
class OneFigureTest {

    private static EventStore pools() throws Exception {
        EventStore store = new EventStore();
        try (Session s = new Session("one-figure")) {
            s.addSink(store);
            VirtualDevice dev = new VirtualDevice(1L << 30);
            try (MemoryPool pool = new MemoryPool("buffers", dev, MemoryPool.NO_LIMIT, 2, s)) {
                // a pause before the first request: the session's clock and the first event's differ
                long until = System.nanoTime() + 5_000_000;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                List<PooledBuffer> held = new ArrayList<>();
                long[] sizes = {1000, 4097, 3000, 70_000, 1000, 12_345, 4097};
                for (int round = 0; round < 3; round++) {
                    for (long n : sizes) {
                        held.add(pool.allocate(n + round));
                    }
                    for (PooledBuffer b : held) {
                        b.close();
                    }
                    held.clear();
                }
            }
            s.flush();
        }
        return store;
    }

    @Test
    void thePoolsRoundingWasteIsTheReportsToTheDigit() throws Exception {
        EventStore store = pools();
        TraceAnalysis a = TraceAnalysis.of(store);
        MemoryAnalysis m = a.memory("buffers");
        TraceAggregate digest = new TraceAggregate(store);
        digest.advance(Progress.NONE);
        var bins = digest.snapshot().bins().stream().filter(b -> b.memory() == m.id()).toList();
        assertFalse(bins.isEmpty());
        String window = PoolView.wasteShare(bins);
        assertEquals(Percent.format(m.roundingWaste()), window, "the window's share is the report's");
        String md = ReportFormat.MARKDOWN.render(Report.of(a, "test", "pools"));
        assertTrue(md.contains(window), "the report's Memories table states " + window + ":\n" + md);
        // the what-if at the recorded bits states the same share
        BinWhatIf same = BinWhatIf.of(digest.snapshot().requests(), m.id(), 2);
        assertEquals(window, Percent.format(same.wasteRatio()));
    }

    @Test
    void thePeaksInstantIsTheSameInTheReportAndInSites() throws Exception {
        EventStore store = pools();
        TraceAnalysis a = TraceAnalysis.of(store);
        MemoryAnalysis m = a.memory("buffers");
        assertTrue(a.session().firstEventNs() > 0, "the first event comes after the session's start");
        SiteAnalysis sa = SiteAnalysis.of(store, store.memories().get(m.id()), false);
        assertEquals(m.peakUsedAtNs(), sa.peakNs(), "one instant for the peak");
        String md = ReportFormat.MARKDOWN.render(Report.of(a, "test", "pools"));
        String at = "at " + Durations.format(m.peakUsedAtNs());
        assertTrue(md.contains(at), "the report gives the peak " + at + " (since the session's start):\n" + md);
    }
}
