package dev.arenascope.junitext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.junit.ArenaScopeExtension;
import dev.arenascope.core.junit.DeviceAllocationLimit;
import dev.arenascope.core.junit.DeviceFigures;
import dev.arenascope.core.junit.DeviceLeakLimit;
import dev.arenascope.core.junit.DeviceMemoryLimit;
import dev.arenascope.core.plan.ArenaUsage;
import dev.arenascope.core.plan.MemoryBank;
import dev.arenascope.core.plan.MemoryPlan;
import dev.arenascope.core.plan.PlanRuntime;
import dev.arenascope.core.plan.TensorAllocation;
import dev.arenascope.core.plan.TensorBinding;
import dev.arenascope.core.plan.TensorLifetime;
import dev.arenascope.core.plan.TensorRole;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.pool.PooledBuffer;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * The JUnit 5 extension, run through JUnit's own engine ({@link EngineTestKit}) on the test classes
 * nested here (static, so neither Surefire nor JUnit runs them on their own). In a package outside
 * {@code dev.arenascope.core}, so captured stacks keep these classes' frames.
 */
class ArenaScopeExtensionTest {
    @TempDir
    Path dir;

    @BeforeEach
    void setDir() {
        System.setProperty(ArenaScopeExtension.DIR_PROPERTY, dir.toString());
    }

    @AfterEach
    void clearProperties() {
        System.clearProperty(ArenaScopeExtension.DIR_PROPERTY);
        System.clearProperty(ArenaScopeExtension.KEEP_PROPERTY);
        System.clearProperty(ArenaScopeExtension.LIMIT_PROPERTY);
    }

