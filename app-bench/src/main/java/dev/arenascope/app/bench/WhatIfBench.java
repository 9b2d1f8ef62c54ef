package dev.arenascope.app.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.core.pool.torch.AllocatorSettings;
import dev.arenascope.core.pool.torch.SnapshotCheck;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;

/**
 * The caching allocator model's figures.
 * <ul>
 *   <li>{@code whatif.replay_s}: seconds to replay the bench's generated snapshot
 *       ({@link BenchFixtures#generatedSnapshot}: {@value TorchBench#ALLOCATIONS} allocations and their
 *       frees; {@value TorchBench#QUICK_ALLOCATIONS} in quick mode) through the model under the default
 *       settings ({@link WhatIfReplay#run}, preparing the trace included), the snapshot already read;
 *       median of rounds after a warm-up; {@code whatif.replay_cpu_s} the same rounds' CPU seconds of the
 *       replaying thread (the steadier figure on a loaded machine). Target: at most 1 s for a million
 *       allocations.</li>
 *   <li>{@code whatif.grid_s}: the default {@code --grid} (the 12 settings of {@link WhatIfReplay#grid})
 *       on the same snapshot as {@code whatif --grid} runs it: the trace prepared once, the settings on
 *       {@code whatif.grid_threads} threads (the cores the JVM sees); {@code whatif.grid_cpu_s} the
 *       process's CPU seconds over it (the sum of the rows' work); {@code whatif.grid_serial_cpu_s} one
 *       round on one thread, its CPU seconds. Target: at most 10 s.</li>
 *   <li>{@code whatif.check_ms}: {@code whatif --check} on the magma27 fixture (5,163 entries), the file
 *       already read; {@code whatif.exact} is 1 when the model reproduces it exactly, else 0 (and the
 *       bench fails).</li>
 * </ul>
 */
final class WhatIfBench implements BenchSuite {

    @Override
    public String group() {
        return "whatif";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        Map<String, Double> f = new LinkedHashMap<>();
        Path file = BenchFixtures.generatedSnapshot(quick).file();
        TorchAllocatorTrace t = TorchAllocatorTrace.read(file);
        TorchAllocatorTrace.Device d = t.devices().getFirst();
        AllocatorSettings s = AllocatorSettings.DEFAULTS;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int warmups = quick ? 0 : 2, rounds = quick ? 1 : 5;
        double[] wall = new double[rounds], cpu = new double[rounds];
        for (int r = -warmups; r < rounds; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            WhatIfReplay.Outcome o = WhatIfReplay.run(d, s);
            if (o.requests() == 0) {
                throw new IllegalStateException("bench: the generated snapshot replayed no request");
            }
            if (r >= 0) {
                wall[r] = (System.nanoTime() - t0) / 1e9;
                cpu[r] = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
            }
        }
        f.put("whatif.replay_s", Medians.median(wall));
        f.put("whatif.replay_cpu_s", Medians.median(cpu));
        List<AllocatorSettings> grid = WhatIfReplay.grid(s);
        int threads = WhatIfReplay.defaultThreads();
        int gridRounds = quick ? 1 : 3;
        double[] gridCpu = new double[gridRounds];
        int[] g = {0};
        f.put("whatif.grid_s", Medians.medianOf(0, gridRounds, () -> {
            long c0 = processCpu();
            long t0 = System.nanoTime();
            WhatIfReplay.runAll(WhatIfReplay.prepare(d), grid, threads);
            double gridWall = (System.nanoTime() - t0) / 1e9;
            gridCpu[g[0]++] = (processCpu() - c0) / 1e9;
            return gridWall;
        }));
        f.put("whatif.grid_cpu_s", Medians.median(gridCpu));
        f.put("whatif.grid_threads", (double) threads);
        long c0 = mx.getCurrentThreadCpuTime();
        WhatIfReplay.runAll(WhatIfReplay.prepare(d), grid, 1);
        f.put("whatif.grid_serial_cpu_s", (mx.getCurrentThreadCpuTime() - c0) / 1e9);
        f.put("whatif.grid_settings", (double) grid.size());
        TorchAllocatorTrace magma = TorchAllocatorTrace.read(BenchFixtures.torch(System.getenv("ARENASCOPE_TORCH_FIXTURE"), TorchBench.FIXTURE));
        boolean[] exact = {true};
        f.put("whatif.check_ms", Medians.medianOf(quick ? 1 : 5, quick ? 3 : 15, () -> {
            long t0 = System.nanoTime();
            exact[0] &= SnapshotCheck.check(magma).exact();
            return (System.nanoTime() - t0) / 1e6;
        }));
        if (!exact[0]) {
            throw new IllegalStateException("bench: the model does not reproduce " + TorchBench.FIXTURE);
        }
        f.put("whatif.exact", 1.0);
        return f;
    }

    /** CPU seconds of the whole process so far (every thread), in nanoseconds; -1 where the JVM does not say. */
    private static long processCpu() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }
}
