package dev.arenascope.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.arenascope.app.aot.AotCache;
import dev.arenascope.app.aot.LeanJvm;
import dev.arenascope.core.trace.torch.SyntheticJob;

/**
 * Job figures: the rank table of a generated job ({@link SyntheticJob}, a pipeline of N stages, one
 * PyTorch snapshot per rank, written to the temporary directory and deleted after) through
 * {@code arenascope stats FOLDER} in a fresh JVM as the launcher starts it (the build's ahead-of-time
 * cache when there is one, the serial collector), JVM start included; the worst rank it names and that
 * rank's peak must be the generator's, or the bench fails.
 * <ul>
 *   <li>{@code job.rank_table_8x100mb_s}: 8 ranks of about 100 MB each (target ≤ 4 s on 2 cores), median of
 *       three; {@code job.rank_table_8x100mb_peak_rss_mb} and {@code _cpu_s} from {@code /usr/bin/time};
 *       {@code job.sites_8x100mb_s}: {@code sites FOLDER --rank WORST --baseline-rank MEDIAN} once (every
 *       store kept).</li>
 *   <li>{@code ui.job_open_8x100mb_s}: the same job opened in the window ({@link JobWindowProbe}) in a fresh JVM
 *       under {@code -Xmx2g} (target ≤ 6 s): seconds from File ▸ Open Folder to the Ranks view holding every
 *       rank and the timeline's first full frame of the worst rank, once; the ranks, the worst and its peak
 *       must be the generator's.</li>
 *   <li>{@code job.rank_table_64x20mb_s}: 64 ranks of about 20 MB (target ≤ 10 s), once, with its peak RSS.</li>
 *   <li>{@code job.8x100mb_mb}, {@code job.64x20mb_mb}: the jobs' sizes in MB (10^6 bytes).</li>
 *   <li>{@code job.live.*}: a live job of 16 processes streaming at once into the window ({@link LiveJobProbe}
 *       in a fresh JVM under {@code -Xmx2g}, headless): 8 Java senders ({@link LiveJobSender}, a JVM each) and
 *       8 Python clients, each streaming step after step for some seconds (target: every rank's events arrive,
 *       the Ranks view refreshes at least once a second). {@code job.live.refresh_median_ms},
 *       {@code _p95_ms}, {@code _max_ms}: the intervals between the Ranks view's refreshes while processes
 *       streamed; {@code job.live.processes}, {@code job.live.events} (every one checked against what its
 *       process says it sent, or the bench fails), {@code job.live.refreshes}, {@code job.live.streaming_max}
 *       (the most connections streaming at one refresh), {@code job.live.stream_s}, {@code job.live.caught_up_s}
 *       (from the last process's exit to the view showing every event). Once.</li>
 * </ul>
 * Quick mode (tests): the same figures on 8 × 1 MiB and 16 × 0.5 MiB, one round each, and a live job of two
 * Java and two Python processes streaming for a second or two.
 */
final class JobBench implements BenchSuite {
    static final long SEED = 30;
    private static final Pattern WORST = Pattern.compile("\"worst_rank\"\\s*:\\s*\"([^\"]+)\"");

    @Override
    public String group() {
        return "job";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        Map<String, Double> f = new LinkedHashMap<>();
        List<String> jvm = new ArrayList<>(AotCache.beside(AotCache.appJar()).map(c -> List.of("-XX:AOTCache=" + c)).orElse(List.of()));
        jvm.addAll(LeanJvm.BATCH_OPTIONS);
        measure(f, "8x100mb", 8, quick ? 1L << 20 : 100L << 20, quick ? 1 : 3, true, jvm);
        measure(f, "64x20mb", quick ? 16 : 64, quick ? 1L << 19 : 20L << 20, 1, false, jvm);
        live(f, quick);
        return f;
    }

