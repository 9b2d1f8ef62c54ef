package dev.arenascope.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.analysis.MemoryModel;
import dev.arenascope.core.analysis.ScopeSample;
import dev.arenascope.core.analysis.ScopeSampler;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.util.Progress;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.workloads.render.RenderWorkload;

class RenderWorkloadTest {
    static final Map<String, String> SMALL = Map.of("frames", "60", "width", "128", "height", "72", "triangles", "1500",
            "grow-by", "1500", "grow-every", "3", "arena", "6MiB");

    @ParameterizedTest
    @ValueSource(strings = {"host", "virtual"})
    void recordsScopesWithParamsAndAdaptsBatches(String device) {
        Workload w = Workloads.find("render");
        WorkloadResult[] r = new WorkloadResult[1];
        CollectingSink sink = ParticlesWorkloadTest.record(w, device, SMALL, r);
        sink.assertSound();
        assertEquals(1, sink.memories.stream().filter(m -> m.kind() == MemoryKind.ARENA).count());
        // every region in its own scope, with the params its size is driven by
        Map<String, Set<String>> params = new HashMap<>();
        Map<Integer, String> scopeNames = new HashMap<>();
        for (Event e : sink.of(EventKind.SCOPE_ENTER)) {
            scopeNames.put(e.ref2(), sink.string(e.ref()));
        }
        for (Event e : sink.of(EventKind.SCOPE_PARAM)) {
            params.computeIfAbsent(scopeNames.get(e.ref2()), k -> new TreeSet<>()).add(sink.string(e.ref()));
        }
        assertEquals(Set.of("frames"), params.get("batch"));
        assertEquals(Set.of("frames"), params.get("output"));
        assertEquals(Set.of("instances"), params.get("raster"));
        assertEquals(Set.of("pool", "fragments"), params.get("tiles"), "fragments noted inside the scope");
        assertEquals(Set.of("frames"), params.get("blur"));
        assertEquals(Set.of("frames"), params.get("tonemap"));
        assertEquals(Set.of("num_triangles"), params.get("scene_inputs"));
        // persistent inputs from the backward end, temporaries released by pointer restores
        assertTrue(sink.of(EventKind.ALLOC).stream().anyMatch(e -> e.has(Event.FLAG_BACKWARD)));
        assertTrue(sink.of(EventKind.POINTER_RESTORE).size() >= 3 * r[0].figures().get("batches"));

        assertEquals(60, r[0].figures().get("frames"));
        assertEquals(0, r[0].figures().get("overruns"), "the model-sized batches never overran");
        assertTrue(r[0].figures().get("arena_peak_bytes") <= 6L << 20);
        List<Long> sizes = batchSizes(sink, scopeNames);
        assertEquals(List.of(1L, 2L, 3L), sizes.subList(0, 3), "probe batches");
        long firstSized = sizes.get(3);
        long lastSized = sizes.get(sizes.size() - 2); // the last batch may be cut short by the frame count
        assertTrue(firstSized > 3, "the model allows more than the probes: " + sizes);
        assertTrue(lastSized < firstSized, "batches shrink as the scene grows: " + sizes);
        assertTrue(r[0].figures().get("worst_prediction_error_ppm") < 50_000, "live predictions within 5%: " + r[0].figures());
        if (device.equals("host")) {
            assertTrue(r[0].figures().get("pixels_written") > 60L * 128 * 72 / 20, "real pixels: " + r[0].figures());
        } else {
            assertEquals(0, r[0].figures().get("pixels_written"));
        }
    }

    private static List<Long> batchSizes(CollectingSink sink, Map<Integer, String> scopeNames) {
        List<Long> out = new ArrayList<>();
        for (Event e : sink.of(EventKind.SCOPE_PARAM)) {
            if ("batch".equals(scopeNames.get(e.ref2()))) {
                out.add(e.a());
            }
        }
        return out;
    }

    @Test
    void calibrationPredictsHeldOutBatchesWithin5Percent() {
        Workload w = Workloads.find("render");
        WorkloadResult[] r = new WorkloadResult[1];
        CollectingSink sink = ParticlesWorkloadTest.record(w, "virtual", SMALL, r);
        List<ScopeSample> samples = ScopeSampler.of(List.copyOf(sink.memories), sink.events, sink::string);
        List<ScopeSample> batches = samples.stream().filter(s -> s.name().equals("batch")).toList();
        assertTrue(batches.size() >= 8, "batches: " + batches.size());
        // fit on the first half of the batches (by time), predict the second half
        long cut = batches.get(batches.size() / 2).startNs();
        MemoryModel model = MemoryModel.fit(samples.stream().filter(s -> s.endNs() < cut).toList());
        assertTrue(model.scope("output").integral(), model.scope("output").formula());
        assertTrue(model.scope("raster").integral(), model.scope("raster").formula());
        assertTrue(model.scope("tiles").exact(), model.scope("tiles").formula());
        Map<Integer, Map<String, Long>> childParams = new HashMap<>();
        for (ScopeSample s : samples) {
            childParams.computeIfAbsent(s.parentId(), k -> new HashMap<>()).putAll(s.params());
        }
        int checked = 0;
        for (ScopeSample b : batches) {
            if (b.startNs() < cut) {
                continue;
            }
            Map<String, Long> p = childParams.get(b.scopeId());
            long predicted = model.predict(RenderWorkload.BATCH_FORMULA, p);
            long bound = model.bound(RenderWorkload.BATCH_FORMULA, p);
            double err = Math.abs(predicted - b.peakBytes()) / (double) b.peakBytes();
            assertTrue(err <= 0.05, "held-out batch " + p + ": predicted " + predicted + ", measured " + b.peakBytes());
            assertTrue(bound >= b.peakBytes(), "bound " + bound + " below measured " + b.peakBytes());
            checked++;
        }
        assertTrue(checked >= 4, "checked " + checked);
    }

    @Test
    void anEndlessRunCyclesItsSceneAndStopsWhenCancelled() {
        Workload w = Workloads.find("render");
        CollectingSink sink = new CollectingSink();
        int[] updates = {0};
        Progress stopAfter90 = new Progress() {
            long frames;

            @Override
            public void update(long done, long total, String stage) {
                frames = done;
                updates[0]++;
                assertEquals(-1, total);
            }

            @Override
            public boolean isCancelled() {
                return frames >= 90;
            }
        };
        WorkloadResult r;
        try (var session = new Session("demo");
             var device = new VirtualDevice(1L << 30)) {
            session.addSink(sink);
            r = w.run(session, device, w.parse(Map.of("frames", "0", "width", "64", "height", "48", "triangles", "500",
                    "grow-by", "500", "grow-every", "2", "max-triangles", "1500", "arena", "2MiB")), stopAfter90);
        }
        sink.assertSound();
        assertTrue(r.figures().get("frames") >= 90);
        assertTrue(r.figures().get("scenes") >= 2, "the scene cycled: " + r.figures());
        assertTrue(updates[0] > 0);
    }

    @Test
    void anArenaTooSmallForOneFrameSaysSo() {
        Workload w = Workloads.find("render");
        WorkloadResult[] r = new WorkloadResult[1];
        var e = assertThrows(RuntimeException.class, () -> ParticlesWorkloadTest.record(w, "virtual",
                Map.of("frames", "10", "arena", "1MiB", "triangles", "20000"), r));
        assertTrue(e.getMessage().contains("arena"), e.getMessage());
    }
}
