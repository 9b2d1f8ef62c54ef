package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class HeightProfileTest {

    @Test
    void aHoleUnderALongLivedBufferShowsAtThePeak() {
        // a: [0,4) at 0, 100 B; b: [0,2) at 100, 50 B; c: [1,4) at 150, 80 B; d: [2,4) at 230, 40 B.
        // At step 1 all of a, b, c live: 230 B, top 230. At steps 2-3 b has ended under c: live 220, top 270
        PlanProblem p = new PlanProblem(List.of(
                new PlanBuffer("a", 0, 4, 100), new PlanBuffer("b", 0, 2, 50),
                new PlanBuffer("c", 1, 4, 80), new PlanBuffer("d", 2, 4, 40)), 1);
        HeightProfile h = HeightProfile.of(p, new long[] {0, 100, 150, 230});
        assertEquals(230, p.lowerBound());
        assertEquals(2, h.stepsAbove(230));          // steps 2 and 3 reach 270
        assertEquals(4, h.stepsAbove(0));
        assertEquals(1, h.stepsLiveAtLeast(230));
        assertEquals(0, h.holesAtLivePeak());        // at step 1 the arena is full up to its top
        assertEquals(4, h.end());
    }

    @Test
    void agreesWithEveryStepCountedApart() {
        Random r = new Random(17);
        for (int round = 0; round < 400; round++) {
            int n = 1 + r.nextInt(30);
            int steps = 1 + r.nextInt(20);
            List<PlanBuffer> bs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long lo = r.nextInt(steps);
                bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(steps), r.nextInt(6) == 0 ? 0 : 1 + r.nextInt(100)));
            }
            PlanProblem p = new PlanProblem(bs, 1L << r.nextInt(4));
            long[] off = new SweepPlanner().plan(p, Long.MAX_VALUE, 1_000_000_000L).offsets();
            HeightProfile h = HeightProfile.of(p, off);
            long end = 0;
            for (PlanBuffer b : bs) {
                end = Math.max(end, b.upper());
            }
            long[] top = new long[(int) end];
            long[] live = new long[(int) end];
            for (int i = 0; i < n; i++) {
                long size = p.alignedSize(i);
                for (long t = bs.get(i).lower(); t < bs.get(i).upper(); t++) {
                    if (size > 0) {
                        top[(int) t] = Math.max(top[(int) t], off[i] + size);
                        live[(int) t] += size;
                    }
                }
            }
            long level = r.nextInt(200);
            long above = 0;
            long atLeast = 0;
            int peak = 0;
            for (int t = 0; t < end; t++) {
                above += top[t] > level ? 1 : 0;
                atLeast += live[t] >= level && live[t] > 0 ? 1 : 0;
                peak = live[t] > live[peak] ? t : peak;
            }
            String at = "round " + round + " " + bs;
            assertEquals(above, h.stepsAbove(level), at);
            if (level > 0) {
                assertEquals(atLeast, h.stepsLiveAtLeast(level), at);
            }
            assertEquals(top[peak] - live[peak], h.holesAtLivePeak(), at);
            assertEquals(p.lowerBound(), live[peak], at);
        }
    }
}
