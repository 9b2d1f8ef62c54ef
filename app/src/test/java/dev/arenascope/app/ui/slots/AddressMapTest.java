package dev.arenascope.app.ui.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.testsupport.Fixtures;

/** The address map of a PyTorch snapshot: free memory is inside the reserved segments only. */
class AddressMapTest {
    @Test
    void gapsBetweenSegmentsAreNotFreeMemory() throws Exception {
        TraceStore t = TraceFormats.load(Fixtures.torch("cs336-a2-bcrafton.pickle")).store();
        MemoryInfo m = t.memories().stream().filter(x -> x.kind() == MemoryKind.SEGMENTED).findFirst().orElseThrow();
        long at = AllocatorView.defaultInstant(t, m);
        AddressMap.Snapshot s = AddressMap.at(t, m, at, () -> false);
        assertFalse(s.blocks().isEmpty(), "the default instant shows blocks, not an empty end of session");
        long reserved = s.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        long inUse = s.blocks().stream().filter(b -> b.state() != AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        assertTrue(reserved > 0 && inUse > 0);
        assertEquals(reserved - inUse, s.gapBytes(), "free = reserved - in use (blocks lie inside segments)");
        assertTrue(s.gapBytes() <= reserved && s.largestGap() <= s.gapBytes());
        assertTrue(t.gauges(m.id(), at, at + 1, 1).usedMax()[0] > 0, "the default instant has bytes in use");
    }
}
