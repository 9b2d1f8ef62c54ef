package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class PlanBanksBenchTest {
    @Test
    void quickFiguresAreThereAndEverySmallProblemAgreesWithTheBruteForce() throws Exception {
        Map<String, Double> f = BenchTests.quickRun(new PlanBanksBench(), "plan-banks");
        for (String p : new String[]{"A", "B"}) {
            String k = "plan.banks." + p + ".";
            for (String leaf : new String[]{"cost_vs_all_slow", "gap_pct", "sram_share", "s"}) {
                assertTrue(f.containsKey(k + leaf), k + leaf + " in " + f.keySet());
            }
            // something went into the fast bank, and the plan is never dearer than all in the slow one
            assertTrue(f.get(k + "cost_vs_all_slow") < 1.0, f.toString());
            assertTrue(f.get(k + "sram_share") > 0 && f.get(k + "sram_share") <= 1, f.toString());
            assertTrue(f.get(k + "gap_pct") >= 0, f.toString());
        }
        assertEquals(f.get("plan.banks.small_count"), f.get("plan.banks.small_agree"), f.toString());
    }
}
