package dev.arenascope.workloads.inference;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.arenascope.core.plan.ArenaUsage;
import dev.arenascope.core.plan.MemoryBank;
import dev.arenascope.core.plan.MemoryPlan;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.Planner;
import dev.arenascope.core.plan.TensorAllocation;
import dev.arenascope.core.plan.TensorBinding;
import dev.arenascope.core.plan.TensorLifetime;
import dev.arenascope.core.plan.TensorRole;
import dev.arenascope.workloads.inference.NetworkGraph.Role;
import dev.arenascope.workloads.inference.NetworkGraph.TensorSpec;

/**
 * Turns a {@link NetworkGraph} into a {@link MemoryPlan} the way an ahead-of-time compiler does:
 * activations packed into one scratch arena by a {@link Planner} from their lifetimes; weights laid
 * out back to back in a staged constant arena hydrated from the read-only weight blob; state (KV
 * caches) back to back in a persistent arena. Tensor ids are the graph's tensor names.
 */
public final class NetworkPlans {
    /** The writable device bank every runtime arena lives in. */
    public static final String DEVICE_BANK = "device";
    /** The read-only bank holding the weight blob the constants are hydrated from. */
    public static final String BLOB_BANK = "weights_blob";

    private NetworkPlans() {}

    /** A plan and the scratch packing it was made from. */
    public record Planned(MemoryPlan plan, Packing scratch) {}

    /**
     * Plans {@code graph}.
     *
     * @param alignment every offset's alignment in bytes (a power of two)
     * @param planner   lays out the scratch arena
     * @param timeLimitNanos the planner's time budget
     */
    public static Planned plan(NetworkGraph graph, long alignment, Planner planner, long timeLimitNanos) {
        List<PlanBuffer> buffers = new ArrayList<>();
        for (TensorSpec t : graph.tensors()) {
            if (t.role() == Role.ACTIVATION) {
                buffers.add(new PlanBuffer(t.name(), t.first(), t.last() + 1, t.bytes()));
            }
        }
        Packing packing = planner.plan(new PlanProblem(buffers, alignment), Long.MAX_VALUE, timeLimitNanos);
        Map<String, Long> scratchOffsets = packing.offsetsById();
        Map<String, TensorAllocation> allocs = new LinkedHashMap<>();
        Map<String, TensorLifetime> lifetimes = new LinkedHashMap<>();
        long constants = 0;
        long state = 0;
        for (TensorSpec t : graph.tensors()) {
            switch (t.role()) {
                case ACTIVATION -> {
                    allocs.put(t.name(), new TensorAllocation(t.bytes(),
                            new TensorBinding(TensorRole.SCRATCH, DEVICE_BANK, scratchOffsets.get(t.name()))));
                    lifetimes.put(t.name(), new TensorLifetime(t.first(), t.last()));
                }
                case WEIGHT -> {
                    allocs.put(t.name(), new TensorAllocation(t.bytes(),
                            new TensorBinding(TensorRole.CONSTANT, DEVICE_BANK, constants, BLOB_BANK)));
                    constants = alignUp(constants + t.bytes(), alignment);
                }
                case STATE -> {
                    allocs.put(t.name(), new TensorAllocation(t.bytes(), new TensorBinding(TensorRole.PERSISTENT, DEVICE_BANK, state)));
                    state = alignUp(state + t.bytes(), alignment);
                }
            }
        }
        Map<String, MemoryBank> banks = new LinkedHashMap<>();
        banks.put(DEVICE_BANK, new MemoryBank(DEVICE_BANK, true));
        banks.put(BLOB_BANK, new MemoryBank(BLOB_BANK, false));
        Map<String, ArenaUsage> persistent = state > 0 ? Map.of(DEVICE_BANK, new ArenaUsage(DEVICE_BANK, state)) : Map.of();
        MemoryPlan plan = new MemoryPlan(graph.name() + "-b" + graph.batch(), alignment, banks, allocs,
                Map.of(DEVICE_BANK, new ArenaUsage(DEVICE_BANK, packing.height())), persistent,
                Map.of(DEVICE_BANK, new ArenaUsage(DEVICE_BANK, constants, BLOB_BANK)), lifetimes);
        return new Planned(plan, packing);
    }

    /** The weight blob: every weight's float32 values at its constant offset, deterministic from {@code seed}. */
    public static byte[] weightBlob(NetworkGraph graph, MemoryPlan plan, long seed) {
        long size = plan.constantArenas().get(DEVICE_BANK).size();
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(graph.name() + ": a weight blob of " + size + " bytes exceeds what a Java array holds");
        }
        byte[] blob = new byte[(int) size];
        FloatBuffer f = ByteBuffer.wrap(blob).order(ByteOrder.nativeOrder()).asFloatBuffer();
        SplittableRandom random = new SplittableRandom(seed);
        for (TensorSpec t : graph.tensors()) {
            if (t.role() != Role.WEIGHT) {
                continue;
            }
            int at = (int) (plan.getAllocation(t.name()).binding().offset() / 4);
            int n = (int) (t.bytes() / 4);
            float scale = (float) (0.5 / Math.sqrt(Math.max(1, n / Math.max(1, t.shape()[0]))));
            for (int i = 0; i < n; i++) {
                f.put(at + i, (float) (random.nextDouble() * 2 - 1) * scale);
            }
        }
        return blob;
    }

    private static long alignUp(long v, long a) {
        return (v + a - 1) / a * a;
    }
}
