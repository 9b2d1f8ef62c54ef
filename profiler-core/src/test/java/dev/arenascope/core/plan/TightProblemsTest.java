package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.arenascope.testsupport.Fixtures;

class TightProblemsTest {

    @Test
    void cutsTileTheArenaSoTheLowerBoundIsTheCapacity() {
        for (int n : new int[] {1, 2, 17, 256, 1000}) {
            for (long seed = 1; seed <= 3; seed++) {
                TightProblems.Tight t = TightProblems.generate(n, seed);
                assertEquals(n, t.problem().size());
                assertEquals(TightProblems.CAPACITY, t.problem().lowerBound(), "n=" + n + " seed=" + seed);
                Packing known = new Packing(t.problem(), t.knownOffsets(), TightProblems.CAPACITY, TightProblems.CAPACITY,
                        TightProblems.CAPACITY, "cuts", 0, false);
                OverlapCheck.assertValid(known);
                assertTrue(known.overlapFree());
                for (PlanBuffer b : t.problem().buffers()) {
                    assertEquals(0, b.size() % TightProblems.GRANULE, b.toString());
                }
                assertTrue(PerfectPacking.applies(t.problem(), TightProblems.CAPACITY));
            }
        }
        assertEquals(TightProblems.generate(300, 9).problem(), TightProblems.generate(300, 9).problem());
        assertFalse(TightProblems.generate(300, 9).problem().equals(TightProblems.generate(300, 10).problem()));
        assertThrows(IllegalArgumentException.class, () -> TightProblems.generate(0, 1));
        assertThrows(IllegalArgumentException.class, () -> TightProblems.generate(10, 1, 2, 128, 64));
    }

    @Test
    void overlapFreeCatchesEveryBrokenPacking() {
        Random r = new Random(2);
        for (int round = 0; round < 300; round++) {
            TightProblems.Tight t = TightProblems.generate(2 + r.nextInt(40), r.nextLong(), 16, 1024, 64);
            long[] off = t.knownOffsets().clone();
            int i = r.nextInt(off.length);
            off[i] = 64L * r.nextInt(16);
            long h = Packing.heightOf(t.problem(), off);
            Packing p = new Packing(t.problem(), off, h, t.problem().lowerBound(), 1024, "moved", 0, false);
            boolean reference;
            try {
                OverlapCheck.assertValid(p);
                reference = true;
            } catch (AssertionError e) {
                reference = false;
            }
            assertEquals(reference, p.overlapFree(), "round " + round);
        }
    }

    @Test
    void theFixtureSuiteIsWhatTheGeneratorGives() throws Exception {
        for (int n : TightProblems.SUITE_SIZES) {
            if (n > 4096) {
                continue; // generated in process by the bench, not kept as a file
            }
            for (long seed : TightProblems.SUITE_SEEDS) {
                Path f = Fixtures.file("tight/" + TightProblems.suiteName(n, seed));
                assertEquals(TightProblems.generate(n, seed).problem(), ProblemCsv.read(f, 1), f.toString());
            }
        }
    }

    @Test
    void searchPacksSmallTightProblemsWithinTheCapacity() {
        for (int n : new int[] {24, 64, 128, 256}) {
            for (long seed = 1; seed <= 3; seed++) {
                TightProblems.Tight t = TightProblems.generate(n, seed);
                Packing p = new SearchPlanner().plan(t.problem(), t.capacity(), 60_000_000_000L);
                OverlapCheck.assertValid(p);
                assertTrue(p.overlapFree());
                assertTrue(p.fits(), "n=" + n + " seed=" + seed + ": height " + p.height());
                assertEquals(TightProblems.CAPACITY, p.height());
            }
        }
    }

    @Test
    void perfectPackingDecidesLikeBruteForceOnTinyProblems() {
        // tiny random problems whose every step holds exactly the capacity (the lower bound): the corner
        // search's answer, found or proved impossible, must match an exhaustive search over offsets
        Random r = new Random(5);
        int decided = 0;
        int impossible = 0;
        for (int round = 0; round < 2000; round++) {
            int steps = 2 + r.nextInt(3);
            int n = 2 + r.nextInt(4);
            List<PlanBuffer> bs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long lo = r.nextInt(steps);
                bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt((int) (steps - lo)), 64L * (1 + r.nextInt(4))));
            }
            PlanProblem p = new PlanProblem(bs, 1);
            long cap = p.lowerBound();
            if (!PerfectPacking.applies(p, cap)) {
                continue;
            }
            long[] out = new long[p.size()];
            CanonicalSearch.Outcome o = new PerfectPacking(p, cap, Long.MAX_VALUE).runInto(out);
            boolean brute = BruteForce.packs(p, cap);
            assertEquals(brute, o == CanonicalSearch.Outcome.FOUND, "round " + round + ": " + bs);
            if (o == CanonicalSearch.Outcome.FOUND) {
                OverlapCheck.assertValid(new Packing(p, out, Packing.heightOf(p, out), p.lowerBound(), cap, "perfect", 0, false));
                assertEquals(cap, Packing.heightOf(p, out));
            } else {
                assertEquals(CanonicalSearch.Outcome.INFEASIBLE, o);
                impossible++;
            }
            decided++;
        }
        assertTrue(decided > 50, "too few cases: " + decided + " decided (" + impossible + " impossible)");
    }
}
