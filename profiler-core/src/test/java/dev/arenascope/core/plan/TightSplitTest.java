package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class TightSplitTest {

    /** Far more than any of these needs; a regression fails by running out of it, never by a clock. */
    private static final long GENEROUS = 300_000_000_000L;

    @Test
    void theSuiteUpToAThousandBuffersComesApartWithoutSearch() {
        // every tight problem of the suite up to 1,000 buffers: packed within the capacity by cuts and
        // bands alone, the pieces left for the corner search (if any) small and their search short
        for (int n : new int[] {256, 512, 1000}) {
            for (long seed : TightProblems.SUITE_SEEDS) {
                TightProblems.Tight t = TightProblems.generate(n, seed);
                TightSplit split = new TightSplit(t.problem(), t.capacity(), System.nanoTime() + GENEROUS);
                long[] out = new long[n];
                assertEquals(CanonicalSearch.Outcome.FOUND, split.runInto(out), "n=" + n + " seed=" + seed);
                Packing p = new Packing(t.problem(), out, Packing.heightOf(t.problem(), out), t.capacity(), t.capacity(), "split", 0, false);
                OverlapCheck.assertValid(p);
                assertTrue(p.overlapFree());
                assertEquals(t.capacity(), p.height(), "n=" + n + " seed=" + seed);
                assertTrue(split.largestSearchedPiece() <= 64, "n=" + n + " seed=" + seed + ": searched a piece of " + split.largestSearchedPiece());
                assertTrue(split.searchNodes() <= 10_000, "n=" + n + " seed=" + seed + ": " + split.searchNodes() + " nodes");
            }
        }
    }

    @Test
    void thePlannerPacksTheSuiteUpToAThousandBuffers() {
        for (int n : new int[] {512, 1000}) {
            for (long seed : TightProblems.SUITE_SEEDS) {
                TightProblems.Tight t = TightProblems.generate(n, seed);
                Packing p = new SearchPlanner().plan(t.problem(), t.capacity(), GENEROUS);
                OverlapCheck.assertValid(p);
                assertTrue(p.fits() && p.overlapFree(), "n=" + n + " seed=" + seed + ": height " + p.height());
                assertEquals(t.capacity(), p.height());
            }
        }
    }

    @Test
    void twoThousandBuffersComeApartLookingAtFewEvents() {
        // tight-2048-s2 packs by cuts, bands and small searches; the forced joins look again only at the
        // events a join can change: 21,657 looked at. Looking at every event after every join (the split
        // before) looked at 335,458 here, and spent whole time limits on the 4,096-buffer problems so
        TightProblems.Tight t = TightProblems.generate(2048, 2);
        TightSplit split = new TightSplit(t.problem(), t.capacity(), System.nanoTime() + GENEROUS);
        long[] out = new long[2048];
        assertEquals(CanonicalSearch.Outcome.FOUND, split.runInto(out));
        Packing p = new Packing(t.problem(), out, Packing.heightOf(t.problem(), out), t.capacity(), t.capacity(), "split", 0, false);
        OverlapCheck.assertValid(p);
        assertEquals(t.capacity(), p.height());
        assertTrue(split.eventsLookedAt() <= LOOKED_AT_2048_S2, split.eventsLookedAt() + " events looked at");
    }

    /** Bound on {@link #twoThousandBuffersComeApartLookingAtFewEvents}' events looked at (measured: see the test). */
    private static final long LOOKED_AT_2048_S2 = 100_000;

    @Test
    void theBalanceTestAgreesWithThePartItFinds() {
        // balancedScore (bit sets, no part built) says what smallestBalanced's search finds: no part in
        // balance, or how sure its part is. Random nets that sum to zero, in 64-byte units, with the
        // coincidences (equal values, pairs that cancel) that tight problems have
        Random r = new Random(5);
        TightSplit s = new TightSplit(new PlanProblem(List.of(new PlanBuffer("a", 0, 1, 64)), 1), 64, Long.MAX_VALUE);
        int[] seen = new int[5];
        for (int round = 0; round < 20_000; round++) {
            int k = 2 + r.nextInt(round % 3 == 0 ? 40 : 8);
            long[] v = new long[k];
            long sum = 0;
            for (int q = 0; q < k - 1; q++) {
                long units = 1 + r.nextInt(round % 2 == 0 ? 8 : 300);
                v[q] = (q % 2 == 0 ? 64 : -64) * units;
                sum += v[q];
            }
            v[k - 1] = -sum;
            if (v[k - 1] == 0) {
                continue;
            }
            int[] part = s.smallestBalanced(v, identityOf(k), null);
            int expected = part == null ? -1 : s.lastScore;
            assertEquals(expected, TightSplit.balancedScore(v), java.util.Arrays.toString(v));
            seen[expected + 1]++;
        }
        for (int score = -1; score <= 3; score++) {
            assertTrue(seen[score + 1] > 100, "score " + score + " seen " + seen[score + 1] + " times");
        }
    }

    private static int[] identityOf(int k) {
        int[] r = new int[k];
        for (int q = 0; q < k; q++) {
            r[q] = q;
        }
        return r;
    }

    /**
     * Tight problems that do not pack (brute force says so), found among 334,476 random tight problems
     * built step by step: {lower, upper, size in 64-byte units} per buffer.
     */
    private static final long[][][] IMPOSSIBLE = {
        {{0, 1, 2}, {0, 2, 2}, {1, 3, 1}, {2, 3, 1}, {1, 4, 1}, {2, 4, 1}, {3, 5, 2}, {4, 5, 2}},
        {{0, 1, 3}, {0, 2, 3}, {1, 3, 1}, {2, 3, 1}, {1, 4, 2}, {2, 4, 2}, {3, 5, 2}, {4, 5, 3}, {4, 5, 1}},
        {{0, 1, 3}, {0, 2, 3}, {1, 3, 1}, {2, 3, 1}, {1, 4, 1}, {2, 4, 1}, {1, 5, 1}, {2, 5, 1}, {3, 5, 2}, {4, 5, 2}},
        {{0, 1, 3}, {0, 1, 1}, {1, 2, 2}, {0, 3, 1}, {2, 3, 1}, {1, 4, 2}, {3, 4, 2}, {2, 5, 1}, {4, 5, 1}, {4, 5, 3}},
    };

    @Test
    void decidesLikeBruteForceOnTinyTightProblems() {
        // tiny problems whose every step holds exactly the capacity: guillotine cuts (pack by
        // construction), random ones built step by step, and the known impossible ones. The split alone
        // never claims a packing that is not one, nor a proof that is wrong; through the planner the
        // answer is brute force's.
        Random r = new Random(11);
        List<PlanProblem> cases = new ArrayList<>();
        for (long[][] c : IMPOSSIBLE) {
            List<PlanBuffer> bs = new ArrayList<>();
            for (long[] b : c) {
                bs.add(new PlanBuffer("b" + bs.size(), b[0], b[1], 64 * b[2]));
            }
            cases.add(new PlanProblem(bs, 1));
        }
        for (int round = 0; round < 1500; round++) {
            cases.add(round % 2 == 0 ? TightProblems.generate(2 + r.nextInt(8), r.nextLong(), 6, 512, 64).problem() : stepByStep(r));
        }
        int decided = 0;
        int impossible = 0;
        int splitFound = 0;
        for (int round = 0; round < cases.size(); round++) {
            PlanProblem p = cases.get(round);
            long cap = p.lowerBound();
            if (!PerfectPacking.applies(p, cap)) {
                continue;
            }
            boolean brute = BruteForce.packs(p, cap);
            long[] out = new long[p.size()];
            CanonicalSearch.Outcome o = new TightSplit(p, cap, System.nanoTime() + GENEROUS).runInto(out);
            if (o == CanonicalSearch.Outcome.FOUND) {
                assertTrue(brute, "case " + round + ": split packed what brute force cannot: " + p.buffers());
                OverlapCheck.assertValid(new Packing(p, out, Packing.heightOf(p, out), cap, cap, "split", 0, false));
                assertEquals(cap, Packing.heightOf(p, out));
                splitFound++;
            } else if (o == CanonicalSearch.Outcome.INFEASIBLE) {
                assertTrue(!brute, "case " + round + ": split proved impossible what packs: " + p.buffers());
            }
            long[] found = new long[p.size()];
            CanonicalSearch.Outcome planned = SearchPlanner.portfolio(p, cap, System.nanoTime() + GENEROUS, found);
            assertNotEquals(CanonicalSearch.Outcome.TIMED_OUT, planned, "case " + round);
            assertEquals(brute, planned == CanonicalSearch.Outcome.FOUND, "case " + round + ": " + p.buffers());
            if (planned == CanonicalSearch.Outcome.FOUND) {
                OverlapCheck.assertValid(new Packing(p, found, Packing.heightOf(p, found), cap, cap, "planned", 0, false));
            } else {
                impossible++;
            }
            decided++;
        }
        assertEquals(IMPOSSIBLE.length, impossible, "the impossible cases, and only those, do not pack");
        assertTrue(decided > 1000 && splitFound > 700, "too few cases: " + decided + " decided, " + splitFound + " packed by the split");
    }

    /** A tight problem built a step at a time: at each step some live buffers end and new ones fill their bytes. */
    private static PlanProblem stepByStep(Random r) {
        int cap = 3 + r.nextInt(4);
        int steps = 3 + r.nextInt(3);
        List<PlanBuffer> bs = new ArrayList<>();
        List<long[]> live = new ArrayList<>(); // {start, units}
        for (int t = 0; t <= steps; t++) {
            int freed = t == 0 ? cap : 0;
            for (var it = live.iterator(); it.hasNext();) {
                long[] b = it.next();
                if (t == steps || r.nextBoolean()) {
                    bs.add(new PlanBuffer("b" + bs.size(), b[0], t, 64 * b[1]));
                    freed += (int) b[1];
                    it.remove();
                }
            }
            while (t < steps && freed > 0) {
                int s = 1 + r.nextInt(Math.min(freed, 3));
                live.add(new long[] {t, s});
                freed -= s;
            }
        }
        return new PlanProblem(bs, 1);
    }
}
