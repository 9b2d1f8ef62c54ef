package dev.arenascope.app.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.arenascope.core.plan.GreedyBySizePlanner;
import dev.arenascope.core.plan.Packing;
import dev.arenascope.core.plan.PlanProblem;
import dev.arenascope.core.plan.ProblemCsv;
import dev.arenascope.core.plan.SearchPlanner;
import dev.arenascope.core.plan.TightProblems;

/**
 * The planners on MiniMalloc's 11 "challenging" problems (capacity 1,048,576): per problem {@code P},
 * {@code plan.P.lower_bound_bytes}, {@code plan.P.greedy_height_bytes}, {@code plan.P.greedy_ms} (median),
 * {@code plan.P.search_height_bytes} (the highest of the rounds), {@code plan.P.search_s} (median wall
 * seconds to a packing within the capacity, or to the time limit), {@code plan.P.search_cpu_s} (median
 * CPU seconds of the planning thread: the fair figure on a loaded machine) and {@code plan.P.search_fits}
 * (1 when every round fitted). Also {@code plan.solved} (problems fitted in every round).
 *
 * <p>The problems are the repository's {@code fixtures/minimalloc/*.csv}, packaged in the app
 * ({@link BenchFixtures}), or the {@code *.csv} of the directory named by {@code ARENASCOPE_MINIMALLOC}. The search time limit is 60 s
 * ({@code ARENASCOPE_PLAN_LIMIT_S} overrides); {@code --quick}: two problems, one round, 10 s.
 */
final class PlanBench implements BenchSuite {
    static final long CAPACITY = 1_048_576;

    @Override
    public String group() {
        return "plan";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        List<Path> files = BenchFixtures.miniMalloc(System.getenv("ARENASCOPE_MINIMALLOC"));
        if (quick) {
            files = files.subList(0, Math.min(2, files.size()));
        }
        String env = System.getenv("ARENASCOPE_PLAN_LIMIT_S");
        double limitS = env != null ? Double.parseDouble(env) : quick ? 10 : 60;
        int rounds = quick ? 1 : 3;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Double> f = new LinkedHashMap<>();
        int solved = 0;
        for (Path file : files) {
            String name = file.getFileName().toString().split("\\.")[0];
            PlanProblem p = ProblemCsv.read(file, 1);
            Packing g = new GreedyBySizePlanner().plan(p, CAPACITY, 0);
            double greedyMs = Medians.medianOf(quick ? 1 : 5, quick ? 3 : 11,
                    () -> new GreedyBySizePlanner().plan(p, CAPACITY, 0).elapsedNanos() / 1e6);
            double[] wall = new double[rounds];
            double[] cpu = new double[rounds];
            long height = 0;
            boolean fits = true;
            for (int r = 0; r < rounds; r++) {
                long c0 = mx.getCurrentThreadCpuTime();
                Packing s = new SearchPlanner().plan(p, CAPACITY, (long) (limitS * 1e9));
                cpu[r] = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
                wall[r] = s.elapsedNanos() / 1e9;
                height = Math.max(height, s.height());
                fits &= s.fits();
            }
            solved += fits ? 1 : 0;
            String k = "plan." + name + ".";
            f.put(k + "lower_bound_bytes", (double) g.lowerBound());
            f.put(k + "greedy_height_bytes", (double) g.height());
            f.put(k + "greedy_ms", greedyMs);
            f.put(k + "search_height_bytes", (double) height);
            f.put(k + "search_s", Medians.median(wall));
            f.put(k + "search_cpu_s", Medians.median(cpu));
            f.put(k + "search_fits", fits ? 1.0 : 0.0);
        }
        f.put("plan.solved", (double) solved);
        tight(quick, mx, f);
        return f;
    }

    /**
     * The tight suite ({@link TightProblems}: lower bound = capacity, a perfect packing exists): per
     * size {@code N}, {@code plan.tight.N.solved} (seeds packed within the capacity), {@code
     * plan.tight.N.median_s} and {@code plan.tight.N.max_s} (wall seconds of the search, the time limit
     * for one not solved), {@code plan.tight.N.median_cpu_s}; {@code plan.tight.solved} and {@code
     * plan.tight.problems} over the suite. Limit 20 s a problem ({@code ARENASCOPE_PLAN_TIGHT_LIMIT_S});
     * {@code --quick}: the two smallest sizes. Every packing is checked for overlaps before it counts.
     */
    private static void tight(boolean quick, ThreadMXBean mx, Map<String, Double> f) {
        String env = System.getenv("ARENASCOPE_PLAN_TIGHT_LIMIT_S");
        double limitS = env != null ? Double.parseDouble(env) : 20;
        int solvedAll = 0;
        int problems = 0;
        int[] sizes = quick ? Arrays.copyOf(TightProblems.SUITE_SIZES, 2) : TightProblems.SUITE_SIZES;
        for (int n : sizes) {
            long[] seeds = TightProblems.SUITE_SEEDS;
            double[] wall = new double[seeds.length];
            double[] cpu = new double[seeds.length];
            int solved = 0;
            for (int k = 0; k < seeds.length; k++) {
                TightProblems.Tight t = TightProblems.generate(n, seeds[k]);
                long c0 = mx.getCurrentThreadCpuTime();
                Packing s = new SearchPlanner().plan(t.problem(), t.capacity(), (long) (limitS * 1e9));
                cpu[k] = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
                boolean ok = s.fits() && s.overlapFree();
                wall[k] = ok ? s.elapsedNanos() / 1e9 : Math.max(limitS, s.elapsedNanos() / 1e9);
                solved += ok ? 1 : 0;
            }
            String k = "plan.tight." + n + ".";
            f.put(k + "solved", (double) solved);
            f.put(k + "median_s", Medians.median(wall));
            f.put(k + "max_s", Arrays.stream(wall).max().orElse(0));
            f.put(k + "median_cpu_s", Medians.median(cpu));
            solvedAll += solved;
            problems += seeds.length;
        }
        f.put("plan.tight.solved", (double) solvedAll);
        f.put("plan.tight.problems", (double) problems);
    }
}
