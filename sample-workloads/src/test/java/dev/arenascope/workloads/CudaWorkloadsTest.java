package dev.arenascope.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.device.CudaDevice;
import dev.arenascope.testsupport.CollectingSink;

/** Each workload on a real GPU; skipped, with the driver's reason, where CUDA does not answer. */
class CudaWorkloadsTest {

    @ParameterizedTest
    @ValueSource(strings = {"render", "inference", "particles"})
    void recordsASoundTraceOnCuda(String name) {
        var why = CudaDevice.probe(0);
        assumeTrue(why.isEmpty(), () -> "no CUDA device: " + why.orElse(""));
        Workload w = Workloads.find(name);
        Map<String, String> options = switch (name) {
            case "render" -> RenderWorkloadTest.SMALL;
            case "inference" -> InferenceWorkloadTest.SMALL;
            default -> Map.of("steps", "120");
        };
        WorkloadResult[] r = new WorkloadResult[1];
        CollectingSink sink = ParticlesWorkloadTest.record(w, "cuda:0", options, r);
        sink.assertSound();
        assertEquals("cuda:0", r[0].device());
    }
}
