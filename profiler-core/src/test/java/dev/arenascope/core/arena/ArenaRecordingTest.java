package dev.arenascope.core.arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.testsupport.TestDevices;

class ArenaRecordingTest {
    private MemoryDevice device;
    private Session session;

    @AfterEach
    void close() {
        if (session != null) {
            session.close();
        }
        if (device != null) {
            device.close();
        }
    }

    private ManualMemory arena(String dev) {
        device = TestDevices.open(dev);
        session = new Session("rec");
        return ManualMemory.builder().device(device).session(session).name("render").numBytes(1 << 20).noPoison().build();
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void recorderKeepsTheScopeTreeParamsPeaksAndEveryAllocation(String dev) {
        try (ManualMemory a = arena(dev)) {
            a.getTensor(DType.INT8, 100); // before recording: not recorded
            AllocationRecorder rec;
            try (AllocationRecorder r = a.recording()) {
                rec = r;
                IllegalStateException nested = assertThrows(IllegalStateException.class, a::recording);
                assertTrue(nested.getMessage().contains("do not nest"), nested.getMessage());
                try (var frame = a.scope("frame", "frames", 4, "num_triangles", 1000)) {
                    a.getTensor(DType.FLOAT32, 4, 16, 16, 3);
                    try (var t = a.temp(); var raster = a.scope("raster")) {
                        a.getTensor(DType.INT32, 1000);
                        a.noteScopeParams("fragments", 12345);
                        a.getPersistentTensor(DType.FLOAT16, 64);
                    }
                    try (var post = a.scope("post")) {
                        a.getTensor(DType.FLOAT32, 10);
                    }
                }
                assertThrows(InsufficientMemoryException.class, () -> a.getTensor(DType.FLOAT64, 1 << 20));
            }
            assertEquals(false, a.isRecording());
            RecordedScope root = rec.scopeTree();
            assertEquals("recording", root.name());
            assertEquals(new Pointers(100, 1 << 20), root.entry());
            RecordedScope frame = root.find("frame");
            assertEquals(Map.of("frames", 4L, "num_triangles", 1000L), frame.params());
            assertEquals(List.of("frames", "num_triangles"), List.copyOf(frame.params().keySet()));
            assertEquals(1, frame.allocations());
            assertEquals(4, frame.totalAllocations());
            RecordedScope raster = frame.find("raster");
            assertEquals(Map.of("fragments", 12345L), raster.params());
            assertEquals(2, raster.allocations());
            // frame: 100 bytes before, float32[4,16,16,3] at 100 -> 100..12388, int32[1000] -> 16388
            assertEquals(new Pointers(12388, 1 << 20), raster.entry());
            assertEquals(new Pointers(16388, (1 << 20) - 128), raster.exit());
            assertEquals(16388, raster.peakForwardBytes());
            assertEquals(4000, raster.forwardGrowth());
            assertEquals(128, raster.peakBackwardBytes());
            assertEquals(16388, frame.peakForwardBytes(), "peaks propagate to the parent");
            assertEquals(128, frame.peakBackwardBytes());
            RecordedScope post = frame.find("post");
            assertEquals(new Pointers(12388, (1 << 20) - 128), post.entry(), "temp released raster's forward bytes");
            assertEquals(40, post.forwardGrowth());
            assertEquals(4, rec.allocationCount());
            List<RecordedAllocation> all = rec.allocations();
            RecordedAllocation first = all.get(0);
            assertEquals(DType.FLOAT32, first.dtype());
            assertEquals(List.of(4L, 16L, 16L, 3L), Arrays.stream(first.shape()).boxed().toList());
            assertEquals(12288, first.bytes());
            assertEquals(100, first.offset());
            assertEquals(Direction.FORWARD, first.direction());
            assertEquals(frame.id(), first.scope());
            assertEquals(Thread.currentThread().threadId(), first.threadId());
            RecordedAllocation persistent = all.get(2);
            assertEquals(Direction.BACKWARD, persistent.direction());
            assertEquals("frame/raster", rec.scopePath(persistent.scope()));
            assertTrue(all.get(3).timeNs() >= first.timeNs());
            assertEquals(1, rec.failures().size());
            assertTrue(rec.failures().get(0).contains("float64[1048576]"), rec.failures().get(0));
            assertTrue(rec.format().contains("raster {fragments=12345}"), rec.format());
            // a second recording may start once the first is closed
            try (AllocationRecorder again = a.recording()) {
                a.getTensor(DType.INT8, 1);
                assertEquals(1, again.allocationCount());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.arenascope.testsupport.TestDevices#all")
    void everyOperationIsPublishedWithGaugesAfterIt(String dev) {
        CollectingSink sink = new CollectingSink();
        try (ManualMemory a0 = arena(dev)) {
            // nothing is published while the session has no sink
        }
        session.addSink(sink);
        ManualMemory a = ManualMemory.builder().device(device).session(session).name("render2").numBytes(4096).noPoison().build();
        try (var s = a.scope("frame", "frames", 2)) {
            try (var t = a.temp()) {
                a.getTensor(DType.FLOAT32, 10);
                a.getTensor(DType.FLOAT32, 10);
                a.getPersistentTensor(DType.INT8, 3);
                a.noteScopeParams("fragments", 7);
            }
            assertThrows(InsufficientMemoryException.class, () -> a.getTensor(DType.FLOAT32, 5000));
            a.reset();
        }
        a.close();
        session.flush();
        List<EventKind> kinds = sink.kinds();
        assertEquals(List.of(EventKind.MEMORY_CREATED, EventKind.SCOPE_ENTER, EventKind.SCOPE_PARAM, EventKind.ALLOC,
                EventKind.ALLOC, EventKind.ALLOC, EventKind.SCOPE_PARAM, EventKind.POINTER_RESTORE, EventKind.OUT_OF_MEMORY,
                EventKind.RESET, EventKind.SCOPE_EXIT, EventKind.MEMORY_CLOSED), kinds);
        int mem = a.memoryId();
        assertTrue(sink.events.stream().allMatch(e -> e.memory() == mem));
        assertEquals(MemoryKind.ARENA, sink.memories.stream().filter(m -> m.id() == mem).findFirst().orElseThrow().kind());
        List<Event> allocs = sink.of(EventKind.ALLOC);
        assertEquals(40, allocs.get(1).a());
        assertEquals(80, allocs.get(1).used());
        assertEquals(0, allocs.get(1).aux());
        assertEquals("float32[10]", sink.strings.get(allocs.get(0).ref()));
        assertEquals(allocs.get(0).ref(), allocs.get(1).ref(), "one descriptor id per distinct shape");
        Event back = allocs.get(2);
        assertTrue(back.has(Event.FLAG_BACKWARD));
        assertEquals(4093, back.a());
        assertEquals(83, back.used());
        assertEquals(3, back.aux());
        int scopeId = sink.of(EventKind.SCOPE_ENTER).get(0).ref2();
        assertEquals(scopeId, back.ref2(), "allocations carry the innermost scope");
        assertEquals("frame", sink.strings.get(sink.of(EventKind.SCOPE_ENTER).get(0).ref()));
        List<Event> params = sink.of(EventKind.SCOPE_PARAM);
        assertEquals("frames", sink.strings.get(params.get(0).ref()));
        assertEquals(2, params.get(0).a());
        assertEquals("fragments", sink.strings.get(params.get(1).ref()));
        Event restore = sink.of(EventKind.POINTER_RESTORE).get(0);
        assertEquals(0, restore.a());
        assertEquals(80, restore.b());
        assertEquals(3, restore.used());
        Event oom = sink.of(EventKind.OUT_OF_MEMORY).get(0);
        assertEquals(20000, oom.b());
        assertEquals(4093, oom.c());
        assertTrue(sink.strings.get(oom.ref()).contains("open scopes: frame"));
        Event reset = sink.of(EventKind.RESET).get(0);
        assertEquals(3, reset.b());
        assertEquals(0, reset.used());
        Event created = sink.of(EventKind.MEMORY_CREATED).get(0);
        assertEquals(4096, created.b());
        assertEquals("render2", sink.strings.get(created.ref()));
        assertEquals(0, session.lostEvents());
        assertNull(null);
    }
}
