package dev.arenascope.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.device.HostDevice;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.MemoryInfo;

/** Pools built by name; a limit shown apart from a capacity. */
class MemoryPoolBuilderTest {

    @Test
    void namedLimitsAndTheirCapacities() {
        try (Session session = new Session("b"); VirtualDevice device = new VirtualDevice(1 << 24); HostDevice host = new HostDevice()) {
            MemoryPool chosen = MemoryPool.builder("chosen", device).limitBytes(1 << 20).mantissaBits(2).session(session).build();
            assertEquals(1 << 20, chosen.maxAllocBytes());
            MemoryPool none = MemoryPool.builder("none", device).noLimit().session(session).build();
            assertEquals(MemoryPool.NO_LIMIT, none.maxAllocBytes());
            MemoryPool byDefault = MemoryPool.builder("default", host).session(session).build();
            assertEquals(MemoryPool.defaultMaxAllocBytes(host), byDefault.maxAllocBytes());

            MemoryInfo c = session.memories().get(0);
            assertEquals(1 << 20, c.capacity(), "a chosen limit is the pool's capacity line");
            assertEquals("2", c.attributes().get("mantissaBits"));
            MemoryInfo d = session.memories().get(2);
            assertEquals(0, d.capacity(), "the host's default ceiling (80% of its memory) is no capacity");
            assertEquals(Long.toString(MemoryPool.defaultMaxAllocBytes(host)), d.attributes().get("maxAllocBytes"));
            assertEquals("device default", d.attributes().get("limitSource"));
            assertEquals("none", session.memories().get(1).attributes().get("maxAllocBytes"));
            for (MemoryPool p : new MemoryPool[] {chosen, none, byDefault}) {
                p.close();
            }
        }
    }

    @Test
    void badSettingsThrowNamingThePool() {
        try (VirtualDevice device = new VirtualDevice(1 << 20)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MemoryPool.builder("p", device).limitBytes(0));
            assertEquals("pool 'p': limit must be positive, got 0 bytes", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> MemoryPool.builder("p", device).mantissaBits(17));
            assertThrows(NullPointerException.class, () -> MemoryPool.builder(null, device));
        }
    }

    @Test
    void withoutASessionThePoolReportsToTheCurrentOne() {
        try (Session session = new Session("current"); VirtualDevice device = new VirtualDevice(1 << 20);
             Session.Current c = session.makeCurrent(); MemoryPool p = MemoryPool.builder("p", device).build()) {
            assertSame(session, Session.current());
            assertEquals("p", session.memories().getFirst().name());
        }
    }
}
