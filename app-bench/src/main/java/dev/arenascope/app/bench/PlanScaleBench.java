package dev.arenascope.app.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.arenascope.core.analysis.AllocationProblem;
import dev.arenascope.core.plan.HeightProfile;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.SweepPlanner;
import dev.arenascope.core.plan.TrainingSteps;

/**
 * The sweep planner at scale ({@link SweepPlanner}, what {@code plan} takes above
 * {@link SweepPlanner#AUTO_THRESHOLD} buffers), one run each, every packing checked for overlaps
 * before it counts:
 * <ul>
 *   <li>{@code plan.scale.N.*} for {@link TrainingSteps} problems of N = 100,000 and 1,000,000 buffers
 *       (seed 1; {@code --quick}: 10,000);</li>
 *   <li>{@code plan.scale.torch.*} for the allocations of the PyTorch snapshot the torch bench generates
 *       ({@link BenchFixtures#generatedSnapshot}: 1,000,000 allocations, 20,000 with {@code --quick}),
 *       as {@code plan --from-trace} makes them ({@link AllocationProblem}, sizes as allocated);
 *       {@code plan.scale.torch.buffers} their count.</li>
 * </ul>
 * Each with {@code lower_bound_bytes} (the load), {@code height_bytes}, {@code gap_pct} (height over
 * the load, in percent above it), {@code s} (wall seconds of planning, the problem already in memory),
 * {@code cpu_s} (the planning thread's CPU seconds) and {@code heap_mb} (the heap pools' peak usage
 * during planning, summed: an upper estimate of the heap it needed, the problem included). Time limit
 * 60 s a problem ({@code ARENASCOPE_PLAN_SCALE_LIMIT_S}); run under {@code -Xmx2g} for the issue's
 * budget. Then, from {@link HeightProfile}, where the gap sits: {@code steps} (steps with a buffer live),
 * {@code steps_above_2pct} (steps at which the arena's top is above 1.02 x the load), {@code
 * steps_live_98pct} (steps with at least 0.98 x the load live) and {@code holes_at_peak_pct} (the holes
 * below the top where the live bytes are at their most, in percent of the load).
 */
final class PlanScaleBench implements BenchSuite {

    @Override
    public String group() {
        return "plan-scale";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        String env = System.getenv("ARENASCOPE_PLAN_SCALE_LIMIT_S");
        double limitS = env != null ? Double.parseDouble(env) : 60;
        Map<String, Double> f = new LinkedHashMap<>();
        for (int n : quick ? new int[]{10_000} : new int[]{100_000, 1_000_000}) {
            measure("plan.scale." + n + ".", TrainingSteps.generate(n, 1), limitS, f);
        }
        BenchFixtures.GeneratedStore g = BenchFixtures.generatedStore(quick);
        PlanProblem torch = AllocationProblem.of(g.store(), g.cuda(), AllocationProblem.Sizes.ALLOCATED).problem();
        f.put("plan.scale.torch.buffers", (double) torch.size());
        measure("plan.scale.torch.", torch, limitS, f);
        return f;
    }

    private static void measure(String k, PlanProblem p, double limitS, Map<String, Double> f) {
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long c0 = mx.getCurrentThreadCpuTime();
        Packing s = new SweepPlanner().plan(p, Long.MAX_VALUE, (long) (limitS * 1e9));
        double cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
        long heap = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heap += pool.getPeakUsage().getUsed();
            }
        }
        if (!s.overlapFree()) {
            throw new IllegalStateException("bench: the sweep's packing of " + k + " overlaps");
        }
        f.put(k + "lower_bound_bytes", (double) s.lowerBound());
        f.put(k + "height_bytes", (double) s.height());
        f.put(k + "gap_pct", s.lowerBound() == 0 ? 0 : (s.height() - s.lowerBound()) * 100.0 / s.lowerBound());
        f.put(k + "s", s.elapsedNanos() / 1e9);
        f.put(k + "cpu_s", cpu);
        f.put(k + "heap_mb", heap / (double) (1 << 20));
        // where the gap sits (after the timing): steps above 1.02 x the load, and the holes at the live peak
        HeightProfile h = HeightProfile.of(p, s.offsets());
        long lb = s.lowerBound();
        f.put(k + "steps", (double) h.stepsAbove(-1));
        f.put(k + "steps_above_2pct", (double) h.stepsAbove(lb + lb / 50));
        f.put(k + "steps_live_98pct", (double) h.stepsLiveAtLeast(lb - lb / 50));
        f.put(k + "holes_at_peak_pct", lb == 0 ? 0 : h.holesAtLivePeak() * 100.0 / lb);
    }
}
