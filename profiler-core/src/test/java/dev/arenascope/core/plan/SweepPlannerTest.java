package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import dev.arenascope.testsupport.Fixtures;

class SweepPlannerTest {

    @Test
    void neverAboveGreedyOnTheMiniMallocProblems() throws Exception {
        for (Path f : Fixtures.miniMalloc()) {
            PlanProblem p = ProblemCsv.read(f, 1);
            Packing s = new SweepPlanner().plan(p, Long.MAX_VALUE, 5_000_000_000L);
            Packing g = new GreedyBySizePlanner().plan(p, Long.MAX_VALUE, 0);
            OverlapCheck.assertValid(s);
            assertTrue(s.height() <= g.height(), f.getFileName() + ": sweep " + s.height() + " above greedy " + g.height());
            assertEquals("sweep", s.strategy());
        }
    }

    @Test
    void randomProblemsPackWithoutOverlapAndNeverBelowTheLoad() {
        Random r = new Random(5);
        for (int round = 0; round < 300; round++) {
            int n = 1 + r.nextInt(80);
            int steps = 2 + r.nextInt(round % 3 == 0 ? 5 : 60);
            List<PlanBuffer> bs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long lo = r.nextInt(steps);
                bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(steps), r.nextInt(8) == 0 ? 0 : r.nextInt(3000)));
            }
            PlanProblem p = new PlanProblem(bs, 1L << r.nextInt(7));
            Packing s = new SweepPlanner().plan(p, Long.MAX_VALUE, 1_000_000_000L);
            OverlapCheck.assertValid(s);
            assertTrue(s.height() >= s.lowerBound());
        }
    }

    @Test
    void aTrainingStepOfTwentyThousandBuffersPacksWithinTwoPercentOfTheLoad() {
        PlanProblem p = TrainingSteps.generate(20_000, 3);
        assertEquals(20_000, p.size());
        Packing s = new SweepPlanner().plan(p, Long.MAX_VALUE, 30_000_000_000L);
        assertTrue(s.overlapFree(), "the packing overlaps");
        assertTrue(s.height() <= s.lowerBound() * 1.02, "height " + s.height() + " vs load " + s.lowerBound());
        OverlapCheck.assertValid(new SweepPlanner().plan(TrainingSteps.generate(1_500, 4), Long.MAX_VALUE, 1_000_000_000L));
    }

    /**
     * The bench's snapshot model: about 2,000 blocks live at once, each freed at a uniformly random moment,
     * sizes up to 512 KiB or (one in eight) up to 64 MiB, in 512-byte units.
     */
    static PlanProblem randomFrees(int allocations, long seed) {
        Random r = new Random(seed);
        List<long[]> all = new ArrayList<>();
        List<long[]> live = new ArrayList<>();
        long t = 0;
        int made = 0;
        while (made < allocations || live.size() > 500) {
            t++;
            if (made < allocations && (live.size() < 2_000 || r.nextInt(3) == 0)) {
                long[] b = {t, -1, 512L * (1 + r.nextInt(r.nextInt(8) == 0 ? 1 << 17 : 1 << 10))};
                live.add(b);
                all.add(b);
                made++;
            } else {
                int i = r.nextInt(live.size());
                live.get(i)[1] = t;
                live.set(i, live.getLast());
                live.removeLast();
            }
        }
        List<PlanBuffer> bs = new ArrayList<>();
        for (long[] b : all) {
            bs.add(new PlanBuffer("a" + bs.size(), b[0], b[1] < 0 ? t + 1 : b[1], b[2]));
        }
        return new PlanProblem(bs, 512);
    }

    @Test
    void randomFreesPackCloserToTheLoadThanBestFitAlone() {
        PlanProblem p = randomFrees(20_000, 1);
        long[] lo = new long[p.size()];
        long[] up = new long[p.size()];
        long[] sz = new long[p.size()];
        for (int i = 0; i < p.size(); i++) {
            lo[i] = p.buffers().get(i).lower();
            up[i] = p.buffers().get(i).upper();
            sz[i] = p.alignedSize(i);
        }
        long bestFit = Math.min(Packing.heightOf(p, SweepPlanner.sweep(lo, up, sz, false)),
                Packing.heightOf(p, SweepPlanner.sweep(lo, up, sz, true)));
        long[] affinity = SweepPlanner.affinitySweep(lo, up, sz);
        OverlapCheck.assertValid(new Packing(p, affinity, Packing.heightOf(p, affinity), p.lowerBound(), Long.MAX_VALUE,
                "sweep", 0, false));
        long h = Packing.heightOf(p, affinity);
        assertTrue(h < bestFit * 0.97, "end affinity " + h + " vs best fit " + bestFit + " (load " + p.lowerBound() + ")");
        Packing s = new SweepPlanner().plan(p, Long.MAX_VALUE, 30_000_000_000L);
        OverlapCheck.assertValid(s);
        assertTrue(s.height() <= h, "the planner keeps the lowest sweep");
        assertTrue(s.height() <= s.lowerBound() * 1.10, "height " + s.height() + " vs load " + s.lowerBound());
    }

    @Test
    void trainingStepsAreTheSameForTheSameSeedAndShapedLikeOne() {
        PlanProblem a = TrainingSteps.generate(5_000, 9);
        PlanProblem b = TrainingSteps.generate(5_000, 9);
        assertEquals(a.buffers(), b.buffers());
        long maxEnd = a.buffers().stream().mapToLong(PlanBuffer::upper).max().orElseThrow();
        long longLived = a.buffers().stream().filter(x -> x.upper() == maxEnd).count();
        long shortLived = a.buffers().stream().filter(x -> x.upper() - x.lower() < 200).count();
        assertTrue(longLived >= 10 && longLived < 500, "long-lived: " + longLived);
        assertTrue(shortLived > 2_500, "short-lived: " + shortLived);
        long small = a.buffers().stream().filter(x -> x.size() <= 64 << 10).count();
        long big = a.buffers().stream().filter(x -> x.size() >= 1 << 20).count();
        assertTrue(small > 2_500 && big > 5, "sizes: " + small + " small, " + big + " big");
        assertTrue(a.buffers().stream().allMatch(x -> x.size() % 512 == 0));
        assertThrows(IllegalArgumentException.class, () -> TrainingSteps.generate(0, 1));
    }

    @Test
    void autoTakesTheSweepAboveTheThresholdAndTheSearchBelowOrWhenTight() {
        assertInstanceOf(SearchPlanner.class, Planner.auto(TrainingSteps.generate(1_000, 1), Long.MAX_VALUE));
        assertInstanceOf(SweepPlanner.class, Planner.auto(TrainingSteps.generate(SweepPlanner.AUTO_THRESHOLD + 1, 1), Long.MAX_VALUE));
        TightProblems.Tight t = TightProblems.generate(SweepPlanner.AUTO_THRESHOLD + 1, 1, 4096, 1L << 24, 64);
        assertInstanceOf(SearchPlanner.class, Planner.auto(t.problem(), t.capacity()));
        assertInstanceOf(SweepPlanner.class, Planner.named("sweep"));
    }

    @Test
    void freeSpaceAgreesWithABitmapOfBytes() {
        Random r = new Random(3);
        for (int round = 0; round < 50; round++) {
            FreeSpace fs = new FreeSpace();
            BitSet used = new BitSet();
            List<long[]> live = new ArrayList<>();
            for (int op = 0; op < 400; op++) {
                if (!live.isEmpty() && r.nextInt(3) == 0) {
                    long[] b = live.remove(r.nextInt(live.size()));
                    fs.free(b[0], b[1]);
                    used.clear((int) b[0], (int) (b[0] + b[1]));
                } else {
                    long size = 1 + r.nextInt(40);
                    long at = fs.takeBestFit(size);
                    assertTrue(used.get((int) at, (int) (at + size)).isEmpty(), "took used bytes at " + at);
                    // best fit: no smaller free run below the top holds it
                    long best = bestFit(used, size);
                    assertEquals(best, at, "round " + round + " op " + op);
                    used.set((int) at, (int) (at + size));
                    live.add(new long[]{at, size});
                }
                assertEquals(used.length(), fs.top(), "the top is one past the highest byte in use");
            }
        }
    }

    /** The lowest start of the smallest run of free bytes below the highest used byte that holds {@code size}, else that byte's end. */
    private static long bestFit(BitSet used, long size) {
        int top = used.length();
        long best = top;
        long bestLen = Long.MAX_VALUE;
        for (int i = used.nextClearBit(0); i < top; ) {
            int j = used.nextSetBit(i);
            if (j - i >= size && j - i < bestLen) {
                best = i;
                bestLen = j - i;
            }
            i = used.nextClearBit(j);
        }
        return best;
    }
}
