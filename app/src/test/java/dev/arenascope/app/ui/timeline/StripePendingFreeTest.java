package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.testsupport.Fixtures;

/** A stripe's hover names when its free was requested, for PyTorch's pending frees. */
class StripePendingFreeTest {
    @Test
    void theAllocationsWhoseFreeWasPendingAreTheSnapshots() throws Exception {
        // fixtures/torch/README.md: in magma27 a free is pending at 271 instants, one block at a time, each
        // a free_requested whose free_completed came at a later time_us (the largest 100,663,296 B at 1,492 us)
        TraceStore t = TraceFormats.load(Fixtures.torch("cs336-a2-magma27.pickle")).store();
        MemoryInfo m = t.memories().stream().filter(x -> x.kind() == MemoryKind.SEGMENTED).findFirst().orElseThrow();
        Allocations a = SiteAnalysis.of(t, m, false).allocationTable();
        int pendingLater = 0;
        int requested = 0;
        boolean largest = false;
        for (int i = 0; i < a.size(); i++) {
            long r = StripeLayer.freeRequestedNs(t, a, i);
            if (r >= 0) {
                requested++;
                assertTrue(r >= a.startNs(i) && r <= a.endNs(i), "requested while it lived");
                if (r < a.endNs(i)) {
                    pendingLater++;
                    largest |= r == 1_492_000 && a.bytes(i) == 100_663_296L;
                }
            }
        }
        assertEquals(1721, requested, "every free_requested of the trace belongs to its allocation");
        assertEquals(271, pendingLater);
        assertTrue(largest, "the largest pending free is found at its instant");
    }
}
