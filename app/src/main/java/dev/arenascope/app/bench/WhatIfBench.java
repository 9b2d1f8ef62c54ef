package dev.arenascope.app.bench;

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
 *       settings ({@link WhatIfReplay#run}), the snapshot already read; median of rounds after a warm-up.
 *       Target: at most 1 s for a million allocations.</li>
 *   <li>{@code whatif.grid_s}: the default {@code --grid} (the 12 settings of {@link WhatIfReplay#grid})
 *       on the same snapshot, one after another on one thread. Target: at most 10 s.</li>
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
        f.put("whatif.replay_s", Medians.medianOf(quick ? 0 : 2, quick ? 1 : 5, () -> {
            long t0 = System.nanoTime();
            WhatIfReplay.Outcome o = WhatIfReplay.run(d, s);
            if (o.requests() == 0) {
                throw new IllegalStateException("bench: the generated snapshot replayed no request");
            }
            return (System.nanoTime() - t0) / 1e9;
        }));
        List<AllocatorSettings> grid = WhatIfReplay.grid(s);
        f.put("whatif.grid_s", Medians.medianOf(0, quick ? 1 : 3, () -> {
            long t0 = System.nanoTime();
            for (AllocatorSettings g : grid) {
                WhatIfReplay.run(d, g);
            }
            return (System.nanoTime() - t0) / 1e9;
        }));
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
}
