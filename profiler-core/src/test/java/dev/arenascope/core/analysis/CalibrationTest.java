package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;

class CalibrationTest {

    @Test
    void exactFitRecoversIntegerCoefficients() {
        Random rnd = new Random(7);
        long[][] x = new long[12][2];
        long[] y = new long[12];
        for (int i = 0; i < x.length; i++) {
            x[i][0] = 1 + rnd.nextInt(64);
            x[i][1] = rnd.nextInt(1_000_000);
            y[i] = 4096 + 8_294_400L * x[i][0] + 36 * x[i][1];
        }
        LinearFit.Result r = LinearFit.fit(x, y);
        assertTrue(r.exact());
        assertTrue(r.integral());
        assertEquals(4096, r.intercept());
        assertEquals(8_294_400, r.coefficients()[0]);
        assertEquals(36, r.coefficients()[1]);
        assertEquals(0, r.worstResidual());
    }

    @Test
    void constantParamIsUnidentifiedAndFoldsIntoIntercept() {
        long[][] x = {{3, 10}, {5, 10}, {9, 10}};
        long[] y = {100 + 30 + 7 * 3, 100 + 30 + 7 * 5, 100 + 30 + 7 * 9};
        LinearFit.Result r = LinearFit.fit(x, y);
        assertTrue(r.exact());
        assertEquals(List.of(1), r.unidentified());
        assertEquals(7, r.coefficients()[0]);
        assertEquals(130, r.intercept());
    }

    @Test
    void noisyDataFallsBackToLeastSquaresWithWorstResidual() {
        long[][] x = new long[40][1];
        long[] y = new long[40];
        for (int i = 0; i < 40; i++) {
            x[i][0] = i + 1;
            y[i] = 1000 + 50L * (i + 1) + (i % 2 == 0 ? 3 : -3);
        }
        LinearFit.Result r = LinearFit.fit(x, y);
        assertFalse(r.exact());
        assertEquals(50, r.coefficients()[0], 0.5);
        assertEquals(1000, r.intercept(), 10);
        assertTrue(r.worstResidual() >= 2.5 && r.worstResidual() <= 4, "worst " + r.worstResidual());
        assertTrue(r.worstUnder() > 0);
    }

    @Test
    void conflictingDuplicatesAreNotExact() {
        LinearFit.Result r = LinearFit.fit(new long[][]{{1}, {1}, {2}}, new long[]{10, 12, 20});
        assertFalse(r.exact());
        assertTrue(r.worstResidual() > 0);
    }

    @Test
    void rejectsEmptyOrRaggedInput() {
        assertThrows(IllegalArgumentException.class, () -> LinearFit.fit(new long[0][], new long[0]));
        assertThrows(IllegalArgumentException.class, () -> LinearFit.fit(new long[][]{{1}, {1, 2}}, new long[]{1, 2}));
    }

    /** Builds the events a recorded arena would publish: nested scopes, params, aligned allocations. */
    private static final class Script {
        final List<Event> events = new ArrayList<>();
        final Map<Integer, String> strings = new HashMap<>();
        long t;
        long fwd;
        long bwd = 1 << 30;
        int nextScope;

        int id(String s) {
            for (var e : strings.entrySet()) {
                if (e.getValue().equals(s)) {
                    return e.getKey();
                }
            }
            strings.put(strings.size(), s);
            return strings.size() - 1;
        }

        int enter(String name, int parent, Map<String, Long> params) {
            int id = nextScope++;
            events.add(new Event(t++, EventKind.SCOPE_ENTER, 0, 0, 1, fwd, bwd, parent, fwd, 0, id(name), id));
            params.forEach((k, v) -> events.add(new Event(t++, EventKind.SCOPE_PARAM, 0, 0, 1, v, 0, 0, fwd, 0, id(k), id)));
            return id;
        }

        void alloc(long bytes, int align) {
            long off = (fwd + align - 1) / align * align;
            fwd = off + bytes;
            events.add(new Event(t++, EventKind.ALLOC, 0, 0, 1, off, bytes, bytes, fwd, 0, -1, 0));
        }

        void exit(String name, int id) {
            events.add(new Event(t++, EventKind.SCOPE_EXIT, 0, 0, 1, fwd, bwd, 0, fwd, 0, id(name), id));
        }

        void restore(long to) {
            events.add(new Event(t++, EventKind.POINTER_RESTORE, 0, 0, 1, to, fwd - to, 0, to, 0, -1, 0));
            fwd = to;
        }
    }

    private static Script batches(int[] frames, int[] tris) {
        Script s = new Script();
        for (int i = 0; i < frames.length; i++) {
            long base = s.fwd;
            int batch = s.enter("batch", -1, Map.of("frames", (long) frames[i]));
            int out = s.enter("output", batch, Map.of("frames", (long) frames[i]));
            for (int f = 0; f < frames[i]; f++) {
                s.alloc(64 * 48 * 4, 4);
                s.alloc(64 * 48 * 4 + 2, 4); // odd size: the next allocation pads
            }
            s.exit("output", out);
            int raster = s.enter("raster", batch, Map.of("num_triangles", (long) tris[i]));
            s.alloc(36L * tris[i] + 1, 8);
            s.alloc(12L * tris[i], 8);
            s.exit("raster", raster);
            s.exit("batch", batch);
            s.restore(base);
        }
        return s;
    }