    static EngineExecutionResults run(Class<?> cases) {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(cases)).execute();
    }

    static Map<String, Throwable> failures(EngineExecutionResults r) {
        Map<String, Throwable> out = new LinkedHashMap<>();
        for (Event e : r.testEvents().failed().list()) {
            out.put(e.getTestDescriptor().getDisplayName().replaceFirst("\\(.*\\)$", ""),
                    e.getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow());
        }
        return out;
    }

    static String formatBytes(long n) {
        return DeviceFigures.formatBytes(n);
    }

    static long binBytes(MemoryPool pool, long n) {
        return pool.allocSize(pool.binNumber(n));
    }

    // ---------------------------------------------------------------- peaks

    static class Peaks {
        static final List<PooledBuffer> HELD = new ArrayList<>();
        static long truth;

        static MemoryPool pool() {
            return MemoryPool.builder("uploads", new VirtualDevice(1L << 30)).build();
        }

        static PooledBuffer upload(MemoryPool pool, long n) {
            return pool.allocate(n);
        }

        @Test
        @DeviceMemoryLimit("64 KiB")
        void grows() {
            try (MemoryPool pool = pool()) {
                List<PooledBuffer> bufs = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    bufs.add(upload(pool, 32 << 10));   // the line that regressed
                }
                bufs.add(upload(pool, 1000));
                truth = 5 * binBytes(pool, 32 << 10) + binBytes(pool, 1000);
                bufs.forEach(PooledBuffer::close);
            }
        }

        @Test
        @DeviceMemoryLimit(value = "1 MiB", memory = "uploads")
        void fits() {
            try (MemoryPool pool = pool()) {
                for (int i = 0; i < 5; i++) {
                    upload(pool, 32 << 10).close();
                }
            }
        }
    }

    @Test
    void aTestOverItsLimitFailsWithTheShortMessageAndOneUnderPasses() throws Exception {
        EngineExecutionResults r = run(Peaks.class);
        r.testEvents().assertStatistics(s -> s.started(2).succeeded(1).failed(1));
        Throwable t = failures(r).get("grows");
        assertEquals(ArenaScopeExtension.DeviceLimitError.class, t.getClass());
        assertEquals(0, t.getStackTrace().length, "the message is the whole story");
        List<String> lines = t.getMessage().lines().toList();
        assertTrue(lines.size() <= 10, t.getMessage());
        long peak = Peaks.truth;
        assertEquals(String.format(Locale.ROOT,
                "device memory %s over its limit: peak %s > 64.0 KiB (@DeviceMemoryLimit(\"64 KiB\")) on 'uploads' (POOL, virtual)",
                DeviceFigures.formatBytes(peak - (64 << 10)),
                DeviceFigures.formatBytes(peak)), lines.get(0).replaceFirst(", virtual[^)]*\\)", ", virtual)"));
        assertEquals("  at the peak, by site:", lines.get(1));
        // the top sites with their bytes: the loop's five blocks, then the small one, each with the caller's line
        assertTrue(lines.get(2).matches(" +\\Q" + formatBytes(peak - binBytes(Peaks.pool(), 1000))
                + "\\E  ArenaScopeExtensionTest\\$Peaks\\.upload \\(ArenaScopeExtensionTest\\.java:\\d+\\) <- "
                + "ArenaScopeExtensionTest\\$Peaks\\.grows \\(ArenaScopeExtensionTest\\.java:\\d+\\)"), t.getMessage());
        assertTrue(lines.get(3).strip().startsWith("1023 B  ArenaScopeExtensionTest$Peaks.upload"), t.getMessage());
        assertTrue(!lines.get(2).endsWith(lines.get(3).substring(lines.get(3).indexOf("<-"))), "two callers, two rows");
        Path trace = dir.resolve(Peaks.class.getName().replace('$', '_') + ".grows.astrace");
        assertEquals("trace: " + trace + " (arenascope open / arenascope sites)", lines.getLast());
        assertTrue(Files.exists(trace), "the failed test's trace is kept");
        assertFalse(Files.exists(dir.resolve(Peaks.class.getName().replace('$', '_') + ".fits.astrace")), "a passing test's is not");
        // the kept trace reads back with the same peak
        var loaded = TraceFormats.load(trace);
        assertEquals(peak, DeviceFigures.of(loaded.store()).memories().getFirst().peakBytes());
        // the class's report
        JsonNode report = new ObjectMapper().readTree(dir.resolve(Peaks.class.getName().replace('$', '_') + ".json").toFile());
        assertEquals(Peaks.class.getName(), report.get("class").asText());
        Map<String, JsonNode> tests = new LinkedHashMap<>();
        report.get("tests").forEach(n -> tests.put(n.get("test").asText(), n));
        assertEquals(peak, tests.get("grows").get("peak_bytes").asLong());
        assertEquals("failed", tests.get("grows").get("outcome").asText());
        assertEquals(6, tests.get("grows").get("allocations").asLong());
        assertEquals(trace.toString(), tests.get("grows").get("trace").asText());
        assertEquals("passed", tests.get("fits").get("outcome").asText());
        assertTrue(tests.get("fits").get("trace").isNull());
        // each block went back before the next request: the pool reserved one and reused it
        assertEquals(binBytes(Peaks.pool(), 32 << 10), tests.get("fits").get("memories").get(0).get("reserved_peak_bytes").asLong());
        assertEquals(binBytes(Peaks.pool(), 32 << 10), tests.get("fits").get("peak_bytes").asLong());
        // tests by name, each with its customSmallerIsBetter entries (name, unit, value)
        assertEquals(List.of("fits", "grows"), List.copyOf(tests.keySet()));
        JsonNode growsPeak = report.get("benchmarks").get(2);
        assertEquals(Peaks.class.getName() + ".grows(): device peak", growsPeak.get("name").asText());
        assertEquals("bytes", growsPeak.get("unit").asText());
        assertEquals(peak, growsPeak.get("value").asLong());
        assertEquals(4, report.get("benchmarks").size());
    }

    // ---------------------------------------------------------------- leaks, counts, arenas, plans

    static class Leaks {
        static final Map<String, PooledBuffer> CACHE = new LinkedHashMap<>();
        static final List<ManualMemory> ARENAS = new ArrayList<>();
        static MemoryPool shared = MemoryPool.builder("shared", new VirtualDevice(1L << 30)).build();

        static PooledBuffer table(MemoryPool pool) {
            return CACHE.computeIfAbsent("table", k -> pool.allocate(64 << 10));
        }

        @BeforeEach
        void freshPool() {
            // built while the test records: its allocations are the test's
            shared = MemoryPool.builder("shared", new VirtualDevice(1L << 30)).build();
        }

        @Test
        @DeviceLeakLimit(value = "1 KiB", warmups = 1)
        void cacheWarmed() {
            table(shared);
            shared.allocate(1 << 20).close();
        }

        @Test
        @DeviceLeakLimit("1 KiB")
        void cacheCold() {
            CACHE.clear();
            table(shared);
        }

        @Test
        @DeviceLeakLimit(value = "16 B", warmups = 2)
        void arenaKeepsAPersistentTensor() {
            ManualMemory a = ManualMemory.builder().device(new VirtualDevice(1 << 20)).numBytes(1 << 16).name("frame").build();
            ARENAS.add(a);
            a.getPersistentTensor(DType.FLOAT32, 8);
        }

        @Test
        @DeviceAllocationLimit(3)
        void manyAllocations() {
            try (ManualMemory a = ManualMemory.builder().device(new VirtualDevice(1 << 20)).numBytes(1 << 16).name("scratch").build()) {
                for (int i = 0; i < 4; i++) {
                    a.getTensor(DType.FLOAT32, 16);
                }
            }
        }
    }

    @Test
    void leaksAreCaughtAfterTheWarmUpsAndCountsAreChecked() {
        EngineExecutionResults r = run(Leaks.class);
        r.testEvents().assertStatistics(s -> s.started(4).succeeded(1).failed(3));
        Map<String, Throwable> f = failures(r);
        List<String> cold = f.get("cacheCold").getMessage().lines().toList();
        assertTrue(cold.get(0).startsWith("device memory leaked: 68.0 KiB still in use after the run > 1.0 KiB "
                + "(@DeviceLeakLimit(\"1 KiB\")), 68.0 KiB of it on 'shared"), cold.get(0));
        assertEquals("  still in use, by site:", cold.get(1));
        assertTrue(cold.get(2).contains("table"), cold.toString());
        List<String> arena = f.get("arenaKeepsAPersistentTensor").getMessage().lines().toList();
        // two warm-ups left their tensors too, on arenas of their own: only the measured run's 32 bytes count
        assertEquals("device memory leaked: 32 B still in use after the run > 16 B (@DeviceLeakLimit(\"16 B\", warmups = 2)), "
                + "32 B of it on 'frame'", arena.get(0));
        assertEquals("device allocations over the limit: 4 > 3 (@DeviceAllocationLimit(3))",
                f.get("manyAllocations").getMessage().lines().findFirst().orElseThrow());
    }

    static class Plans {
        @Test
        @DeviceMemoryLimit(value = "512 B", memory = "two/scratch:hbm")
        void scratchOverflows(Session session) throws Exception {
            Map<String, MemoryBank> banks = new LinkedHashMap<>();
            banks.put("hbm", new MemoryBank("hbm", true));
            Map<String, TensorAllocation> t = new LinkedHashMap<>();
            t.put("a", new TensorAllocation(256, new TensorBinding(TensorRole.SCRATCH, "hbm", 0)));
            t.put("b", new TensorAllocation(512, new TensorBinding(TensorRole.SCRATCH, "hbm", 256)));
            Map<String, TensorLifetime> life = new LinkedHashMap<>();
            life.put("a", new TensorLifetime(0, 1));
            life.put("b", new TensorLifetime(1, 1));
            MemoryPlan plan = new MemoryPlan("two", 64, banks, t, Map.of("hbm", new ArenaUsage("hbm", 768)), Map.of(), Map.of(), life);
            try (VirtualDevice device = new VirtualDevice(1 << 20);
                 PlanRuntime rt = PlanRuntime.load(plan, device, session, Map.of())) {
                rt.run((step, runtime) -> { });
            }
        }
    }

    @Test
    void aPlanRuntimeGetsTheTestsSessionAndItsArenasAreChecked() {
        EngineExecutionResults r = run(Plans.class);
        r.testEvents().assertStatistics(s -> s.started(1).failed(1));
        String first = failures(r).get("scratchOverflows").getMessage().lines().findFirst().orElseThrow();
        assertTrue(first.startsWith("device memory 256 B over its limit: peak 768 B > 512 B (@DeviceMemoryLimit(\"512 B\", "
                + "memory = \"two/scratch:hbm\")) on 'two/scratch:hbm' (PLAN_SCRATCH"), first);
    }

    // ---------------------------------------------------------------- usage errors, defaults

    static class Bad {
        @Test
        @DeviceMemoryLimit("64 MB/s")
        void rate() {
        }

        @Test
        @DeviceLeakLimit(value = "1 MiB", warmups = -2)
        void warmups() {
        }

        @Test
        @DeviceMemoryLimit(value = "1 MiB", memory = "nope")
        void unknownMemory() {
            try (ManualMemory a = ManualMemory.builder().device(new VirtualDevice(1 << 20)).numBytes(1 << 16).name("frame").build()) {
                a.getTensor(DType.FLOAT32, 4);
            }
        }
    }

    @Test
    void badArgumentsAreConfigurationErrorsNamingTheTestAndTheArgument() {
        Map<String, Throwable> f = failures(run(Bad.class));
        String cls = Bad.class.getName();
        assertEquals("arenascope: " + cls + ".rate: @DeviceMemoryLimit(\"64 MB/s\"): '64 MB/s' is not a size (a number and one "
                + "of B, kB, MB, GB, KiB, MiB, GiB)", f.get("rate").getMessage());
        assertEquals("arenascope: " + cls + ".warmups: @DeviceLeakLimit(\"1 MiB\", warmups = -2): warmups = -2 is not a count "
                + "of runs (0 or more)", f.get("warmups").getMessage());
        assertEquals("arenascope: " + cls + ".unknownMemory: @DeviceMemoryLimit(\"1 MiB\", memory = \"nope\"): memory = \"nope\" "
                + "names no memory the test recorded (recorded: 'frame')", f.get("unknownMemory").getMessage());
        assertEquals(ExtensionConfigurationException.class, f.get("rate").getClass());
    }

    @ExtendWith(ArenaScopeExtension.class)
    static class Defaults {
        @Test
        void big() {
            try (ManualMemory a = ManualMemory.builder().device(new VirtualDevice(1 << 20)).numBytes(1 << 16).name("frame").build()) {
                a.getTensor(DType.FLOAT32, 1024);
            }
        }

        @Test
        void none() {
        }
    }

    @Test
    void theDefaultLimitAppliesToEveryTestOfAnExtendedClass() throws Exception {
        System.setProperty(ArenaScopeExtension.LIMIT_PROPERTY, "1 KiB");
        System.setProperty(ArenaScopeExtension.KEEP_PROPERTY, "none");
        EngineExecutionResults r = run(Defaults.class);
        r.testEvents().assertStatistics(s -> s.started(2).succeeded(1).failed(1));
        List<String> big = failures(r).get("big").getMessage().lines().toList();
        assertEquals("device memory 3.0 KiB over its limit: peak 4.0 KiB > 1.0 KiB (-Darenascope.junit.limit) on 'frame' "
                + "(ARENA, virtual)", big.get(0).replaceFirst(", virtual[^)]*\\)", ", virtual)"));
        assertEquals("trace: not kept (-Darenascope.junit.keep=failed or all keeps it)", big.getLast());
        try (var files = Files.list(dir)) {
            assertEquals(List.of(Defaults.class.getName().replace('$', '_') + ".json"),
                    files.map(p -> p.getFileName().toString()).toList());
        }
        JsonNode none = new ObjectMapper().readTree(dir.resolve(Defaults.class.getName().replace('$', '_') + ".json").toFile()).get("tests").get(1);
        assertEquals("none", none.get("test").asText());
        assertEquals(0, none.get("peak_bytes").asLong());
        assertNull(none.get("limits").get("leaked_bytes").isNull() ? null : none);
    }
}
