package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The proof status the search reports, against brute force on problems small enough to enumerate. */
class ProofTest {

    @Test
    void provedOptimaAndBoundsMatchBruteForce() {
        Random r = new Random(17);
        int optimal = 0;
        int aboveLowerBound = 0;
        for (int round = 0; round < 120; round++) {
            int n = 2 + r.nextInt(5);
            int steps = 2 + r.nextInt(5);
            List<PlanBuffer> bs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long lo = r.nextInt(steps);
                bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(steps - (int) lo), 64L * (1 + r.nextInt(4))));
            }
            PlanProblem p = new PlanProblem(bs, 1);
            long best = p.lowerBound();
            while (!BruteForce.packs(p, best)) {
                best += 64;
            }
            Packing pk = new SearchPlanner().plan(p, Long.MAX_VALUE, 30_000_000_000L);
            OverlapCheck.assertValid(pk);
            assertTrue(pk.overlapFree());
            assertTrue(pk.bound() <= best && best <= pk.height(), "round " + round + ": bound " + pk.bound() + ", optimum "
                    + best + ", height " + pk.height() + " for " + bs);
            if (pk.provedOptimal()) {
                assertEquals(best, pk.height(), "round " + round + " claims optimal: " + bs);
                assertEquals("optimal", pk.proof());
                optimal++;
                aboveLowerBound += best > p.lowerBound() ? 1 : 0;
            } else {
                assertTrue(pk.proof().startsWith("gap <= "), pk.proof());
            }
        }
        assertTrue(optimal > 100, "only " + optimal + " of 120 proved optimal (" + aboveLowerBound + " above the lower bound)");
    }

    @Test
    void gapIsCertifiedAndRoundedUp() {
        PlanProblem p = new PlanProblem(List.of(new PlanBuffer("a", 0, 1, 300)));
        Packing pk = new Packing(p, new long[] {0}, 301, 300, Long.MAX_VALUE, "x", 0, false, 300);
        assertEquals(0.34, pk.gapPercent());
        assertEquals("gap <= 0.34%", pk.proof());
    }
}
