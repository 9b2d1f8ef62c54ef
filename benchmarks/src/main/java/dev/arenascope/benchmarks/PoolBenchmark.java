package dev.arenascope.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.pool.Bins;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.pool.PooledBuffer;
import dev.arenascope.core.record.Session;

/**
 * The memory pool's hot paths: one allocate plus close served by a held block (the hit path, the
 * figure {@code pool.hit_ns} of {@code arenascope bench}), the same with two threads sharing the
 * pool, a request that misses and goes to the (virtual) device, and the bin math alone.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PoolBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Benchmark)
public class PoolBenchmark {
    @Param({"4"})
    int mantissaBits;

    private VirtualDevice device;
    private Session session;
    private MemoryPool holding;
    private MemoryPool notHolding;
    private final long size = 1000;
    private long counter;

    @Setup(Level.Trial)
    public void setUp() {
        device = new VirtualDevice();
        session = new Session("jmh-pool");
        holding = new MemoryPool("hit", device, MemoryPool.NO_LIMIT, mantissaBits, session);
        notHolding = new MemoryPool("miss", device, MemoryPool.NO_LIMIT, mantissaBits, session);
        notHolding.stopHolding();
        holding.allocate(size).close();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        holding.close();
        notHolding.close();
        session.close();
        device.close();
    }

    /** One allocate plus close served by a held block. */
    @Benchmark
    public long hit() {
        try (PooledBuffer b = holding.allocate(size)) {
            return b.address();
        }
    }

    /** The hit path with two threads sharing the pool (one lock). */
    @Benchmark
    @Threads(2)
    public long hitTwoThreads() {
        try (PooledBuffer b = holding.allocate(size)) {
            return b.address();
        }
    }

    /** One allocate plus close that goes to the virtual device each time (the pool does not hold). */
    @Benchmark
    public long missVirtual() {
        try (PooledBuffer b = notHolding.allocate(size)) {
            return b.address();
        }
    }

    /** The bin number and block size of a size: a few shifts and masks. */
    @Benchmark
    public long binMath() {
        long x = (++counter * 0x9E3779B97F4A7C15L) >>> (2 + (counter & 31));
        return Bins.allocSize(Bins.binNumber(x, mantissaBits), mantissaBits);
    }
}