    /** The live job's figures ({@link LiveJobProbe}): 8 + 8 processes (2 + 2 quick), every rank's events checked. */
    private static void live(Map<String, Double> f, boolean quick) throws Exception {
        int each = quick ? 2 : 8;
        Path py = pythonClient();
        ChildRun r = ChildRun.main(List.of("-Xmx2g", "-Darenascope.headless=true"), LiveJobProbe.class.getName(),
                Integer.toString(each), Integer.toString(each), py.toString(), quick ? "100" : LIVE_JAVA_STEPS, quick ? "20" : LIVE_PYTHON_STEPS,
                quick ? "50" : LIVE_PAUSE_MS, "600");
        Matcher m = LIVE.matcher(r.stdout());
        if (!m.find()) {
            throw new IllegalStateException("bench: the live job probe printed no summary: " + r.stdout().strip());
        }
        if (Integer.parseInt(m.group("ranks")) != 2 * each) {
            throw new IllegalStateException("bench: the live job showed " + m.group("ranks") + " ranks of " + 2 * each + " processes");
        }
        for (String k : List.of("processes", "events", "refreshes", "refresh_median_ms", "refresh_p95_ms", "refresh_max_ms",
                "streaming_max", "stream_s", "caught_up_s")) {
            f.put("job.live." + k, Double.parseDouble(m.group(k.replace("_", ""))));
        }
    }

    /**
     * A full run's senders: 100 steps of 150 ms pause each (a Java sender's step being 5 of the particles
     * workload's), some 15 s of streaming, mostly waiting as a training process's host thread waits for its device.
     */
    static final String LIVE_JAVA_STEPS = "500";
    static final String LIVE_PYTHON_STEPS = "100";
    static final String LIVE_PAUSE_MS = "150";

    private static final Pattern LIVE = Pattern.compile("processes=(?<processes>\\d+) ranks=(?<ranks>\\d+) events=(?<events>\\d+) "
            + "refreshes=(?<refreshes>\\d+) refresh_median_ms=(?<refreshmedianms>[0-9.]+) refresh_p95_ms=(?<refreshp95ms>[0-9.]+) "
            + "refresh_max_ms=(?<refreshmaxms>[0-9.]+) streaming_max=(?<streamingmax>\\d+) stream_s=(?<streams>[0-9.]+) "
            + "caught_up_s=(?<caughtups>[0-9.]+)");

