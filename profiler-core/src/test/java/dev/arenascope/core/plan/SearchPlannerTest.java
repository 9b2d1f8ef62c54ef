package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.arenascope.testsupport.Fixtures;

class SearchPlannerTest {

    /**
     * The optimum by brute force: every order of the buffers, each put on top of the highest buffer
     * before it that overlaps it in time. Every packing pushed down to rest on others is one of these.
     */
    static long bruteForceOptimum(PlanProblem p) {
        int n = p.size();
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) {
            perm[i] = i;
        }
        long[] best = {Long.MAX_VALUE};
        permute(p, perm, 0, new long[n], best);
        return n == 0 ? 0 : best[0];
    }

    private static void permute(PlanProblem p, int[] perm, int k, long[] off, long[] best) {
        int n = perm.length;
        if (k == n) {
            long h = 0;
            for (int i = 0; i < n; i++) {
                h = Math.max(h, off[i] + p.alignedSize(i));
            }
            best[0] = Math.min(best[0], h);
            return;
        }
        for (int j = k; j < n; j++) {
            int t = perm[k]; perm[k] = perm[j]; perm[j] = t;
            int b = perm[k];
            long f = 0;
            for (int q = 0; q < k; q++) {
                int o = perm[q];
                if (p.buffers().get(o).overlapsInTime(p.buffers().get(b))) {
                    f = Math.max(f, off[o] + p.alignedSize(o));
                }
            }
            off[b] = f;
            permute(p, perm, k + 1, off, best);
            t = perm[k]; perm[k] = perm[j]; perm[j] = t;
        }
    }

    static PlanProblem random(Random r, int n, int steps, int maxSize, long align) {
        List<PlanBuffer> bs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long lo = r.nextInt(steps);
            bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(steps), 1 + r.nextInt(maxSize)));
        }
        return new PlanProblem(bs, align);
    }

    @Test
    void miniMallocProblemsPackWithinCapacity() throws Exception {
        // each packs in about a second on a quiet 2-core machine; the limit leaves room for a busy CI
        for (Path f : Fixtures.miniMalloc()) {
            String name = Fixtures.problemName(f);
            PlanProblem p = ProblemCsv.read(f, 1);
            Packing greedy = new GreedyBySizePlanner().plan(p, Fixtures.MINIMALLOC_CAPACITY, 0);
            Packing pk = new SearchPlanner().plan(p, Fixtures.MINIMALLOC_CAPACITY, 60_000_000_000L);
            OverlapCheck.assertValid(pk);
            assertEquals(greedy.lowerBound(), pk.lowerBound());
            assertTrue(pk.fits(), name + " should pack within " + Fixtures.MINIMALLOC_CAPACITY + ", got " + pk.height());
            assertFalse(pk.timedOut(), name);
        }
    }

    @Test
    void reRankingComponentsReachesTheSameDecisions() {
        // many short lifetimes: placements cut the timeline often, so components are re-ranked often
        Random r = new Random(23);
        for (int round = 0; round < 60; round++) {
            PlanProblem p = random(r, 14 + r.nextInt(14), 16, r.nextBoolean() ? 16 : 300, 1);
            long deadline = System.nanoTime() + 20_000_000_000L;
            long[] out = new long[p.size()];
            long cap = p.lowerBound();
            while (SearchPlanner.portfolio(p, cap, deadline, out, false) == CanonicalSearch.Outcome.INFEASIBLE) {
                cap++;
            }
            assertEquals(CanonicalSearch.Outcome.FOUND, SearchPlanner.portfolio(p, cap, deadline, out, true), "round " + round + " at " + cap + ": " + p);
            OverlapCheck.assertValid(new Packing(p, out, Packing.heightOf(p, out), p.lowerBound(), cap, "search", 0, false));
            assertTrue(Packing.heightOf(p, out) <= cap);
            if (cap > p.lowerBound()) {
                assertEquals(CanonicalSearch.Outcome.INFEASIBLE, SearchPlanner.portfolio(p, cap - 1, deadline, out, true), "round " + round + " at " + (cap - 1) + ": " + p);
            }
        }
    }

    @Test
    void minimisingReachesTheBruteForceOptimum() {
        Random r = new Random(11);
        for (int round = 0; round < 200; round++) {
            PlanProblem p = random(r, 1 + r.nextInt(7), 6, r.nextBoolean() ? 8 : 100, r.nextBoolean() ? 1 : 4);
            long opt = bruteForceOptimum(p);
            Packing pk = new SearchPlanner().plan(p, Long.MAX_VALUE, 5_000_000_000L);
            OverlapCheck.assertValid(pk);
            assertFalse(pk.timedOut());
            assertEquals(opt, pk.height(), "round " + round + ": " + p);
        }
    }

    @Test
    void decidesCapacityExactlyOnSmallProblems() {
        Random r = new Random(5);
        for (int round = 0; round < 150; round++) {
            PlanProblem p = random(r, 2 + r.nextInt(6), 5, 10, 1);
            long opt = bruteForceOptimum(p);
            Packing at = new SearchPlanner().plan(p, opt, 5_000_000_000L);
            OverlapCheck.assertValid(at);
            assertTrue(at.fits(), "round " + round + ": capacity " + opt + " is reachable: " + p);
            Packing below = new SearchPlanner().plan(p, opt - 1, 5_000_000_000L);
            OverlapCheck.assertValid(below);
            assertFalse(below.fits());
            assertFalse(below.timedOut(), "proving " + (opt - 1) + " impossible should finish");
        }
    }

    @Test
    void greedyThatOutlivesTheLimitStacksTheRestAndStillAnswers() {
        // a dense problem: every buffer overlaps hundreds of others, so greedy's gap search is slow
        Random r = new Random(5);
        List<PlanBuffer> bs = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            long lo = r.nextInt(20_000);
            bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(2000), 64L * (1 + r.nextInt(4096))));
        }
        PlanProblem p = new PlanProblem(bs, 64);
        // a limit of one nanosecond is spent before greedy starts: its first 256 buffers are placed, the
        // rest stacked above them, and the answer is valid and marked as cut short
        Packing cut = new SearchPlanner().plan(p, Long.MAX_VALUE, 1);
        OverlapCheck.assertValid(cut);
        assertTrue(cut.timedOut());
        Packing whole = new GreedyBySizePlanner().plan(p, Long.MAX_VALUE, 0);
        assertTrue(cut.height() >= whole.height(), "stacking can only be higher than greedy's own answer");
        // no time at all asks for greedy's whole answer
        assertEquals(whole.height(), new SearchPlanner().plan(p, Long.MAX_VALUE, 0).height());
    }
}
