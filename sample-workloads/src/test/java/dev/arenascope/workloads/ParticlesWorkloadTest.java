package dev.arenascope.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.device.Devices;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.util.Progress;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.workloads.particles.ParticleSystem;

class ParticlesWorkloadTest {

    static CollectingSink record(Workload w, String device, Map<String, String> options, WorkloadResult[] result) {
        CollectingSink sink = new CollectingSink();
        try (Session session = new Session(w.name()); MemoryDevice d = Devices.open(device).device()) {
            session.addSink(sink);
            result[0] = w.run(session, d, w.parse(options), Progress.NONE);
        }
        return sink;
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "virtual"})
    void recordsHitsMissesHoldsAndAShrinkingPopulation(String device) {
        Workload w = Workloads.find("particles");
        WorkloadResult[] r = new WorkloadResult[1];
        CollectingSink sink = record(w, device, Map.of("steps", "160", "rate", "60", "period", "80", "free-held-every", "100"), r);
        sink.assertSound();
        assertEquals(1, sink.memories.stream().filter(m -> m.kind() == MemoryKind.POOL).count());
        List<Event> requests = sink.of(EventKind.POOL_REQUEST);
        long hits = requests.stream().filter(e -> e.has(Event.FLAG_HIT)).count();
        long misses = requests.size() - hits;
        assertTrue(hits > misses, "hits " + hits + " misses " + misses);
        assertTrue(misses > 1, "population growth must miss into new bins");
        assertEquals(r[0].figures().get("hits"), hits);
        assertEquals(r[0].figures().get("misses"), misses);
        // a request's allocated bytes cover what was asked, in more than one bin
        assertTrue(requests.stream().allMatch(e -> e.b() >= e.c()));
        assertTrue(requests.stream().map(Event::ref).distinct().count() > 5, "requests spread over bins");
        assertTrue(sink.of(EventKind.POOL_HOLD).size() > 0, "closed buffers are held");
        assertTrue(sink.of(EventKind.POOL_RELEASE).size() > 0, "freeHeld releases held blocks");
        assertEquals(160, r[0].figures().get("steps"));
        assertTrue(r[0].figures().get("peak_population") > 1000);
        assertTrue(r[0].figures().get("neighbour_pairs") > 0, "the fluid found neighbours");
        assertEquals(device.startsWith("virtual") ? "virtual" : "host", r[0].device());
    }

    @Test
    void populationGrowsAndShrinks() {
        var sim = new ParticleSystem(1, 100, 100);
        int peak = 0;
        int after = Integer.MAX_VALUE;
        for (int s = 0; s < 150; s++) {
            int n = sim.nextSpawnCount();
            var upload = MemorySegment.ofArray(new byte[n * 20]);
            sim.prepareSpawn(n, upload);
            sim.spawn(n, upload);
            sim.cull();
            var keys = MemorySegment.ofArray(new byte[4 * sim.count()]);
            var counts = MemorySegment.ofArray(new byte[4 * 2304]);
            var starts = MemorySegment.ofArray(new byte[4 * 2305]);
            var sorted = MemorySegment.ofArray(new byte[4 * sim.count()]);
            var forces = MemorySegment.ofArray(new byte[8 * sim.count()]);
            sim.sortIntoCells(keys, counts, starts, sorted);
            sim.forces(keys, starts, sorted, forces);
            sim.integrate(forces, 0.004f);
            sim.endStep();
            if (s < 90) {
                peak = Math.max(peak, sim.count());
            } else {
                after = Math.min(after, sim.count());
            }
        }
        assertTrue(peak > 2000, "peak " + peak);
        assertTrue(sim.meanKineticEnergy() > 0);
        assertTrue(after < peak / 2, "population shrinks after the swell: " + after + " of " + peak);
    }

    @Test
    void badOptionsNameTheOption() {
        Workload w = Workloads.find("particles");
        var e = assertThrows(IllegalArgumentException.class, () -> w.parse(Map.of("steps", "x")).intValue("steps", 1, 10));
        assertTrue(e.getMessage().contains("--steps"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> w.parse(Map.of("bogus", "1")));
        assertTrue(e.getMessage().contains("--bogus"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Workloads.find("nope"));
        assertTrue(e.getMessage().contains("particles"), e.getMessage());
    }
}
