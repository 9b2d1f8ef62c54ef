package dev.arenascope.app.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.arenascope.app.aot.AotCache;
import dev.arenascope.app.aot.LeanJvm;

/**
 * Start-up of a headless command as a user meets it: {@code arenascope plan} on an 8-buffer problem in
 * a fresh JVM (this process's java and class path, see {@link ChildRun}), wall time from start to exit,
 * median of 11 runs after one warm-up; once with the ahead-of-time cache the build made
 * ({@link AotCache}; {@code -XX:AOTMode=on}, so a cache that does not match the class path fails the
 * run instead of being skipped silently) and once without it.
 *
 * <p>Figures: {@code cli.start_ms} (with the cache when there is one, else without), {@code
 * cli.start_no_aot_ms}, {@code cli.aot_cache} (1 when {@code start_ms} used the cache, 0 when there was
 * none). The launcher script's own time (finding Java, the freshness check) is not included.
 *
 * <p>Then MiniMalloc's problems as a build would call the planner: {@code plan --input P.csv --capacity
 * 1048576} in a fresh JVM with the launcher's options for it (the cache and {@link LeanJvm}), median
 * wall of 3 runs after a warm-up: {@code cli.plan_P_s}; {@code cli.plan_P_vs_minimalloc}, MiniMalloc's
 * wall time for the same decision on the project's machine ({@code fixtures/minimalloc/minimalloc-times.tsv},
 * measured once with its Release build) divided by ours; {@code cli.plan_min_vs_minimalloc}, the
 * smallest of those ratios, and {@code cli.plan_5x_count}, how many problems are at least 5 times faster.
 * A run that does not print "fits the capacity" fails the bench. {@code --quick}: two problems, one run.
 */
final class CliBench implements BenchSuite {

    @Override
    public String group() {
        return "cli";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        Path dir = Files.createTempDirectory("arenascope-cli-bench-");
        try {
            Path csv = dir.resolve("small.csv");
            Files.writeString(csv, "id,lower,upper,size\na,0,1,128\nb,0,2,128\nc,1,3,64\nd,1,4,64\ne,2,3,64\n"
                    + "f,2,4,64\ng,3,5,128\nh,4,5,128\n");
            int rounds = quick ? 3 : 11;
            Map<String, Double> f = new LinkedHashMap<>();
            double plain = startMs(List.of(), csv, rounds);
            Optional<Path> cache = AotCache.beside(AotCache.appJar());
            if (cache.isPresent()) {
                f.put("cli.start_ms", startMs(List.of("-XX:AOTCache=" + cache.get(), "-XX:AOTMode=on"), csv, rounds));
                f.put("cli.aot_cache", 1.0);
            } else {
                f.put("cli.start_ms", plain);
                f.put("cli.aot_cache", 0.0);
            }
            f.put("cli.start_no_aot_ms", plain);
            miniMalloc(quick, cache, f);
            return f;
        } finally {
            try (var s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void miniMalloc(boolean quick, Optional<Path> cache, Map<String, Double> f) throws Exception {
        Map<String, Double> theirs = BenchFixtures.miniMallocTimes();
        List<Path> files = BenchFixtures.miniMalloc(null);
        if (quick) {
            files = files.subList(0, 2);
        }
        List<String> jvm = new ArrayList<>(LeanJvm.OPTIONS);
        cache.ifPresent(c -> jvm.addAll(0, List.of("-XX:AOTCache=" + c, "-XX:AOTMode=on")));
        double worst = Double.POSITIVE_INFINITY;
        int fast = 0;
        for (Path file : files) {
            String name = file.getFileName().toString().split("\\.")[0];
            String[] args = {"plan", "--input", file.toString(), "--capacity", "1048576"};
            if (!quick) {
                ChildRun.cli(jvm, args);
            }
            double[] wall = new double[quick ? 1 : 3];
            for (int i = 0; i < wall.length; i++) {
                ChildRun r = ChildRun.cli(jvm, args);
                if (!r.stdout().contains("fits the capacity")) {
                    throw new IllegalStateException("bench: plan of " + name + " found no packing within 1 MiB: " + r.stdout());
                }
                wall[i] = r.wallS();
            }
            double ours = Medians.median(wall);
            Double ref = theirs.get(name);
            if (ref == null) {
                throw new IllegalStateException("bench: no MiniMalloc time for problem " + name + " in minimalloc-times.tsv");
            }
            f.put("cli.plan_" + name + "_s", ours);
            f.put("cli.plan_" + name + "_vs_minimalloc", ref / ours);
            worst = Math.min(worst, ref / ours);
            fast += ref / ours >= 5 ? 1 : 0;
        }
        f.put("cli.plan_min_vs_minimalloc", worst);
        f.put("cli.plan_5x_count", (double) fast);
    }

    private static double startMs(List<String> jvm, Path csv, int rounds) throws Exception {
        ChildRun.cli(jvm, "plan", "--input", csv.toString());   // warm-up: file cache, page cache of the jars
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            ChildRun r = ChildRun.cli(jvm, "plan", "--input", csv.toString());
            if (!r.stdout().contains("proof: optimal")) {
                throw new IllegalStateException("bench: plan of the small problem printed no proof: " + r.stdout());
            }
            ms.add(r.wallS() * 1000);
        }
        return Medians.median(ms.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