    @Test
    void samplerAndModelPredictHeldOutBatches() {
        int[] frames = {1, 2, 3, 5, 8, 4, 6, 7};
        int[] tris = {100, 250, 90, 400, 1000, 700, 1200, 1500};
        Script s = batches(frames, tris);
        MemoryInfo arena = new MemoryInfo(0, "frame", MemoryKind.ARENA, "virtual", 1 << 30, Map.of());
        List<ScopeSample> samples = ScopeSampler.of(List.of(arena), s.events, s.strings::get);
        assertEquals(3 * frames.length, samples.size());
        ScopeSample firstBatch = samples.stream().filter(x -> x.name().equals("batch")).findFirst().orElseThrow();
        assertEquals(0, firstBatch.ownBytes());
        assertTrue(firstBatch.peakBytes() >= 64 * 48 * 8 + 2 + 48L * 100 + 1);

        // fit on the first four batches, predict the other four
        List<ScopeSample> fitOn = samples.stream().filter(x -> x.endNs() < samples.get(4 * 3 - 1).endNs() + 1).toList();
        MemoryModel model = MemoryModel.fit(fitOn);
        ScopeModel out = model.scope("output");
        assertTrue(out.exact(), out.formula());
        assertEquals(2 * 64 * 48 * 4 + 2, out.coefficients()[0]);
        ScopeModel raster = model.scope("raster");
        assertTrue(raster.integral(), raster.formula());
        assertEquals("1 + 48·num_triangles", raster.formula());
        assertTrue(out.slackBytes() >= out.maxPadding() && out.maxPadding() > 0);

        PeakFormula formula = PeakFormula.sum(PeakFormula.term("output"), PeakFormula.term("raster"));
        List<ScopeSample> held = samples.stream().filter(x -> x.name().equals("batch")).skip(4).toList();
        for (int i = 0; i < held.size(); i++) {
            int b = 4 + i;
            long predicted = model.predict(formula, Map.of("frames", (long) frames[b], "num_triangles", (long) tris[b]));
            long bound = model.bound(formula, Map.of("frames", (long) frames[b], "num_triangles", (long) tris[b]));
            long measured = held.get(i).peakBytes();
            assertTrue(Math.abs(predicted - measured) <= 0.05 * measured, "batch " + b + ": predicted " + predicted + " measured " + measured);
            assertTrue(bound >= measured, "bound " + bound + " < measured " + measured);
        }
    }

    @Test
    void largestBatchFitsTheBudget() {
        Script s = batches(new int[]{1, 2, 3, 4}, new int[]{10, 10, 10, 10});
        MemoryInfo arena = new MemoryInfo(0, "frame", MemoryKind.ARENA, "virtual", 1 << 30, Map.of());
        MemoryModel model = MemoryModel.fit(ScopeSampler.of(List.of(arena), s.events, s.strings::get));
        PeakFormula formula = PeakFormula.sum(PeakFormula.term("output"), PeakFormula.term("raster"));
        long free = 1_000_000;
        int n = model.largestBatch(formula, f -> Map.of("frames", f, "num_triangles", 10L), free, 0.1, 10_000);
        assertTrue(n > 0);
        assertTrue(model.bound(formula, Map.of("frames", (long) n, "num_triangles", 10L)) <= 900_000);
        assertTrue(model.bound(formula, Map.of("frames", (long) n + 1, "num_triangles", 10L)) > 900_000);
        assertEquals(0, model.largestBatch(formula, f -> Map.of("frames", f, "num_triangles", 10L), 100, 0.1, 10));
        assertEquals(3, model.largestBatch(formula, f -> Map.of("frames", f, "num_triangles", 10L), free, 0.1, 3));
        assertThrows(IllegalArgumentException.class, () -> model.largestBatch(formula, f -> Map.of(), free, 1.0, 3));
        assertThrows(IllegalArgumentException.class, () -> model.scope("nope"));
    }

    @Test
    void aConstantPastWhatABytesCountHoldsIsNoExactModel() {
        // 2^62 + 1 bytes at n = 1, none at n = 2: a = 2^63 + 2 does not fit in 64 bits, so no "exact, 0 B"
        LinearFit.Result r = LinearFit.fit(new long[][] {{1}, {2}}, new long[] {(1L << 62) + 1, 0});
        assertFalse(r.exact());
        assertFalse(r.integral());
        assertEquals(0, r.outOfRange(), "the constant");
        // a whole number a double would round (2^60 + 1) is not exact either
        assertEquals(0, LinearFit.fit(new long[][] {{1}, {2}}, new long[] {(1L << 60) + 1, (1L << 60) + 1}).outOfRange());
        // while one a double holds (2^62) is
        LinearFit.Result fine = LinearFit.fit(new long[][] {{1}, {2}}, new long[] {1L << 62, 1L << 62});
        assertTrue(fine.integral());
        assertEquals(-1, fine.outOfRange());
    }

    @Test
    void aScopeWhoseBytesOverflowHasNoModelAndPredictsNothingFits() {
        Map<String, Long> n1 = Map.of("n", 1L);
        Map<String, Long> n2 = Map.of("n", 2L);
        ScopeModel m = MemoryModel.fitScope("s", List.of(
                new ScopeSample(0, 1, -1, "s", n1, (1L << 62) + 1, 0, 1, 0, 0, 0, 1),
                new ScopeSample(0, 2, -1, "s", n2, 0, 0, 1, 0, 0, 2, 3)));
        assertTrue(m.overflow() != null && m.overflow().contains("constant"), m.overflow());
        assertFalse(m.exact() || m.integral());
        assertTrue(m.formula().startsWith("none: "), m.formula());
        assertEquals(Long.MAX_VALUE, m.bound(n1));
        // a sum of requests past 2^63 - 1 saturates in the sampler and is said as such
        ScopeModel sum = MemoryModel.fitScope("s", List.of(new ScopeSample(0, 1, -1, "s", n1, Long.MAX_VALUE, 0, 2, 0, 0, 0, 1)));
        assertTrue(sum.overflow() != null && sum.overflow().contains("2^63 - 1"), sum.overflow());
    }
}
