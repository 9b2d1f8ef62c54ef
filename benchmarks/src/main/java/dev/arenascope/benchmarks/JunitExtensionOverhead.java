package dev.arenascope.benchmarks;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.junit.ArenaScopeExtension;
import dev.arenascope.core.junit.DeviceAllocationLimit;
import dev.arenascope.core.junit.DeviceLeakLimit;
import dev.arenascope.core.junit.DeviceMemoryLimit;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.pool.PooledBuffer;

/**
 * The JUnit 5 extension's own cost (docs/performance.md, "JUnit extension"): a suite of {@value #TESTS}
 * small arena-and-pool tests ({@link Plain}: a 64 KiB arena with four tensors, a pool with four buffers)
 * run through JUnit's engine without the extension, and the same tests with the three limits
 * ({@link Limited}), the two suites in turns, {@code rounds} times after {@code warmups} rounds for the
 * JIT. The figures are the running thread's CPU time (the engine runs the tests on it) and the wall
 * time of each suite, medians over the rounds, and the whole process's CPU time (which counts the
 * drains' threads too); the ratio is of the same round's two suites, so the
 * machine's load falls on both alike.
 *
 * <p>Run (after {@code mvn -B -ntp -o -pl benchmarks -am package -DskipTests}):
 * {@code java -cp benchmarks/target/benchmarks.jar dev.arenascope.benchmarks.JunitExtensionOverhead [rounds] [warmups]}.
 * Kept traces (none: every test passes) and the per-class JSON go to a temporary directory.
 */
public final class JunitExtensionOverhead {
    static final int TESTS = 200;

    private JunitExtensionOverhead() {
    }

    /** One test's work: what both suites do. */
    static void body() {
        try (ManualMemory a = ManualMemory.builder().device(new VirtualDevice(1 << 20)).numBytes(1 << 16).name("frame").build();
             MemoryPool pool = MemoryPool.builder("uploads", new VirtualDevice(1L << 24)).build()) {
            for (int i = 0; i < 4; i++) {
                a.getTensor(DType.FLOAT32, 256 * (i + 1));
            }
            PooledBuffer[] bufs = new PooledBuffer[4];
            for (int i = 0; i < 4; i++) {
                bufs[i] = pool.allocate(4096L << i);
            }
            for (PooledBuffer b : bufs) {
                b.close();
            }
            a.reset();   // the tensors given back: no leak
        }
    }

    /** The suite without the extension. */
    public static class Plain {
        @RepeatedTest(TESTS)
        void step() {
            body();
        }
    }

    /** The same suite with a peak, a leak and an allocation limit on every test (the extension's defaults). */
    public static class Limited {
        @RepeatedTest(TESTS)
        @DeviceMemoryLimit("1 MiB")
        @DeviceLeakLimit("0")
        @DeviceAllocationLimit(16)
        void step() {
            body();
        }
    }

    private static long[] run(Class<?> suite, ThreadMXBean mx) {
        long c0 = mx.getCurrentThreadCpuTime();
        long q0 = processCpu();
        long t0 = System.nanoTime();
        EngineExecutionResults r = EngineTestKit.engine("junit-jupiter").selectors(selectClass(suite)).execute();
        long wall = System.nanoTime() - t0;
        long cpu = mx.getCurrentThreadCpuTime() - c0;
        long proc = processCpu() - q0;
        long ok = r.testEvents().succeeded().count();
        if (ok != TESTS) {
            throw new IllegalStateException(suite.getSimpleName() + ": " + ok + " of " + TESTS + " tests passed; the first "
                    + "failure: " + r.testEvents().failed().list().stream().findFirst()
                    .flatMap(e -> e.getPayload(org.junit.platform.engine.TestExecutionResult.class))
                    .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(Throwable::getMessage).orElse("?"));
        }
        return new long[] {cpu, wall, proc};
    }

    /** The whole process's CPU time (every thread: the drains', the collector's and the compiler's too). */
    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double median(List<Long> v) {
        long[] a = v.stream().mapToLong(Long::longValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2.0;
    }

    private static double medianOf(double[] v) {
        double[] a = v.clone();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2.0;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int warmups = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path dir = Files.createTempDirectory("arenascope-junit-bench-");
        System.setProperty(ArenaScopeExtension.DIR_PROPERTY, dir.toString());
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < warmups; i++) {
            run(Plain.class, mx);
            run(Limited.class, mx);
        }
        List<Long> plainCpu = new ArrayList<>();
        List<Long> plainWall = new ArrayList<>();
        List<Long> limitedCpu = new ArrayList<>();
        List<Long> limitedWall = new ArrayList<>();
        List<Long> plainProc = new ArrayList<>();
        List<Long> limitedProc = new ArrayList<>();
        double[] cpuRatio = new double[rounds];
        double[] wallRatio = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            boolean plainFirst = i % 2 == 0;   // in turns, each first every other round
            long[] p = plainFirst ? run(Plain.class, mx) : null;
            long[] l = run(Limited.class, mx);
            if (!plainFirst) {
                p = run(Plain.class, mx);
            }
            plainCpu.add(p[0]);
            plainWall.add(p[1]);
            limitedCpu.add(l[0]);
            limitedWall.add(l[1]);
            plainProc.add(p[2]);
            limitedProc.add(l[2]);
            cpuRatio[i] = (double) l[0] / p[0];
            wallRatio[i] = (double) l[1] / p[1];
        }
        double pc = median(plainCpu) / 1e6;
        double pw = median(plainWall) / 1e6;
        double lc = median(limitedCpu) / 1e6;
        double lw = median(limitedWall) / 1e6;
        System.out.printf(Locale.ROOT, "plain   suite (%d tests): median %.1f ms CPU, %.1f ms wall (%.3f ms CPU a test)%n",
                TESTS, pc, pw, pc / TESTS);
        System.out.printf(Locale.ROOT, "limited suite (%d tests): median %.1f ms CPU, %.1f ms wall (%.3f ms CPU a test)%n",
                TESTS, lc, lw, lc / TESTS);
        System.out.printf(Locale.ROOT, "the extension's own: %.3f ms CPU a test; same-round ratios (median of %d): "
                        + "CPU %.3fx, wall %.3fx (goal <= 1.10); load %.1f%n",
                (lc - pc) / TESTS, rounds, medianOf(cpuRatio), medianOf(wallRatio),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        System.out.printf(Locale.ROOT, "process CPU (every thread): plain %.1f ms, limited %.1f ms a suite; the extension's "
                        + "own %.3f ms a test%n",
                median(plainProc) / 1e6, median(limitedProc) / 1e6, (median(limitedProc) - median(plainProc)) / 1e6 / TESTS);
        try (var files = Files.list(dir)) {
            System.out.println("traces kept: " + files.filter(f -> f.toString().endsWith(".astrace")).count()
                    + " (none expected: every test passes)");
        }
    }
}
