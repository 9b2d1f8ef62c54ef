package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class LargeFirstSweepTest {

    private record Arrays3(long[] lo, long[] up, long[] sz) {
        static Arrays3 of(PlanProblem p) {
            int n = p.size();
            long[] lo = new long[n];
            long[] up = new long[n];
            long[] sz = new long[n];
            for (int i = 0; i < n; i++) {
                lo[i] = p.buffers().get(i).lower();
                up[i] = p.buffers().get(i).upper();
                sz[i] = p.alignedSize(i);
            }
            return new Arrays3(lo, up, sz);
        }

        long[] largeOnly(long small) {
            long[] out = new long[sz.length];
            for (int i = 0; i < sz.length; i++) {
                out[i] = sz[i] > small ? sz[i] : 0;
            }
            return out;
        }
    }

    private static Packing packing(PlanProblem p, long[] off) {
        return new Packing(p, off, Packing.heightOf(p, off), p.lowerBound(), Long.MAX_VALUE, "sweep", 0, false);
    }

    @Test
    void randomFreesPackLowerWithTheLargeBuffersFirst() {
        // the bench's snapshot model (random frees, one allocation in eight up to 64 MiB): end affinity
        // over all buffers was the planner's best; the large ones alone, then the small ones in their gaps, is lower
        PlanProblem p = SweepPlannerTest.randomFrees(20_000, 1);
        Arrays3 a = Arrays3.of(p);
        long small = LargeFirstSweep.smallAtMost(a.lo(), a.up(), a.sz());
        assertTrue(small > 256 << 10 && small < 1 << 20, "small at most " + small);
        long[] off = LargeFirstSweep.place(a.lo(), a.up(), a.sz(), small,
                SweepPlanner.affinitySweep(a.lo(), a.up(), a.largeOnly(small)));
        Packing lf = packing(p, off);
        OverlapCheck.assertValid(lf);
        long affinity = Packing.heightOf(p, SweepPlanner.affinitySweep(a.lo(), a.up(), a.sz()));
        assertTrue(lf.height() < affinity, "large first " + lf.height() + " vs end affinity " + affinity
                + " (load " + p.lowerBound() + ")");
        Packing s = new SweepPlanner().plan(p, Long.MAX_VALUE, 60_000_000_000L);
        OverlapCheck.assertValid(s);
        assertTrue(s.height() <= lf.height());
        assertTrue(s.height() <= p.lowerBound() * 1.05, "height " + s.height() + " vs load " + p.lowerBound()
                + ": " + (s.height() - p.lowerBound()) * 100.0 / p.lowerBound() + "% above");
    }

    @Test
    void smallBuffersNeverTakeBytesALargeOneNeedsLater() {
        // equal starts across the classes, zero sizes, alignments, every size split tried
        Random r = new Random(11);
        for (int round = 0; round < 400; round++) {
            int n = 2 + r.nextInt(70);
            int steps = 2 + r.nextInt(round % 3 == 0 ? 4 : 50);
            List<PlanBuffer> bs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long lo = r.nextInt(steps);
                long size = r.nextInt(10) == 0 ? 0 : r.nextInt(4) == 0 ? 500 + r.nextInt(5000) : 1 + r.nextInt(200);
                bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(round % 2 == 0 ? steps : 3), size));
            }
            PlanProblem p = new PlanProblem(bs, 1L << r.nextInt(5));
            Arrays3 a = Arrays3.of(p);
            long small = a.sz()[r.nextInt(n)];
            long[] large = round % 2 == 0 ? SweepPlanner.affinitySweep(a.lo(), a.up(), a.largeOnly(small))
                    : SweepPlanner.sweep(a.lo(), a.up(), a.largeOnly(small), false);
            long[] off = LargeFirstSweep.place(a.lo(), a.up(), a.sz(), small, large);
            OverlapCheck.assertValid(packing(p, off));
            for (int i = 0; i < n; i++) {
                if (a.sz()[i] > small) {
                    assertEquals(large[i], off[i], "round " + round + ": a large buffer moved");
                }
            }
        }
    }

    @Test
    void aSmallBufferLiveAcrossTooManyLargeOnesGoesAboveThemAll() {
        int larges = LargeFirstSweep.FALLBACK_OBSTACLES + 10;
        List<PlanBuffer> bs = new ArrayList<>();
        bs.add(new PlanBuffer("small", 0, larges + 1, 64));
        for (int i = 0; i < larges; i++) {
            bs.add(new PlanBuffer("l" + i, i + 1, i + 2, 1024 + 64 * (i % 3)));    // one after another
        }
        PlanProblem p = new PlanProblem(bs, 64);
        Arrays3 a = Arrays3.of(p);
        long[] large = SweepPlanner.sweep(a.lo(), a.up(), a.largeOnly(64), false);
        long[] off = LargeFirstSweep.place(a.lo(), a.up(), a.sz(), 64, large);
        long highest = 0;
        for (int i = 1; i < p.size(); i++) {
            assertEquals(0, off[i], "the large buffers, one after another, all start at 0");
            highest = Math.max(highest, off[i] + a.sz()[i]);
        }
        assertEquals(highest, off[0], "the small buffer lies just above the highest large one");
        assertTrue(packing(p, off).overlapFree());
    }

    @Test
    void theSmallClassIsWholeSizesHoldingAtMostOneTwentiethOfTheArea() {
        // equal lifetimes: area is proportional to size
        long[] lo = new long[7];
        long[] up = new long[7];
        java.util.Arrays.fill(up, 10);
        assertEquals(1, LargeFirstSweep.smallAtMost(lo, up, new long[]{1, 1, 1, 1, 1, 100, 0}));
        // six of size 1 hold 6 / 106 > 1/20: none is small but the empty one
        long[] ten = new long[8];
        java.util.Arrays.fill(ten, 10);
        assertEquals(0, LargeFirstSweep.smallAtMost(new long[8], ten, new long[]{1, 1, 1, 1, 1, 1, 100, 0}));
        assertEquals(-1, LargeFirstSweep.smallAtMost(lo, up, new long[]{5, 5, 5, 5, 5, 5, 5}));
        // a long lifetime weighs as much as a large size
        long[] longLife = {0, 0, 0, 0, 0, 0, 0};
        long[] ends = {10, 10, 10, 10, 10, 2_000, 10};
        assertEquals(-1, LargeFirstSweep.smallAtMost(longLife, ends, new long[]{1, 1, 1, 1, 1, 1, 100}));
    }
}
