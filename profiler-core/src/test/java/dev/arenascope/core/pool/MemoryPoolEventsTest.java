package dev.arenascope.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.CollectingSink;

class MemoryPoolEventsTest {

    @Test
    void everyPoolOperationIsPublishedWithGaugesAfterIt() {
        CollectingSink sink = new CollectingSink();
        try (Session session = new Session("events"); VirtualDevice device = new VirtualDevice(64 * 1024)) {
            session.addSink(sink);
            MemoryPool pool = new MemoryPool("particles", device, 40_000, 2, session);
            PooledBuffer a = pool.allocate(1000);          // miss: RESERVE + POOL_REQUEST
            a.close();                                     // POOL_HOLD
            PooledBuffer b = pool.allocate(1024 - 24);     // hit (same bin 39)
            b.close();
            assertThrows(PoolOutOfMemoryException.class, () -> pool.allocate(50_000)); // RELEASE + UNRESERVE, OOM
            pool.allocate(3000).close();
            pool.close();                                  // RELEASE + UNRESERVE, MEMORY_CLOSED
            session.flush();

            MemoryInfo info = sink.memories.stream().filter(m -> m.id() == pool.memoryId()).findFirst().orElseThrow();
            assertEquals(MemoryKind.POOL, info.kind());
            assertEquals("particles", info.name());
            assertEquals("virtual", info.device());
            assertEquals(40_000, info.capacity());
            assertEquals("2", info.attributes().get("mantissaBits"));

            List<Event> ev = sink.events.stream().filter(e -> e.memory() == pool.memoryId()).toList();
            List<EventKind> kinds = ev.stream().map(Event::kind).toList();
            assertEquals(List.of(
                    EventKind.MEMORY_CREATED,
                    EventKind.RESERVE, EventKind.POOL_REQUEST, EventKind.POOL_HOLD,
                    EventKind.POOL_REQUEST, EventKind.POOL_HOLD,
                    EventKind.POOL_RELEASE, EventKind.UNRESERVE, EventKind.OUT_OF_MEMORY,
                    EventKind.RESERVE, EventKind.POOL_REQUEST, EventKind.POOL_HOLD,
                    EventKind.POOL_RELEASE, EventKind.UNRESERVE, EventKind.MEMORY_CLOSED), kinds);

            Event created = ev.get(0);
            assertEquals(40_000, created.b());
            assertEquals("particles", sink.strings.get(created.ref()));

            Event reserve = ev.get(1);
            assertEquals(1023, reserve.b());
            assertEquals(0, reserve.used());
            assertEquals(1023, reserve.aux());

            Event miss = ev.get(2);
            assertFalse(miss.has(Event.FLAG_HIT));
            assertEquals(reserve.a(), miss.a());
            assertEquals(1023, miss.b());
            assertEquals(1000, miss.c());
            assertEquals(39, miss.ref());
            assertTrue(miss.ref2() >= 0, "duration in ns");
            assertEquals(1023, miss.used());
            assertEquals(1023, miss.aux());

            Event hold = ev.get(3);
            assertEquals(miss.a(), hold.a());
            assertEquals(39, hold.ref());
            assertEquals(0, hold.used());
            assertEquals(1023, hold.aux());

            Event hit = ev.get(4);
            assertTrue(hit.has(Event.FLAG_HIT));
            assertEquals(miss.a(), hit.a());
            assertEquals(1000, hit.c());
            assertEquals(1023, hit.used());

            Event release = ev.get(6);
            assertEquals(miss.a(), release.a());
            assertEquals(1023, release.b());
            assertEquals(0, release.aux());
            Event oom = ev.get(8);
            assertEquals(50_000, oom.b());
            assertEquals(40_000, oom.c(), "bytes remaining under the ceiling");
            assertTrue(sink.strings.get(oom.ref()).startsWith("pool 'particles': cannot allocate 50000 bytes"));

            Event closed = ev.get(ev.size() - 1);
            assertEquals(0, closed.used());
            assertEquals(0, closed.aux());
        }
    }

    @Test
    void nothingIsPublishedWithoutASink() {
        try (Session session = new Session("quiet"); VirtualDevice device = new VirtualDevice(1 << 20)) {
            MemoryPool pool = new MemoryPool("p", device, MemoryPool.NO_LIMIT, 4, session);
            pool.allocate(10).close();
            CollectingSink sink = new CollectingSink();
            session.addSink(sink);
            session.flush();
            assertTrue(sink.events.isEmpty());
            assertEquals(1, sink.memories.size(), "the memory is still announced to a late sink");
        }
    }
}
