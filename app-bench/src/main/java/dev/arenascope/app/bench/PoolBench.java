package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.pool.PooledBuffer;
import dev.arenascope.core.record.Session;

/**
 * The pool's figures: {@code pool.hit_ns}, one allocate plus close served by a held block (target
 * at most 60 ns); {@code pool.hit_recording_ns}, the same while a sink records every event;
 * {@code pool.miss_virtual_ns}, one allocate plus close that goes to the (virtual) device each time.
 */
public final class PoolBench implements BenchSuite {

    @Override
    public String group() {
        return "pool";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        int rounds = quick ? 3 : 11;
        int warmups = quick ? 1 : 5;
        int ops = quick ? 100_000 : 2_000_000;
        Map<String, Double> figures = new LinkedHashMap<>();
        try (VirtualDevice device = new VirtualDevice(); Session session = new Session("bench-pool")) {
            MemoryPool pool = new MemoryPool("bench", device, MemoryPool.NO_LIMIT, MemoryPool.DEFAULT_MANTISSA_BITS, session);
            figures.put("pool.hit_ns", Medians.medianOf(warmups, rounds, () -> Medians.nsPerOp(ops, () -> hits(pool, ops))));

            session.addSink(batch -> { });
            figures.put("pool.hit_recording_ns", Medians.medianOf(warmups, rounds,
                    () -> Medians.nsPerOp(ops, () -> hits(pool, ops))));
            pool.close();
        }
        try (VirtualDevice device = new VirtualDevice(); Session session = new Session("bench-pool-miss")) {
            MemoryPool pool = new MemoryPool("bench-miss", device, MemoryPool.NO_LIMIT, MemoryPool.DEFAULT_MANTISSA_BITS, session);
            pool.stopHolding();
            int missOps = ops / 4;
            figures.put("pool.miss_virtual_ns", Medians.medianOf(warmups, rounds,
                    () -> Medians.nsPerOp(missOps, () -> hits(pool, missOps))));
            pool.close();
        }
        return figures;
    }

    /** {@code ops} allocate-and-close pairs over a few sizes of different bins. */
    private static long hits(MemoryPool pool, int ops) {
        long sink = 0;
        for (int i = 0; i < ops; i++) {
            try (PooledBuffer b = pool.allocate(1000 + ((i & 3) << 10))) {
                sink += b.address();
            }
        }
        return sink;
    }
}
