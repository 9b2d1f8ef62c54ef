package dev.arenascope.workloads;

import java.util.List;

import dev.arenascope.workloads.inference.InferenceWorkload;
import dev.arenascope.workloads.particles.ParticlesWorkload;
import dev.arenascope.workloads.render.RenderWorkload;

/** The registry of sample workloads, in the order help texts list them. Thread-safe (immutable). */
public final class Workloads {
    private static final List<Workload> ALL = List.of(
            new RenderWorkload(),
            new InferenceWorkload(),
            new ParticlesWorkload());

    private Workloads() {}

    /** Every workload. */
    public static List<Workload> all() {
        return ALL;
    }

    /**
     * The workload with this name.
     *
     * @throws IllegalArgumentException naming the known workloads when there is none
     */
    public static Workload find(String name) {
        for (Workload w : ALL) {
            if (w.name().equals(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "' (workloads: " + names() + ")");
    }

    /** The names, comma separated. */
    public static String names() {
        return String.join(", ", ALL.stream().map(Workload::name).toList());
    }
}
