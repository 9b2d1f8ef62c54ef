package dev.arenascope.core.pool.torch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.trace.torch.SyntheticSnapshot;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;
import dev.arenascope.core.util.LongLongMap;

/**
 * The what-if replay on its fast path (blocks named by register and slot, one prepared trace shared by a
 * grid's replays on several threads) gives what a plain replay by addresses gives.
 */
class WhatIfReplayTest {

    /** The replay as its rules say it, by recorded address -> the model's address, with nothing prepared. */
    static long[] byAddresses(TorchAllocatorTrace.Device d, AllocatorSettings s) {
        CachingAllocatorModel m = new CachingAllocatorModel(s, new VirtualGpu(s.capacity()), null);
        LongLongMap at = new LongLongMap();
        for (TorchAllocatorTrace.Block b : d.startBlocks()) {
            at.put(b.address(), m.malloc(b.requested(), b.stream(), 0), 0);
        }
        long oom = -1;
        for (int i = 0; i < d.entries() && oom < 0; i++) {
            switch (d.action()[i]) {
                case TorchAllocatorTrace.ALLOC -> {
                    long got = m.malloc(d.size()[i], d.stream()[i], 0);
                    if (got < 0) {
                        oom = i;
                    }
                    at.put(d.address()[i], got, 0);
                }
                case TorchAllocatorTrace.FREE_REQUESTED -> {
                    long mine = at.get(d.address()[i], -1);
                    if (mine != -1) {
                        m.freeRequested(mine);
                    }
                }
                case TorchAllocatorTrace.FREE_COMPLETED -> {
                    long mine = at.remove(d.address()[i], -1);
                    if (mine != -1) {
                        m.freeCompleted(mine);
                    }
                }
                default -> { }
            }
        }
        CachingAllocatorModel.Peak p = m.peak();
        return new long[] {m.reservedPeak(), m.requestedPeak(), p.rounding(), p.splitRemainders(), p.cached(), m.segmentAllocs(), m.segmentFrees(), oom};
    }

    static long[] figures(WhatIfReplay.Outcome o) {
        CachingAllocatorModel.Peak p = o.peak();
        return new long[] {o.reservedPeak(), o.requestedPeak(), p.rounding(), p.splitRemainders(), p.cached(), o.segmentAllocs(), o.segmentFrees(), o.oomEntry()};
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3})
    void theGridOnThreadsGivesWhatEachPlainReplayGives(int threads, @TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("g.pickle");
        SyntheticSnapshot.write(f, SyntheticSnapshot.Spec.plain(5, 4_000));
        TorchAllocatorTrace.Device d = TorchAllocatorTrace.read(f).devices().getFirst();
        List<AllocatorSettings> grid = new ArrayList<>(WhatIfReplay.grid(AllocatorSettings.DEFAULTS.with("capacity", "3GiB")));
        grid.add(AllocatorSettings.DEFAULTS.with("capacity", "256MiB")); // runs out
        WhatIfReplay.Prepared p = WhatIfReplay.prepare(d);
        List<WhatIfReplay.Outcome> got = WhatIfReplay.runAll(p, grid, Math.max(1, threads));
        boolean anyOom = false;
        for (int k = 0; k < grid.size(); k++) {
            assertEquals(grid.get(k), got.get(k).settings());
            long[] want = byAddresses(d, grid.get(k));
            assertArrayEquals(want, figures(got.get(k)), grid.get(k).describe());
            anyOom |= got.get(k).outOfMemory();
        }
        assertTrue(anyOom, "the 256 MiB row should run out of memory");
    }
}
