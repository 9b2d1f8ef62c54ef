package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import dev.arenascope.testsupport.Fixtures;

class GreedyBySizePlannerTest {

    @Test
    void reproducesTheReferenceHeightsOnMiniMallocProblems() throws Exception {
        // greedy-by-size heights measured by the benchmark's README (TFLite's offset strategy)
        Map<String, Long> expected = Map.ofEntries(Map.entry("A", 1_374_208L), Map.entry("B", 1_432_576L),
                Map.entry("C", 1_417_216L), Map.entry("D", 1_339_392L), Map.entry("E", 1_513_472L),
                Map.entry("F", 1_433_600L), Map.entry("G", 1_459_200L), Map.entry("H", 1_355_776L),
                Map.entry("I", 1_478_656L), Map.entry("J", 1_350_656L), Map.entry("K", 1_391_616L));
        for (Path f : Fixtures.miniMalloc()) {
            PlanProblem p = ProblemCsv.read(f, 1);
            Packing pk = new GreedyBySizePlanner().plan(p, Fixtures.MINIMALLOC_CAPACITY, 0);
            OverlapCheck.assertValid(pk);
            assertEquals(expected.get(Fixtures.problemName(f)), pk.height(), "greedy height of " + f.getFileName());
            assertTrue(pk.lowerBound() <= Fixtures.MINIMALLOC_CAPACITY);
            assertTrue(!pk.fits(), "greedy should not reach the capacity on a challenging problem");
        }
    }

    @Test
    void randomProblemsPackWithoutOverlap() {
        Random r = new Random(7);
        for (int round = 0; round < 200; round++) {
            int n = 1 + r.nextInt(60);
            List<PlanBuffer> bs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long lo = r.nextInt(50);
                bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(20), r.nextInt(5000)));
            }
            long align = 1L << r.nextInt(8);
            Packing pk = new GreedyBySizePlanner().plan(new PlanProblem(bs, align), Long.MAX_VALUE, 0);
            OverlapCheck.assertValid(pk);
            assertTrue(pk.fits());
        }
    }

    @Test
    void emptyProblemHasHeightZero() {
        Packing pk = new GreedyBySizePlanner().plan(new PlanProblem(List.of()), 10, 0);
        assertEquals(0, pk.height());
        assertEquals(0, pk.lowerBound());
        assertEquals(1.0, pk.ratio());
    }
}
