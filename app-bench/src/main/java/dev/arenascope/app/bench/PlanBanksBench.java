package dev.arenascope.app.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.arenascope.core.plan.BankPlan;
import dev.arenascope.core.plan.BankPlanner;
import dev.arenascope.core.plan.BankProblem;
import dev.arenascope.core.plan.PlanBank;
import dev.arenascope.core.plan.PlanBuffer;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.ProblemCsv;
import dev.arenascope.core.plan.SearchPlanner;

/**
 * Banked plans ({@code plan --banks}):
 * <ul>
 * <li>{@code plan.banks.X.*} for each of MiniMalloc's problems A-K made two-bank: an SRAM of half the
 *     problem's capacity at cost 1 a byte and a PSRAM of the whole capacity at cost 10 (so putting every
 *     buffer in PSRAM, the original problem, always fits): {@code cost_vs_all_slow} (the plan's cost over
 *     the all-PSRAM cost; lower is better), {@code gap_pct} (how far the cost is above the proved bound
 *     at most), {@code sram_share} (the share of the bytes placed in SRAM), {@code s} (wall seconds);</li>
 * <li>{@code plan.banks.proved}: how many of A-K were proved optimal;</li>
 * <li>{@code plan.banks.small_agree}: of 40 random small two-bank problems (8 buffers), how many got
 *     exactly the cost of a brute force over every assignment ({@code plan.banks.small_count}).</li>
 * </ul>
 * The time limit per problem is {@code ARENASCOPE_PLAN_BANKS_LIMIT_S} (default 20 s; 3 s when quick).
 */
final class PlanBanksBench implements BenchSuite {
    private static final long CAPACITY = 1L << 20;

    @Override
    public String group() {
        return "plan-banks";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        String env = System.getenv("ARENASCOPE_PLAN_BANKS_LIMIT_S");
        double limitS = env != null ? Double.parseDouble(env) : quick ? 3 : 20;
        Map<String, Double> f = new LinkedHashMap<>();
        List<PlanBank> banks = List.of(new PlanBank("sram", CAPACITY / 2, 1), new PlanBank("psram", CAPACITY, 10));
        int proved = 0;
        List<Path> files = BenchFixtures.miniMalloc(System.getenv("ARENASCOPE_MINIMALLOC"));
        for (Path file : quick ? files.subList(0, 2) : files) {
            String name = file.getFileName().toString().replaceFirst("\\..*$", "");
            PlanProblem p = ProblemCsv.read(file, 1);
            BankProblem bp = BankProblem.anywhere(p, banks);
            long t0 = System.nanoTime();
            BankPlan plan = new BankPlanner().plan(bp, (long) (limitS * 1e9));
            double s = (System.nanoTime() - t0) / 1e9;
            if (!plan.fits()) {
                throw new IllegalStateException(name + ": the two-bank plan does not fit, though all in PSRAM would");
            }
            int[] slow = new int[p.size()];
            java.util.Arrays.fill(slow, 1);
            String k = "plan.banks." + name + ".";
            f.put(k + "cost_vs_all_slow", plan.cost() / bp.cost(slow));
            f.put(k + "gap_pct", plan.gapPercent());
            long total = 0;
            for (int i = 0; i < p.size(); i++) {
                total += p.alignedSize(i);
            }
            f.put(k + "sram_share", total == 0 ? 0 : plan.bytesIn(0) / (double) total);
            f.put(k + "s", s);
            proved += plan.provedOptimal() ? 1 : 0;
        }
        f.put("plan.banks.proved", (double) proved);
        Random r = new Random(5);
        int agree = 0;
        int count = quick ? 10 : 40;
        for (int round = 0; round < count; round++) {
            List<PlanBuffer> bs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int lo = r.nextInt(10);
                bs.add(new PlanBuffer("b" + i, lo, lo + 1 + r.nextInt(5), 1 + r.nextInt(16)));
            }
            PlanProblem p = new PlanProblem(bs);
            BankProblem bp = BankProblem.anywhere(p, List.of(new PlanBank("sram", Math.max(p.largest(), p.lowerBound() / 2), 1),
                    new PlanBank("psram", 1 << 20, 10)));
            BankPlan plan = new BankPlanner().plan(bp, 10_000_000_000L);
            agree += Math.abs(plan.cost() - bruteForce(bp)) < 1e-9 ? 1 : 0;
        }
        f.put("plan.banks.small_agree", (double) agree);
        f.put("plan.banks.small_count", (double) count);
        return f;
    }

    /** The least cost over every assignment whose banks each pack (by the search planner) within capacity. */
    private static double bruteForce(BankProblem bp) {
        int n = bp.size();
        double best = Double.POSITIVE_INFINITY;
        int[] bank = new int[n];
        for (int code = 0; code < 1 << n; code++) {
            for (int i = 0; i < n; i++) {
                bank[i] = code >>> i & 1;
            }
            double cost = bp.cost(bank);
            if (cost >= best) {
                continue;
            }
            boolean packs = true;
            for (int b = 0; b < 2 && packs; b++) {
                List<PlanBuffer> sub = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (bank[i] == b) {
                        sub.add(bp.problem().buffers().get(i));
                    }
                }
                packs = sub.isEmpty() || new SearchPlanner().plan(new PlanProblem(sub), bp.banks().get(b).capacity(), 10_000_000_000L).fits();
            }
            if (packs) {
                best = cost;
            }
        }
        return best;
    }
}