    /**
     * The project's {@code python} folder (the client, its tests' stand-in libraries): {@code ARENASCOPE_PYTHON_DIR}, else
     * found from the working directory or this class's jar upwards.
     */
    static Path pythonClient() {
        String env = System.getenv("ARENASCOPE_PYTHON_DIR");
        List<Path> starts = new ArrayList<>();
        if (env != null && !env.isBlank()) {
            starts.add(Path.of(env));
        }
        starts.add(Path.of("").toAbsolutePath());
        try {
            starts.add(Path.of(JobBench.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (Exception ignored) {
            // no code source: the working directory alone
        }
        for (Path s : starts) {
            for (Path p = s.toAbsolutePath(); p != null; p = p.getParent()) {
                for (Path c : List.of(p, p.resolve("python"))) {
                    if (Files.isDirectory(c.resolve("arenascope")) && Files.isDirectory(c.resolve("tests/standin_libs"))) {
                        return c;
                    }
                }
            }
        }
        throw new IllegalStateException("bench: the live job needs the project's python folder (the client and its tests): "
                + "run from the checkout or set ARENASCOPE_PYTHON_DIR");
    }

    private static void measure(Map<String, Double> f, String name, int ranks, long bytesPerRank, int rounds, boolean sites, List<String> jvm)
            throws Exception {
        Path dir = Files.createTempDirectory("arenascope-bench-job-");
        try {
            SyntheticJob.Truth truth = SyntheticJob.write(dir, SyntheticJob.sized(SEED, ranks, bytesPerRank));
            long bytes = truth.ranks().stream().mapToLong(SyntheticJob.RankTruth::bytes).sum();
            String worst = "rank" + truth.worstRank();
            double[] wall = new double[rounds], rss = new double[rounds], cpu = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                ChildRun r = ChildRun.cli(jvm, "stats", dir.toString());
                Matcher m = WORST.matcher(r.stdout());
                String got = m.find() ? m.group(1) : null;
                long peak = peakOf(r.stdout(), worst);
                if (!worst.equals(got) || peak != truth.rank(truth.worstRank()).peakBytes()) {
                    throw new IllegalStateException("bench: stats of the " + name + " job named " + got + " (peak " + peak
                            + ") the worst rank; the generator says " + worst + " (" + truth.rank(truth.worstRank()).peakBytes() + ")");
                }
                wall[i] = r.wallS();
                rss[i] = r.rssMb();
                cpu[i] = r.cpuS();
            }
            f.put("job." + name + "_mb", bytes / 1e6);
            f.put("job.rank_table_" + name + "_s", Medians.median(wall));
            if (!Double.isNaN(rss[0])) {
                f.put("job.rank_table_" + name + "_peak_rss_mb", Medians.median(rss));
                f.put("job.rank_table_" + name + "_cpu_s", Medians.median(cpu));
            }
            if (sites) {
                ChildRun s = ChildRun.cli(jvm, "sites", dir.toString(), "--rank", "WORST", "--baseline-rank", "MEDIAN", "--format", "json");
                if (!s.stdout().contains("\"function\" : \"" + truth.topDifferingSite().function() + "\"")) {
                    throw new IllegalStateException("bench: sites of the " + name + " job does not name " + truth.topDifferingSite());
                }
                f.put("job.sites_" + name + "_s", s.wallS());
                f.put("ui.job_open_" + name + "_s", windowOpen(dir, truth));
            }
        } finally {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException ignored) {
                // a temporary directory the system cleans anyway
            }
            Files.deleteIfExists(dir);
        }
    }

    private static final Pattern OPEN = Pattern.compile("open_s=([0-9.]+) ranks=(\\d+) worst=(\\S+) peak_used=(\\d+)");

    /**
     * Seconds from File ▸ Open Folder to the worst rank's first full frame, in a fresh JVM under {@code -Xmx2g}
     * ({@link JobWindowProbe}); the ranks, the worst rank and its lane peak must be the generator's.
     */
    private static double windowOpen(Path dir, SyntheticJob.Truth truth) throws Exception {
        ChildRun r = ChildRun.main(List.of("-Xmx2g", "-Darenascope.headless=true"), JobWindowProbe.class.getName(), dir.toString());
        Matcher m = OPEN.matcher(r.stdout());
        if (!m.find()) {
            throw new IllegalStateException("bench: the job window probe printed no open time: " + r.stdout().strip());
        }
        String worst = "rank" + truth.worstRank();
        long peak = truth.rank(truth.worstRank()).peakBytes();
        if (Integer.parseInt(m.group(2)) != truth.ranks().size() || !worst.equals(m.group(3)) || Long.parseLong(m.group(4)) != peak) {
            throw new IllegalStateException("bench: the window opened " + m.group(2) + " ranks, worst " + m.group(3) + " peaking at "
                    + m.group(4) + "; the generator says " + truth.ranks().size() + ", " + worst + ", " + peak);
        }
        return Double.parseDouble(m.group(1));
    }

    /** The {@code peak_live_bytes} of {@code rank}'s row in stats' JSON, -1 when absent. */
    private static long peakOf(String json, String rank) {
        int at = json.indexOf("\"rank\" : \"" + rank + "\"");
        if (at < 0) {
            return -1;
        }
        Matcher m = Pattern.compile("\"peak_live_bytes\"\\s*:\\s*(\\d+)").matcher(json);
        return m.find(at) ? Long.parseLong(m.group(1)) : -1;
    }
}
