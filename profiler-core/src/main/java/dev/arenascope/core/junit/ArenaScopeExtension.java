package dev.arenascope.core.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.platform.commons.support.AnnotationSupport;

import dev.arenascope.core.ArenaScope;
import dev.arenascope.core.Recording;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.record.StackCapture;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Records each test with {@link ArenaScope} and checks its device-memory limits
 * ({@link DeviceMemoryLimit}, {@link DeviceLeakLimit}, {@link DeviceAllocationLimit}).
 *
 * <p><b>What is recorded.</b> From before the test's {@code @BeforeEach} methods to the end of the test
 * method: every arena and pool built without an explicit session in that time reports to the test's
 * recording ({@link Session#current()}); a plan runtime, or anything built with an explicit session,
 * gets it as a parameter: a test or {@code @BeforeEach} method may declare a {@link Session} or a
 * {@link Recording} parameter. With {@link DeviceLeakLimit#warmups()}, the test method runs that many
 * times first; a marker ({@link DeviceFigures#MEASURE_MARKER}) starts the measured run.
 *
 * <p><b>Failure.</b> A broken limit fails the test with at most 10 lines: the limit, the peak, the
 * memory, the top three sites at the peak with their bytes, the kept trace's path. The trace
 * ({@code .astrace}, for {@code arenascope open}) is kept for failed tests; a JSON report per test class
 * ({@code CLASS.json}: per test, peak per memory, leaks, allocations) is written when the class ends.
 *
 * <p><b>Settings</b> (system properties, e.g. in Surefire's {@code systemPropertyVariables}):
 * {@value #DIR_PROPERTY} (default {@code target/arenascope}), {@value #KEEP_PROPERTY}
 * ({@code failed}, {@code all}, {@code none}), {@value #STACKS_PROPERTY} (frames per allocation, default 16,
 * 0 off), {@value #LIMIT_PROPERTY} (a peak limit for tests of an extended class without
 * {@link DeviceMemoryLimit}). A malformed annotation or setting is an
 * {@link ExtensionConfigurationException} naming the test and the argument.
 *
 * <p>Tests of one class may run in parallel only if their allocators name their sessions explicitly:
 * {@link Session#current()} is process-wide.
 */
public final class ArenaScopeExtension implements BeforeEachCallback, AfterEachCallback, InvocationInterceptor,
        ParameterResolver {
    public static final String DIR_PROPERTY = "arenascope.junit.dir";
    public static final String KEEP_PROPERTY = "arenascope.junit.keep";
    public static final String STACKS_PROPERTY = "arenascope.junit.stacks";
    public static final String LIMIT_PROPERTY = "arenascope.junit.limit";
    public static final String BUFFER_PROPERTY = "arenascope.junit.buffer";

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(ArenaScopeExtension.class);
    private static final int SITES = 3;

    /** The limits of one test; null fields: no such limit. */
    record Limits(Long memory, String memoryOf, String memoryCall, Long leaks, String leaksOf, int warmups,
                  String leaksCall, Long allocations, String allocationsOf, String allocationsCall) {
        boolean any() {
            return memory != null || leaks != null || allocations != null;
        }

        Map<String, Object> json() {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("memory_bytes", memory);
            o.put("memory", memoryOf);
            o.put("leaked_bytes", leaks);
            o.put("leaks_memory", leaksOf);
            o.put("warmups", warmups);
            o.put("allocations", allocations);
            o.put("allocations_memory", allocationsOf);
            return o;
        }
    }

    private record Run(Recording recording, Session.Current current, EventStore store, Limits limits) {}

    // ---------------------------------------------------------------- callbacks

    @Override
    public void beforeEach(ExtensionContext ctx) {
        Limits limits = limits(ctx);
        int stacks = intProperty(ctx, STACKS_PROPERTY, 16);
        // recorded into memory: the figures are read from the store, and the trace is written from it only
        // when it is kept (a failed test by default), so a passing test costs no file
        // a buffer of BUFFER_PROPERTY events (default 2^14, 1 MiB) rather than a process recording's 2^17
        // (8 MiB, zeroed when the test first publishes): the drain empties it every 2 ms, and a test that
        // publishes faster than that loses events and fails saying so (see check)
        // short-lived: an exact clock (a test publishes few events, so a clock read each costs nothing that
        // matters, and the session holds no process-wide ticker) and a drain on a virtual thread (a
        // platform thread's start and end were a fifth of the extension's own cost a test)
        Session session = Session.shortLived(ctx.getUniqueId(), bufferProperty(ctx));
        if (stacks > 0) {
            session.captureStacks(StackCapture.all(stacks));
        }
        EventStore store = new EventStore(ctx.getDisplayName());
        Recording rec = Recording.of(session).quiet();
        Session.Current current = session.makeCurrent();
        try {
            session.addSink(store);
        } catch (RuntimeException e) {
            rec.close();
            current.close();
            session.close();
            throw e;
        }
        ctx.getStore(NS).put(Run.class, new Run(rec, current, store, limits));
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext ctx) throws Throwable {
        Run run = ctx.getStore(NS).get(Run.class, Run.class);
        if (run != null) {
            Method m = call.getExecutable();
            m.setAccessible(true);
            for (int i = 0; i < run.limits().warmups(); i++) {
                try {
                    m.invoke(call.getTarget().orElse(null), call.getArguments().toArray());
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
            Session s = run.recording().session();
            s.publish(EventKind.MARKER, 0, -1, 0, 0, 0, 0, 0, s.intern(DeviceFigures.MEASURE_MARKER), -1);
        }
        invocation.proceed();
    }

    @Override
    public void afterEach(ExtensionContext ctx) {
        Run run = ctx.getStore(NS).remove(Run.class, Run.class);
        if (run == null) {
            return;
        }
        run.recording().close();   // everything published is in the store now
        run.current().close();
        run.recording().session().close();
        Recording.Result written = run.recording().result();
        DeviceFigures fig = DeviceFigures.of(run.store());
        List<Violation> violations = check(ctx, fig, run.limits());
        if (written.sessionLost() > 0 && run.limits().any()) {
            // figures missing events cannot pass a limit: the test published faster than its buffer drains
            violations.add(0, new Violation("device memory not measured: " + written.sessionLost() + " events lost in the "
                    + "test's buffer (raise -D" + BUFFER_PROPERTY + ", now " + bufferProperty(ctx) + ")", null, List.of()));
        }
        boolean failed = !violations.isEmpty() || ctx.getExecutionException().isPresent();
        String keep = System.getProperty(KEEP_PROPERTY, "failed");
        // the file's name is made only for a trace that is kept (a passing test's is not, by default)
        Path file = keep.equals("all") || keep.equals("failed") && failed ? traceFile(ctx) : null;
        boolean kept = file != null && save(run, file);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("test", ctx.getRequiredTestMethod().getName());
        result.put("display_name", ctx.getDisplayName());
        result.put("outcome", failed ? "failed" : "passed");
        List<Object> mems = new ArrayList<>();
        long peak = 0;
        long leaked = 0;
        long allocations = 0;
        for (DeviceFigures.Memory m : fig.memories()) {
            mems.add(DeviceFigures.json(m));
            peak = Math.max(peak, m.peakBytes());
            leaked += m.leakedBytes();
            allocations += m.allocations();
        }
        result.put("peak_bytes", peak);
        result.put("leaked_bytes", leaked);
        result.put("allocations", allocations);
        result.put("memories", mems);
        result.put("limits", run.limits().json());
        result.put("lost_events", written.sessionLost());
        result.put("violations", violations.stream().map(Violation::head).toList());
        result.put("trace", kept ? file.toString() : null);
        classReport(ctx).add(result);
        if (!violations.isEmpty()) {
            throw new DeviceLimitError(message(violations, kept ? file : null));
        }
    }

    /**
     * Writes the test's recording from its store to its {@code .astrace} (replacing an earlier one whole);
     * false, said on stderr, when it cannot be written (the test's verdict stands).
     */
    private static boolean save(Run run, Path file) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = dir.resolve(file.getFileName() + ".tmp");
            run.store().replayTo(new AstraceWriter(tmp));   // closes the writer
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (IOException | UncheckedIOException e) {
            System.err.println("arenascope: " + file + ": the trace could not be kept: " + e.getMessage());
            return false;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext ctx) {
        Class<?> t = p.getParameter().getType();
        return t == Session.class || t == Recording.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext ctx) {
        Run run = ctx.getStore(NS).get(Run.class, Run.class);
        if (run == null) {
            throw new ParameterResolutionException(
                    "ArenaScopeExtension records tests only: " + p.getParameter() + " is asked for outside one");
        }
        return p.getParameter().getType() == Session.class ? run.recording().session() : run.recording();
    }

    // ---------------------------------------------------------------- limits

    /**
     * A test method's limits, read from its annotations once per (class, method, {@code -D} limit): the
     * annotation lookups walk the method, its class and the enclosing classes, and a repeated or
     * parameterized test asks again for every invocation. A configuration error is not kept: it is
     * raised at every invocation, as the first time.
     */
    static Limits limits(ExtensionContext ctx) {
        Method method = ctx.getRequiredTestMethod();
        Class<?> cls = ctx.getRequiredTestClass();
        LimitsKey key = new LimitsKey(cls, method, System.getProperty(LIMIT_PROPERTY));
        Limits known = LIMITS.get(key);
        if (known != null) {
            return known;
        }
        Limits read = readLimits(method, cls);
        if (LIMITS.size() < LIMITS_KEPT) {
            LIMITS.put(key, read);
        }
        return read;
    }

    private record LimitsKey(Class<?> cls, Method method, String property) {}

    /** Methods whose limits are kept (a suite's test methods; past it they are read each time). */
    private static final int LIMITS_KEPT = 1 << 16;
    private static final Map<LimitsKey, Limits> LIMITS = new ConcurrentHashMap<>();

    private static Limits readLimits(Method method, Class<?> cls) {
        String test = cls.getName() + "." + method.getName();
        try {
            Optional<DeviceMemoryLimit> mem = find(method, cls, DeviceMemoryLimit.class);
            Long memory = null;
            String memoryOf = null;
            String memoryCall = null;
            if (mem.isPresent()) {
                memoryCall = "@DeviceMemoryLimit(\"" + mem.get().value() + "\"" + memoryArg(mem.get().memory()) + ")";
                memory = size(memoryCall, mem.get().value());
                memoryOf = emptyToNull(mem.get().memory());
            } else if (System.getProperty(LIMIT_PROPERTY) != null) {
                memoryCall = "-D" + LIMIT_PROPERTY;
                memory = size(memoryCall, System.getProperty(LIMIT_PROPERTY));
            }
            Optional<DeviceLeakLimit> leak = find(method, cls, DeviceLeakLimit.class);
            Long leaks = null;
            String leaksCall = null;
            int warmups = 0;
            if (leak.isPresent()) {
                leaksCall = "@DeviceLeakLimit(\"" + leak.get().value() + "\""
                        + (leak.get().warmups() != 0 ? ", warmups = " + leak.get().warmups() : "") + memoryArg(leak.get().memory()) + ")";
                leaks = size(leaksCall, leak.get().value());
                warmups = leak.get().warmups();
                if (warmups < 0) {
                    throw new IllegalArgumentException(leaksCall + ": warmups = " + warmups + " is not a count of runs (0 or more)");
                }
            }
            Optional<DeviceAllocationLimit> alloc = find(method, cls, DeviceAllocationLimit.class);
            Long allocations = null;
            String allocationsCall = null;
            if (alloc.isPresent()) {
                allocationsCall = "@DeviceAllocationLimit(" + alloc.get().value() + memoryArg(alloc.get().memory()) + ")";
                allocations = alloc.get().value();
                if (allocations < 0) {
                    throw new IllegalArgumentException(allocationsCall + ": " + allocations + " is not a count of allocations (0 or more)");
                }
            }
            return new Limits(memory, memoryOf, memoryCall, leaks, leak.map(l -> emptyToNull(l.memory())).orElse(null),
                    warmups, leaksCall, allocations, alloc.map(a -> emptyToNull(a.memory())).orElse(null), allocationsCall);
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("arenascope: " + test + ": " + e.getMessage());
        }
    }

    private static <A extends Annotation> Optional<A> find(Method m, Class<?> cls, Class<A> type) {
        Optional<A> a = AnnotationSupport.findAnnotation(m, type);
        for (Class<?> c = cls; a.isEmpty() && c != null; c = c.getEnclosingClass()) {
            a = AnnotationSupport.findAnnotation(c, type);
        }
        return a;
    }

    private static String memoryArg(String memory) {
        return memory.isEmpty() ? "" : ", memory = \"" + memory + "\"";
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static long size(String call, String text) {
        try {
            return DeviceFigures.parseSize(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(call + ": " + e.getMessage());
        }
    }

    private static int bufferProperty(ExtensionContext ctx) {
        int n = intProperty(ctx, BUFFER_PROPERTY, 1 << 14);
        if (n < 16 || n > 1 << 24 || Integer.bitCount(n) != 1) {
            throw new ExtensionConfigurationException("arenascope: " + ctx.getUniqueId() + ": -D" + BUFFER_PROPERTY + "=" + n
                    + " is not a power of two from 16 to 16777216 (events the test's buffer holds)");
        }
        return n;
    }

    private static int intProperty(ExtensionContext ctx, String name, int fallback) {
        String v = System.getProperty(name);
        if (v == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ExtensionConfigurationException("arenascope: " + ctx.getUniqueId() + ": -D" + name + "=" + v
                + " is not a count (0 or more)");
    }

    // ---------------------------------------------------------------- checking

    /** One broken limit: its first line and the sites under it (null: none to show). */
    record Violation(String head, String sitesTitle, List<Map.Entry<String, Long>> sites) {}

    static List<Violation> check(ExtensionContext ctx, DeviceFigures fig, Limits lim) {
        String test = ctx.getRequiredTestClass().getName() + "." + ctx.getRequiredTestMethod().getName();
        List<Violation> out = new ArrayList<>();
        if (lim.memory() != null) {
            List<DeviceFigures.Memory> chosen = select(test, fig, lim.memoryOf(), lim.memoryCall());
            if (fig.memories().isEmpty() && lim.memoryCall().startsWith("@")) {
                out.add(new Violation("arenascope: " + test + ": " + lim.memoryCall() + ": the test recorded no device memory "
                        + "(allocators built before its @BeforeEach methods, or with another session, are not seen)", null, null));
            }
            chosen.stream().filter(m -> m.peakBytes() > lim.memory())
                    .sorted((a, b) -> Long.compare(b.peakBytes(), a.peakBytes()))
                    .forEach(m -> out.add(new Violation(String.format(Locale.ROOT,
                            "device memory %s over its limit: peak %s > %s (%s) on '%s' (%s%s)",
                            DeviceFigures.formatBytes(m.peakBytes() - lim.memory()), DeviceFigures.formatBytes(m.peakBytes()),
                            DeviceFigures.formatBytes(lim.memory()), lim.memoryCall(), m.info().name(), m.info().kind(),
                            m.info().device().isEmpty() ? "" : ", " + m.info().device()),
                            "at the peak", fig.sitesAtPeak(m, Integer.MAX_VALUE))));
        }
        if (lim.leaks() != null) {
            List<DeviceFigures.Memory> chosen = select(test, fig, lim.leaksOf(), lim.leaksCall());
            long leaked = chosen.stream().mapToLong(DeviceFigures.Memory::leakedBytes).sum();
            if (leaked > lim.leaks()) {
                DeviceFigures.Memory worst = chosen.stream().max((a, b) -> Long.compare(a.leakedBytes(), b.leakedBytes())).orElseThrow();
                out.add(new Violation(String.format(Locale.ROOT,
                        "device memory leaked: %s still in use after the run > %s (%s), %s of it on '%s'",
                        DeviceFigures.formatBytes(leaked), DeviceFigures.formatBytes(lim.leaks()), lim.leaksCall(),
                        DeviceFigures.formatBytes(worst.leakedBytes()), worst.info().name()),
                        "still in use", fig.sitesLeaked(worst)));
            }
        }
        if (lim.allocations() != null) {
            long n = select(test, fig, lim.allocationsOf(), lim.allocationsCall()).stream()
                    .mapToLong(DeviceFigures.Memory::allocations).sum();
            if (n > lim.allocations()) {
                out.add(new Violation("device allocations over the limit: " + n + " > " + lim.allocations()
                        + " (" + lim.allocationsCall() + ")", null, null));
            }
        }
        return out;
    }

    private static List<DeviceFigures.Memory> select(String test, DeviceFigures fig, String name, String call) {
        List<DeviceFigures.Memory> chosen = fig.select(name);
        if (name != null && chosen.isEmpty()) {
            throw new ExtensionConfigurationException("arenascope: " + test + ": " + call + ": memory = \"" + name
                    + "\" names no memory the test recorded (recorded: "
                    + (fig.memories().isEmpty() ? "none" : String.join(", ",
                    fig.memories().stream().map(m -> "'" + m.info().name() + "'").toList())) + ")");
        }
        return chosen;
    }

    /** The failure message: at most 10 lines. */
    static String message(List<Violation> violations, Path trace) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < violations.size(); i++) {
            Violation v = violations.get(i);
            lines.add(v.head());
            if (i == 0 && v.sites() != null && !v.sites().isEmpty()) {
                lines.add("  " + v.sitesTitle() + ", by site:");
                List<Map.Entry<String, Long>> sites = v.sites();
                for (Map.Entry<String, Long> s : sites.subList(0, Math.min(SITES, sites.size()))) {
                    lines.add(String.format(Locale.ROOT, "    %10s  %s", DeviceFigures.formatBytes(s.getValue()), s.getKey()));
                }
                if (sites.size() > SITES) {
                    long rest = sites.subList(SITES, sites.size()).stream().mapToLong(Map.Entry::getValue).sum();
                    lines.add(String.format(Locale.ROOT, "    %10s  (%d more sites)", DeviceFigures.formatBytes(rest), sites.size() - SITES));
                }
            }
        }
        List<String> kept = new ArrayList<>(lines.subList(0, Math.min(9, lines.size())));
        kept.add(trace != null ? "trace: " + trace + " (arenascope open / arenascope sites)"
                : "trace: not kept (-D" + KEEP_PROPERTY + "=failed or all keeps it)");
        return String.join("\n", kept);
    }

    /** A broken device-memory limit: the message is the whole story, so no stack trace. */
    public static final class DeviceLimitError extends AssertionError {
        DeviceLimitError(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    // ---------------------------------------------------------------- files

    /** Where a kept trace of the test goes: {@link #DIR_PROPERTY} (default target/arenascope), named by {@link #fileName}. */
    private static Path traceFile(ExtensionContext ctx) {
        return Path.of(System.getProperty(DIR_PROPERTY, "target/arenascope")).resolve(fileName(ctx));
    }

    private static String fileName(ExtensionContext ctx) {
        String base = ctx.getRequiredTestClass().getName() + "." + ctx.getRequiredTestMethod().getName();
        String id = ctx.getUniqueId();
        String safe = safe(base);
        // a parameterized or repeated test has many invocations of one method: the unique id tells them apart
        String suffix = id.contains("-invocation:") || id.contains("-template:")
                ? "-" + Integer.toHexString(id.hashCode()) : "";
        return safe + suffix + ".astrace";
    }

    /** A class or method name as a file name ({@code Outer$Inner} becomes {@code Outer_Inner}). */
    static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9_.-]+", "_");
    }

    /** The per-class report ({@code CLASS.json}), written when the class's context closes. */
    private static ClassReport classReport(ExtensionContext ctx) {
        ExtensionContext classCtx = ctx;
        while (classCtx.getParent().isPresent() && classCtx.getTestMethod().isPresent()) {
            classCtx = classCtx.getParent().get();
        }
        Class<?> cls = ctx.getRequiredTestClass();
        return classCtx.getStore(NS).getOrComputeIfAbsent(ClassReport.class, k -> new ClassReport(cls), ClassReport.class);
    }

    static final class ClassReport implements ExtensionContext.Store.CloseableResource {
        private final Class<?> cls;
        private final List<Map<String, Object>> tests = new ArrayList<>();

        ClassReport(Class<?> cls) {
            this.cls = cls;
        }

        synchronized void add(Map<String, Object> result) {
            tests.add(result);
        }

        @Override
        public synchronized void close() throws IOException {
            Path dir = Path.of(System.getProperty(DIR_PROPERTY, "target/arenascope"));
            Files.createDirectories(dir);
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("version", 1);
            report.put("class", cls.getName());
            tests.sort((a, b) -> String.valueOf(a.get("display_name")).compareTo(String.valueOf(b.get("display_name"))));
            report.put("tests", tests);   // by name: the same file for the same tests, whatever order they ran in
            List<Object> bench = new ArrayList<>();
            for (Map<String, Object> t : tests) {
                String name = cls.getName() + "." + t.get("display_name");
                bench.add(benchmark(name + ": device peak", "bytes", t.get("peak_bytes")));
                bench.add(benchmark(name + ": device allocations", "allocations", t.get("allocations")));
                if (((Map<?, ?>) t.get("limits")).get("leaked_bytes") != null) {
                    bench.add(benchmark(name + ": device leaks", "bytes", t.get("leaked_bytes")));
                }
            }
            report.put("benchmarks", bench);
            Path file = dir.resolve(safe(cls.getName()) + ".json");
            Path tmp = dir.resolve(safe(cls.getName()) + ".json.tmp");
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(tmp.toFile(), report);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }

        /** One entry of github-action-benchmark's {@code customSmallerIsBetter} list. */
        private static Map<String, Object> benchmark(String name, String unit, Object value) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("name", name);
            b.put("unit", unit);
            b.put("value", value);
            return b;
        }
    }
}
