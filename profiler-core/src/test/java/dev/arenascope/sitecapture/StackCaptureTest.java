package dev.arenascope.sitecapture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.record.StackCapture;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Stack capture as a program sees it. In a package of its own: capture leaves out the profiler's
 * {@code dev.arenascope.core} frames, which a test in that package would be.
 */
class StackCaptureTest {
    /** Allocates from a method of its own, so the innermost frame outside the profiler is known. */
    private static void allocateInNamedMethod(ManualMemory m) {
        m.getTensor(DType.FLOAT32, 16);
    }

    private static EventStore record(StackCapture capture, int allocations) {
        EventStore store = new EventStore();
        try (Session s = new Session("capture")) {
            s.captureStacks(capture);
            s.addSink(store);
            try (ManualMemory m = ManualMemory.builder().device(new VirtualDevice(1 << 20)).numBytes(1 << 20).session(s).build()) {
                for (int i = 0; i < allocations; i++) {
                    allocateInNamedMethod(m);
                }
            }
            s.flush();
        }
        return store;
    }

    @Test
    void capturedStacksNameTheCallersAndARepeatedSiteIsOneNode() {
        EventStore store = record(StackCapture.all(8), 5);
        List<Event> allocs = LongStream.range(0, store.eventCount()).mapToObj(store::event)
                .filter(e -> e.kind() == EventKind.ALLOC).toList();
        assertEquals(5, allocs.size());
        int site = allocs.getFirst().site();
        assertTrue(site >= 0);
        assertTrue(allocs.stream().allMatch(e -> e.site() == site), "the same call path is one site");
        List<StackFrame> frames = store.stack(site);
        assertEquals("StackCaptureTest.allocateInNamedMethod", frames.getFirst().function(), frames.toString());
        assertEquals("StackCaptureTest.java", frames.getFirst().file());
        assertTrue(frames.getFirst().line() > 0);
        assertEquals("StackCaptureTest.record", frames.get(1).function());
        assertTrue(frames.stream().noneMatch(f -> f.function().startsWith("ManualMemory")), "the profiler's own frames are left out");
        assertTrue(frames.size() <= 8, "depth limit");
        assertNull(store.session().attributes().get(SiteTable.SAMPLING_ATTRIBUTE));
    }

    @Test
    void samplingWalksEveryNthAndSaysSo() {
        EventStore store = record(StackCapture.everyNth(3, 4), 30);
        long sited = LongStream.range(0, store.eventCount()).mapToObj(store::event)
                .filter(e -> e.kind() == EventKind.ALLOC && e.site() >= 0).count();
        assertEquals(10, sited);
        assertEquals("one allocation in 3", store.session().attributes().get(SiteTable.SAMPLING_ATTRIBUTE));
        EventStore bytes = record(StackCapture.everyBytes(256, 4), 200);
        long byBytes = LongStream.range(0, bytes.eventCount()).mapToObj(bytes::event)
                .filter(e -> e.kind() == EventKind.ALLOC && e.site() >= 0).count();
        assertTrue(byBytes > 20 && byBytes < 200, "about one in four 64-byte allocations: " + byBytes);
    }

    @Test
    void captureOffCarriesNoSites() {
        EventStore store = record(null, 5);
        assertFalse(store.hasSites());
        assertThrows(IllegalArgumentException.class, () -> StackCapture.everyNth(0, 4));
        assertThrows(IllegalArgumentException.class, () -> StackCapture.all(0));
    }
}
