package dev.arenascope.app.commands.plan;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.analysis.AllocationProblem;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.Planner;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * {@code plan --from-trace}: a recorded trace's allocations of one memory as a problem
 * ({@link AllocationProblem}), packed, and the smallest fixed-address arena found printed beside the
 * live peak (the lower bound) and, for pools and imported caching allocators, the bytes the allocator
 * itself reserved at its peak. The trace is read by {@link TraceLoader}, under its rule for bad input: a
 * damaged trace is planned as far as it was read, then exit 2 with one line naming the first problem.
 */
record TracePlan(Planner planner, long capacity, long deadline, String output, boolean json, boolean force) {

    int run(Path file, String memoryName, AllocationProblem.Sizes sizes, PrintStream out, PrintStream err) throws IOException {
        LoadedTrace t = TraceLoader.load("plan", file);
        TraceStore store = t.store();
        MemoryInfo memory = memory(store, memoryName, file);
        AllocationProblem ap = AllocationProblem.of(store, memory, sizes);
        PlanCommand.checkCapacity(ap.problem(), capacity, file + " (memory " + memory.name() + ")");
        Packing p = planner.plan(ap.problem(), capacity, PlanCommand.left(deadline));
        out.printf(Locale.ROOT, "%s: memory '%s' (%s), %,d allocations over %,d events, sizes as %s%n", file.getFileName(),
                memory.name(), memory.kind().name().toLowerCase(Locale.ROOT), ap.allocations(), ap.lastEvent() + 1,
                sizes.name().toLowerCase(Locale.ROOT));
        PlanCommand.printPacking(out, "", p);
        double gap = p.lowerBound() == 0 ? 0 : (p.height() - p.lowerBound()) * 100.0 / p.lowerBound();
        out.printf(Locale.ROOT, "fixed-address arena %,d B (%s) vs live peak %,d B (%s): +%.2f%%%n", p.height(),
                Bytes.format(p.height()), p.lowerBound(), Bytes.format(p.lowerBound()), gap);
        if (memory.kind() == MemoryKind.POOL || memory.kind() == MemoryKind.SEGMENTED) {
            long reserved = store.peakAux(memory.id());
            out.printf(Locale.ROOT, "the allocator reserved %,d B (%s) at its peak%n", reserved, Bytes.format(reserved));
        }
        if (output != null) {
            String name = file.getFileName().toString().replaceFirst("\\.[^.]*$", "") + "-" + memory.name();
            PlanCommand.write(p, name, output, force, json, out);
        }
        int code = PlanCommand.verdict(out, p.fits(), p.timedOut(), capacity, p.lowerBound(), output);
        int read = TraceLoader.finish("plan", t.report(), output == null ? "" : "planned from what was read", err);
        return read != 0 ? read : code;
    }

    /** The memory named, or the only one that allocates; else a usage error listing them. */
    private static MemoryInfo memory(TraceStore store, String name, Path file) {
        List<MemoryInfo> all = store.memories();
        if (name != null) {
            for (MemoryInfo m : all) {
                if (m.name().equals(name)) {
                    return m;
                }
            }
            throw new UsageException("plan: " + file + ": no memory named '" + name + "' (the trace has: " + names(all) + ")");
        }
        List<MemoryInfo> allocating = all.stream().filter(m -> store.peakUsed(m.id()) > 0).toList();
        if (allocating.size() == 1) {
            return allocating.getFirst();
        }
        if (allocating.isEmpty()) {
            throw new UsageException("plan: " + file + ": no memory of the trace allocates anything (memories: " + names(all) + ")");
        }
        throw new UsageException("plan: " + file + ": " + allocating.size() + " memories allocate (" + names(allocating)
                + "); name one with --memory");
    }

    private static String names(List<MemoryInfo> ms) {
        return ms.isEmpty() ? "none" : String.join(", ", ms.stream().map(m -> "'" + m.name() + "'").toList());
    }
}
