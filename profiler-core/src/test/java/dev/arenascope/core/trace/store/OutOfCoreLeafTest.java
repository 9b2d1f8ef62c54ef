package dev.arenascope.core.trace.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.MetaRecord;

/**
 * An out-of-core leaf holds up to {@link OutOfCoreStore#LEAF_EVENTS} events, more than an in-memory
 * one: a chunk with a long run of one memory's events, in a trace whose span gives no time bound to
 * its leaves (a trace with no footer, or a dense stretch of a long one), is indexed whole. (The open
 * leaf's arrays grew only to the in-memory leaf's 64 events, and such a chunk failed the open.)
 */
class OutOfCoreLeafTest {
    @Test
    void aLongRunOfOneMemoryFillsWholeLeaves() {
        int n = 5000;
        EventBatch chunk = new EventBatch(n);
        long peak = 0;
        for (int i = 0; i < n; i++) {
            long used = (i % 1500) * 64L;
            peak = Math.max(peak, used);
            chunk.add(new Event(i * 10L, EventKind.ALLOC, 0, 0, 0, i, 64, 0, used, 0, -1, -1));
        }
        OutOfCoreStore.ChunkRef ref = new OutOfCoreStore.ChunkRef(0, 0, 0, n, 0, (n - 1) * 10L);
        OutOfCoreStore s = OutOfCoreStore.builder("run", (k, r) -> chunk, 0, 1 << 20)
                .meta(new MetaRecord.Memory(new MemoryInfo(0, "arena", MemoryKind.ARENA, "cpu", 1 << 20, Map.of())))
                .chunk(ref, chunk)
                .build();
        assertEquals(n, s.eventCount(0));
        assertEquals(peak, s.peakUsed(0));
        s.exactGauges(true);
        GaugeSeries g = s.gauges(0, 0, n * 10L, 10);
        long max = 0;
        for (int b = 0; b < g.buckets(); b++) {
            max = Math.max(max, g.usedMax()[b]);
        }
        assertEquals(peak, max);
        assertEquals(chunk.get(4321), s.event(4321));
    }
}
