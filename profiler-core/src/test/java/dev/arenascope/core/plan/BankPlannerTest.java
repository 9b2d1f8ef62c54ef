package dev.arenascope.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

class BankPlannerTest {
    private static final long SECOND = 1_000_000_000L;

    /** A random problem: n buffers over 0..steps, sizes 1..maxSize (aligned to 1). */
    private static PlanProblem random(Random r, int n, int steps, int maxSize) {
        List<PlanBuffer> bs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int lo = r.nextInt(steps);
            int hi = lo + 1 + r.nextInt(Math.max(1, steps / 2));
            bs.add(new PlanBuffer("b" + i, lo, hi, 1 + r.nextInt(maxSize)));
        }
        return new PlanProblem(bs);
    }

    /** The cheapest assignment that packs, by trying every one (the search planner decides what packs). */
    private static double bruteForce(BankProblem bp) {
        int n = bp.size();
        int nb = bp.banks().size();
        int[] bank = new int[n];
        double best = Double.POSITIVE_INFINITY;
        long total = 1;
        for (int i = 0; i < n; i++) {
            total *= nb;
        }
        for (long code = 0; code < total; code++) {
            long c = code;
            boolean allowed = true;
            for (int i = 0; i < n; i++) {
                bank[i] = (int) (c % nb);
                c /= nb;
                allowed &= bp.allows(i, bank[i]);
            }
            if (!allowed) {
                continue;
            }
            double cost = bp.cost(bank);
            if (cost >= best) {
                continue;
            }
            boolean packs = true;
            for (int b = 0; b < nb && packs; b++) {
                Packing p = BankPlanner.pack(bp.problem(), BankPlanner.members(bank, b), bp.banks().get(b).capacity(), 10 * SECOND, true);
                assertFalse(p.timedOut() && !p.fits(), "the brute force's packing check ran out of time");
                packs = p.fits();
            }
            if (packs) {
                best = cost;
            }
        }
        return best;
    }

    /** Every buffer in an allowed bank, within its arena, sharing no byte with a buffer of its bank live with it. */
    static void assertValid(BankPlan plan) {
        BankProblem bp = plan.problem();
        PlanProblem p = bp.problem();
        for (int i = 0; i < bp.size(); i++) {
            assertTrue(bp.allows(i, plan.bankOf()[i]), "buffer " + i + " is in a bank it may not use");
            assertEquals(0, plan.offsets()[i] % p.alignment(), "offset of buffer " + i + " is not aligned");
            assertTrue(plan.offsets()[i] + p.alignedSize(i) <= plan.height(plan.bankOf()[i]), "buffer " + i + " is above its bank's height");
            for (int j = i + 1; j < bp.size(); j++) {
                if (plan.bankOf()[i] != plan.bankOf()[j] || !p.buffers().get(i).overlapsInTime(p.buffers().get(j))
                        || p.alignedSize(i) == 0 || p.alignedSize(j) == 0) {
                    continue;
                }
                long ai = plan.offsets()[i];
                long aj = plan.offsets()[j];
                assertTrue(ai + p.alignedSize(i) <= aj || aj + p.alignedSize(j) <= ai,
                        "buffers " + i + " and " + j + " share bytes in bank " + plan.bankOf()[i]);
            }
        }
        assertEquals(bp.cost(plan.bankOf()), plan.cost(), 1e-6 * Math.max(1, plan.cost()));
        if (plan.fits()) {
            assertTrue(plan.bound() <= plan.cost() * (1 + 1e-9), "the bound " + plan.bound() + " is above the cost " + plan.cost());
        }
    }

    @Test
    void smallTwoBankProblemsGetTheBruteForceOptimumAndSayOptimal() {
        Random r = new Random(7);
        for (int round = 0; round < 30; round++) {
            PlanProblem p = random(r, 6 + r.nextInt(5), 12, 16);
            long fast = Math.max(p.largest(), p.lowerBound() / 2);
            BankProblem bp = BankProblem.anywhere(p, List.of(new PlanBank("sram", fast, 1), new PlanBank("psram", 1 << 20, 10)));
            BankPlan plan = new BankPlanner().plan(bp, 30 * SECOND);
            assertValid(plan);
            double best = bruteForce(bp);
            assertEquals(best, plan.cost(), 1e-9, "round " + round);
            assertTrue(plan.provedOptimal(), "round " + round + ": " + plan.proof());
            assertEquals("optimal", plan.proof());
            assertTrue(BankPlanner.costBound(bp) <= best * (1 + 1e-12), "round " + round + ": the bound is above the optimum");
        }
    }

    @Test
    void threeBanksWithPinsAndAccessWeightsGetTheBruteForceOptimum() {
        Random r = new Random(11);
        for (int round = 0; round < 15; round++) {
            PlanProblem p = random(r, 6 + r.nextInt(3), 10, 12);
            List<PlanBank> banks = List.of(new PlanBank("tcm", Math.max(p.largest(), p.lowerBound() / 3), 1),
                    new PlanBank("sram", Math.max(p.largest(), p.lowerBound() / 2), 3), new PlanBank("dram", 1 << 20, 20));
            long[] allowed = new long[p.size()];
            long[] accesses = new long[p.size()];
            for (int i = 0; i < p.size(); i++) {
                allowed[i] = i % 4 == 0 ? 0b100 : i % 4 == 1 ? 0b110 : 0b111; // some only in dram, some not in tcm
                accesses[i] = 1 + r.nextInt(5);
            }
            BankProblem bp = new BankProblem(p, banks, allowed, accesses);
            BankPlan plan = new BankPlanner().plan(bp, 30 * SECOND);
            assertValid(plan);
            assertEquals(bruteForce(bp), plan.cost(), 1e-9, "round " + round);
            assertTrue(plan.provedOptimal());
        }
    }

    @Test
    void largeProblemsArePackedValidlyWithinEveryBankAndCostNoMoreThanAllInTheSlowBank() {
        PlanProblem p = TrainingSteps.generate(3_000, 3);
        long lb = p.lowerBound();
        BankProblem bp = BankProblem.anywhere(p, List.of(new PlanBank("sram", Math.max(p.largest(), lb / 2), 1),
                new PlanBank("psram", 2 * lb, 10)));
        BankPlan plan = new BankPlanner().plan(bp, 2 * SECOND);
        assertValid(plan);
        assertTrue(plan.fits());
        int[] allSlow = new int[p.size()];
        Arrays.fill(allSlow, 1);
        assertTrue(plan.cost() < bp.cost(allSlow), "nothing went into the fast bank");
        assertTrue(plan.bytesIn(0) > 0);
        assertTrue(plan.height(0) <= bp.banks().get(0).capacity());
    }

    @Test
    void whenNoAssignmentFitsThePlanSaysSoAndIsStillValid() {
        // three buffers live together, each pinned to a bank too small for two of them
        PlanProblem p = new PlanProblem(List.of(new PlanBuffer("a", 0, 4, 8), new PlanBuffer("b", 0, 4, 8), new PlanBuffer("c", 0, 4, 8)));
        BankProblem bp = BankProblem.of(p, List.of(new PlanBank("sram", 10, 1), new PlanBank("psram", 10, 5)),
                Map.of("a", List.of("sram"), "b", List.of("sram"), "c", List.of("psram")), Map.of());
        BankPlan plan = new BankPlanner().plan(bp, SECOND);
        assertValid(plan);
        assertFalse(plan.fits());
        assertFalse(plan.provedOptimal());
    }

    @Test
    void aPinnedBufferLargerThanItsBankIsRefusedByName() {
        PlanProblem p = new PlanProblem(List.of(new PlanBuffer("weights", 0, 4, 4096), new PlanBuffer("x", 0, 2, 16)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BankProblem.of(p,
                List.of(new PlanBank("sram", 1024, 1), new PlanBank("psram", 1 << 20, 10)), Map.of("weights", List.of("sram")), Map.of()));
        assertTrue(e.getMessage().contains("'weights'") && e.getMessage().contains("pinned") && e.getMessage().contains("sram"), e.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> BankProblem.of(p,
                List.of(new PlanBank("sram", 1024, 1)), Map.of("x", List.of("hbm")), Map.of()));
        assertTrue(unknown.getMessage().contains("'hbm'"), unknown.getMessage());
    }

    @Test
    void bankSpecsAreReadAsTheCommandLineWritesThem() {
        List<PlanBank> banks = PlanBank.parseList("sram=512KiB:1, psram=8MiB:10");
        assertEquals(List.of(new PlanBank("sram", 512 * 1024, 1), new PlanBank("psram", 8 << 20, 10)), banks);
        assertEquals(List.of(new PlanBank("a", 100, 1), new PlanBank("b", 200, 2)), PlanBank.parseList("a=100,b=200"));
        for (String bad : List.of("", "sram", "sram=", "=1KiB", "sram=lots", "sram=1KiB:fast", "sram=0", "a=1,a=2", "s ram=1")) {
            assertThrows(IllegalArgumentException.class, () -> PlanBank.parseList(bad), bad);
        }
    }

    @Test
    void theBoundIsTightWhenTheFastBankHoldsEverything() {
        PlanProblem p = random(new Random(3), 40, 30, 64);
        BankProblem bp = BankProblem.anywhere(p, List.of(new PlanBank("sram", 1L << 30, 1), new PlanBank("psram", 1L << 30, 10)));
        BankPlan plan = new BankPlanner().plan(bp, 5 * SECOND);
        assertValid(plan);
        assertTrue(plan.provedOptimal(), plan.proof());
        assertEquals(0, plan.bytesIn(1));
    }
}
