package dev.arenascope.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.plan.GreedyBySizePlanner;
import dev.arenascope.core.plan.MemoryPlan;
import dev.arenascope.core.plan.TensorRole;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.workloads.inference.NetworkGraph;
import dev.arenascope.workloads.inference.NetworkPlans;
import dev.arenascope.workloads.inference.ResNet50;
import dev.arenascope.workloads.inference.TransformerEncoder;

class InferenceWorkloadTest {
    static final Map<String, String> SMALL = Map.of("batch", "1", "resolution", "64", "sequence", "32", "layers", "2",
            "width", "128", "heads", "4", "max-sequence", "96", "runs", "2");

    @Test
    void resnet50ShapesMatchTheArchitecture() {
        NetworkGraph g = ResNet50.build(1, 224);
        long params = g.tensors().stream().filter(t -> t.role() == NetworkGraph.Role.WEIGHT)
                .filter(t -> !t.name().endsWith(".bn")).mapToLong(t -> t.bytes() / 4).sum();
        // 25.5 M weights without batch norm (conv + fc weights and fc bias)
        assertTrue(Math.abs(params - 25_549_352L) < 100_000, "parameters " + params);
        assertEquals(53, g.steps().stream().filter(s -> s.op().startsWith("conv")).count(), "convolutions");
        assertEquals(16, g.steps().stream().filter(s -> s.op().equals("add_relu")).count(), "bottleneck blocks");
        NetworkGraph.TensorSpec logits = g.tensors().stream().filter(t -> t.name().equals("logits")).findFirst().orElseThrow();
        assertEquals(4000, logits.bytes());
        NetworkGraph.TensorSpec stage4 = g.tensors().stream().filter(t -> t.name().equals("layer4.2.out")).findFirst().orElseThrow();
        assertEquals(List.of(1L, 2048L, 7L, 7L), Arrays.stream(stage4.shape()).boxed().toList());
        // a block's input lives until its residual add
        NetworkGraph.TensorSpec in = g.tensors().stream().filter(t -> t.name().equals("layer1.1.out")).findFirst().orElseThrow();
        int add = g.steps().stream().filter(s -> s.name().equals("layer1.2.add")).findFirst().orElseThrow().index();
        assertEquals(add, in.last());
    }

    @Test
    void transformerLayerHasBertBaseParameters() {
        NetworkGraph g = TransformerEncoder.build(1, 128, 1, 768, 12, 512);
        long params = g.tensors().stream().filter(t -> t.role() == NetworkGraph.Role.WEIGHT).mapToLong(t -> t.bytes() / 4).sum();
        assertTrue(Math.abs(params - 7_087_872L) < 10, "parameters " + params);
        assertEquals(2L * 512 * 768 * 4, g.bytes(NetworkGraph.Role.STATE), "K and V caches");
        assertThrows(IllegalArgumentException.class, () -> TransformerEncoder.build(1, 128, 1, 768, 10, 512));
    }

    @Test
    void planPacksActivationsWithinTheirLifetimes() {
        NetworkGraph g = ResNet50.build(2, 224);
        NetworkPlans.Planned p = NetworkPlans.plan(g, 256, new GreedyBySizePlanner(), 1_000_000_000L);
        MemoryPlan plan = p.plan();
        assertEquals(List.of(), plan.validate(), "a valid plan");
        assertTrue(p.scratch().height() >= g.activationLowerBound());
        assertTrue(p.scratch().height() < g.bytes(NetworkGraph.Role.ACTIVATION) / 4, "reuse: scratch far below the sum of activations");
        assertTrue(plan.constantArenas().get(NetworkPlans.DEVICE_BANK).staged());
        assertEquals(TensorRole.CONSTANT, plan.getAllocation("conv1.weight").binding().role());
    }

    @ParameterizedTest
    @ValueSource(strings = {"host", "virtual"})
    void recordsBindingsHydrationAndSteps(String device) {
        Workload w = Workloads.find("inference");
        WorkloadResult[] r = new WorkloadResult[1];
        CollectingSink sink = ParticlesWorkloadTest.record(w, device, SMALL, r);
        sink.assertSound();
        Set<MemoryKind> kinds = sink.memories.stream().map(MemoryInfo::kind).collect(Collectors.toSet());
        assertEquals(Set.of(MemoryKind.PLAN_SCRATCH, MemoryKind.PLAN_PERSISTENT, MemoryKind.PLAN_CONSTANT), kinds);
        assertEquals(2, sink.of(EventKind.PLAN_LOADED).size(), "one plan per model");
        NetworkGraph resnet = ResNet50.build(1, 64);
        NetworkGraph bert = TransformerEncoder.build(1, 32, 2, 128, 4, 96);
        assertEquals(resnet.tensors().size() + bert.tensors().size(), sink.of(EventKind.PLAN_BIND).size(), "every tensor bound");
        List<Event> hydrations = sink.of(EventKind.PLAN_HYDRATE);
        assertEquals(2, hydrations.size(), "weights hydrated once per model");
        long weightBytes = hydrations.stream().mapToLong(Event::b).sum();
        assertTrue(weightBytes >= resnet.bytes(NetworkGraph.Role.WEIGHT) + bert.bytes(NetworkGraph.Role.WEIGHT));
        assertEquals(2L * (resnet.steps().size() + bert.steps().size()),
                sink.of(EventKind.PLAN_STEP).stream().filter(e -> sink.memory(e.memory()).kind() == MemoryKind.PLAN_SCRATCH).count(),
                "every step of both runs");
        long activations = resnet.tensors().stream().filter(t -> t.role() == NetworkGraph.Role.ACTIVATION).count()
                + bert.tensors().stream().filter(t -> t.role() == NetworkGraph.Role.ACTIVATION).count();
        assertEquals(2 * activations, sink.of(EventKind.TENSOR_LIVE).stream()
                .filter(e -> sink.memory(e.memory()).kind() == MemoryKind.PLAN_SCRATCH).count());
        // scratch never holds more than its planned size
        for (Event e : sink.events) {
            MemoryInfo m = sink.memory(e.memory());
            if (m != null && m.kind() == MemoryKind.PLAN_SCRATCH) {
                assertTrue(e.used() <= m.capacity(), "scratch over its plan at " + e);
            }
        }
        if (device.equals("host")) {
            assertTrue(r[0].figures().get("resnet50.elements_written") > resnet.bytes(NetworkGraph.Role.ACTIVATION) / 4,
                    "real writes over every activation: " + r[0].figures());
            assertTrue(r[0].figures().get("transformer.elements_written") > 0);
        } else {
            assertEquals(0, r[0].figures().get("resnet50.elements_written"));
        }
    }
}
