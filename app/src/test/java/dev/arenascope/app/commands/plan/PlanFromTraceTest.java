package dev.arenascope.app.commands.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.cli.CliRun;
import dev.arenascope.core.analysis.AllocationProblem;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.ProblemCsv;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.JsonlWriter;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.testsupport.Fixtures;

class PlanFromTraceTest {
    @TempDir
    Path dir;

    private static final Pattern LINE = Pattern.compile("lower bound ([0-9,]+) B .*height ([0-9,]+) B");

    private static long[] figures(String out) {
        Matcher m = LINE.matcher(out);
        assertTrue(m.find(), out);
        return new long[]{Long.parseLong(m.group(1).replace(",", "")), Long.parseLong(m.group(2).replace(",", ""))};
    }

    /** The packing written to {@code csv} for {@code problem}, checked to hold no overlap. */
    private static void assertWrittenPackingHolds(PlanProblem problem, Path csv, long height) throws Exception {
        Map<String, Long> off = ProblemCsv.readOffsets(csv);
        long[] offsets = new long[problem.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = off.get(problem.buffers().get(i).id());
        }
        Packing p = new Packing(problem, offsets, height, problem.lowerBound(), Long.MAX_VALUE, "read", 0, false);
        assertTrue(p.overlapFree(), "the written packing overlaps or its height is not " + height);
    }

    @Test
    void aPoolOfARecordedTracePacksAtItsLivePeakOrAboveInAnyFormat() throws Exception {
        Path astrace = dir.resolve("t.astrace");
        SyntheticTrace.write(6, 20_000, new AstraceWriter(astrace));
        Path jsonl = dir.resolve("t.jsonl");
        SyntheticTrace.write(6, 20_000, new JsonlWriter(jsonl));
        TraceStore store = TraceFormats.load(astrace).store();
        MemoryInfo pool = store.memories().stream().filter(m -> m.name().equals("pool")).findFirst().orElseThrow();
        long peak = store.peakUsed(pool.id());
        for (Path trace : new Path[]{astrace, jsonl}) {
            Path out = dir.resolve("packed.csv");
            CliRun r = CliRun.of("plan", "--from-trace", trace.toString(), "--memory", "pool", "--output", out.toString(), "--force");
            assertEquals(0, r.code(), r.out() + r.err());
            long[] f = figures(r.out());
            assertEquals(peak, f[0], "the lower bound is the pool's live peak: " + r.out());
            assertTrue(f[1] >= f[0], r.out());
            assertTrue(r.out().contains("memory 'pool' (pool)") && r.out().contains("vs live peak"), r.out());
            assertTrue(r.out().contains("the allocator reserved"), r.out());
            PlanProblem problem = AllocationProblem.of(store, pool, AllocationProblem.Sizes.ALLOCATED).problem();
            assertWrittenPackingHolds(problem, out, f[1]);
        }
        CliRun req = CliRun.of("plan", "--from-trace", astrace.toString(), "--memory", "pool", "--sizes", "requested");
        assertEquals(0, req.code(), req.err());
        long requested = figures(req.out())[0];
        assertTrue(requested > 0 && requested < peak, "requested bytes live at once " + requested + " vs allocated " + peak);
    }

    @Test
    void aPyTorchSnapshotPacksAtItsPeakOrAbove() throws Exception {
        Path pickle = Fixtures.torch("cs336-a2-magma27.pickle");
        TraceStore store = TraceFormats.load(pickle).store();
        MemoryInfo cuda = store.memories().stream().filter(m -> store.peakUsed(m.id()) > 0).findFirst().orElseThrow();
        CliRun r = CliRun.of("plan", "--from-trace", pickle.toString(), "--time-limit", "5");
        assertEquals(0, r.code(), r.out() + r.err());
        long[] f = figures(r.out());
        assertEquals(store.peakUsed(cuda.id()), f[0], r.out());
        assertTrue(f[1] >= f[0], r.out());
        double gap = (f[1] - f[0]) * 100.0 / f[0];
        assertTrue(r.out().contains(String.format(Locale.ROOT, ": +%.2f%%", gap)), r.out());
    }

    @Test
    void badUseIsOneLineAndExitTwo() throws Exception {
        Path astrace = dir.resolve("t.astrace");
        SyntheticTrace.write(6, 5_000, new AstraceWriter(astrace));
        CliRun several = CliRun.of("plan", "--from-trace", astrace.toString());
        assertEquals(2, several.code());
        assertTrue(several.err().contains("'frame'") && several.err().contains("'pool'") && several.err().contains("--memory"), several.err());
        CliRun none = CliRun.of("plan", "--from-trace", astrace.toString(), "--memory", "nope");
        assertEquals(2, none.code());
        assertTrue(none.err().contains("no memory named 'nope'"), none.err());
        CliRun sizes = CliRun.of("plan", "--from-trace", astrace.toString(), "--memory", "pool", "--sizes", "big");
        assertEquals(2, sizes.code());
        assertTrue(sizes.err().contains("--sizes"), sizes.err());
        Path csv = dir.resolve("p.csv");
        Files.writeString(csv, "id,lower,upper,size\nx,0,1,5\n");
        CliRun both = CliRun.of("plan", "--from-trace", astrace.toString(), "--input", csv.toString());
        assertEquals(2, both.code());
        assertTrue(both.err().contains("not both"), both.err());
        CliRun misplaced = CliRun.of("plan", "--input", csv.toString(), "--memory", "pool");
        assertEquals(2, misplaced.code());
        Path notATrace = dir.resolve("x.bin");
        Files.writeString(notATrace, "hello");
        CliRun format = CliRun.of("plan", "--from-trace", notATrace.toString());
        assertEquals(2, format.code());
        assertEquals(1, format.err().strip().lines().count(), format.err());
    }
}
