package dev.arenascope.app.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.arenascope.app.aot.AotCache;
import dev.arenascope.app.aot.LeanJvm;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;

/**
 * PyTorch snapshot import figures.
 * <ul>
 *   <li>{@code torch.import_ms}: milliseconds to import the magma27 PyTorch snapshot (495 KB, 5,163
 *       trace entries) from its file into an event stream, in this process after a warm-up; median of
 *       rounds. The fixture is the repository's {@code fixtures/torch/cs336-a2-magma27.pickle},
 *       packaged in the app ({@link BenchFixtures}), or the file named by
 *       {@code ARENASCOPE_TORCH_FIXTURE}.</li>
 *   <li>On a snapshot generated here by {@link SyntheticSnapshot} (seed {@value #SEED},
 *       {@value #ALLOCATIONS} allocations, about 2 M entries and 460 MB; {@value #QUICK_ALLOCATIONS}
 *       in quick mode) in the temporary directory: {@code arenascope stats FILE} run in a fresh JVM
 *       as the launcher starts it (with the build's ahead-of-time cache when there is one, see
 *       {@link AotCache}, and the serial collector, {@link LeanJvm#BATCH_OPTIONS}), JVM start included,
 *       median of five rounds; {@code torch.stats_no_aot_s} the same without the cache (equal to
 *       {@code torch.stats_s} when there is no cache, {@code torch.aot_cache} 0, else 1) and
 *       {@code torch.stats_g1_s} with the cache on the JVM's default collector (G1, what the window and
 *       the installed packages run on), the three taking turns. {@code torch.import_mb_per_s} is
 *       the pickle's MB (10^6 bytes) over the wall seconds, {@code torch.stats_s} those seconds,
 *       {@code torch.import_peak_rss_mb} the child's peak resident MiB and {@code torch.import_cpu_s}
 *       its CPU seconds (both from {@code /usr/bin/time -v}; left out where it is missing). The peak
 *       that stats prints must equal the generator's, or the bench fails.</li>
 *   <li>{@code ui.torch_open_s}: the same file opened in the window ({@link WindowOpenProbe}, headless
 *       through Monocle when there is no display) in a fresh JVM under {@code -Xmx2g}, what an 8 GB
 *       laptop gives a JVM by default: seconds from File → Open to the timeline's first frame of every
 *       event, median of rounds; the lane's peak must equal the generator's.</li>
 *   <li>With {@code ARENASCOPE_TORCH_BIG_MB=N} (e.g. 2000), also a snapshot of about N MB, generated
 *       likewise: {@code stats} and the window under {@code -Xmx4g} (a 16 GB laptop's default), once
 *       each: {@code torch.big_mb}, {@code torch.big_stats_s}, {@code torch.big_peak_rss_mb} and
 *       {@code ui.torch_big_open_s}. Off by default: it writes N MB to the temporary directory.</li>
 * </ul>
 */
final class TorchBench implements BenchSuite {
    static final String FIXTURE = "cs336-a2-magma27.pickle";
    static final long SEED = 16;
    static final int ALLOCATIONS = 1_000_000;
    static final int QUICK_ALLOCATIONS = 20_000;
    /** Bytes of pickle per generated allocation, near enough to size a snapshot from a wanted size. */
    private static final double BYTES_PER_ALLOCATION = 455.5;

    @Override
    public String group() {
        return "torch";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        Path file = BenchFixtures.torch(System.getenv("ARENASCOPE_TORCH_FIXTURE"), FIXTURE);
        PeakSink sink = new PeakSink();
        double ms = Medians.medianOf(quick ? 1 : 10, quick ? 3 : 15, () -> {
            long t0 = System.nanoTime();
            TorchSnapshotToTrace.convert(file, sink);
            return (System.nanoTime() - t0) / 1e6;
        });
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("torch.import_ms", ms);
        big(quick, f);
        return f;
    }

    /** The generated snapshot through {@code stats} in a fresh JVM. */
    private static void big(boolean quick, Map<String, Double> f) throws Exception {
        BenchFixtures.Generated g = BenchFixtures.generatedSnapshot(quick);
        Path file = g.file();
        SyntheticSnapshot.Summary sum = g.summary();
        int rounds = quick ? 1 : 3, statsRounds = quick ? 1 : 5;
        List<String> aot = launcherAot();
        List<String> launcher = new ArrayList<>(aot);
        launcher.addAll(LeanJvm.BATCH_OPTIONS);
        double[] wall = new double[statsRounds], rss = new double[statsRounds], cpu = new double[statsRounds];
        double[] plain = new double[statsRounds], g1 = new double[statsRounds];
        for (int i = 0; i < statsRounds; i++) { // the three kinds take turns: all see the same machine
            if (!aot.isEmpty()) {
                plain[i] = stats(file, LeanJvm.BATCH_OPTIONS, sum.peakDefault()).wallS();
            }
            g1[i] = stats(file, aot, sum.peakDefault()).wallS();
            ChildRun r = stats(file, launcher, sum.peakDefault());
            wall[i] = r.wallS();
            rss[i] = r.rssMb();
            cpu[i] = r.cpuS();
        }
        double w = Medians.median(wall);
        f.put("torch.import_mb_per_s", sum.bytes() / 1e6 / w);
        f.put("torch.stats_s", w);
        f.put("torch.stats_no_aot_s", aot.isEmpty() ? w : Medians.median(plain));
        f.put("torch.stats_g1_s", Medians.median(g1));
        f.put("torch.aot_cache", aot.isEmpty() ? 0.0 : 1.0);
        if (!Double.isNaN(rss[0])) {
            f.put("torch.import_peak_rss_mb", Medians.median(rss));
            f.put("torch.import_cpu_s", Medians.median(cpu));
        }
        double[] open = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            open[i] = windowOpen(file, "-Xmx2g", sum.peakDefault());
        }
        f.put("ui.torch_open_s", Medians.median(open));
        String big = System.getenv("ARENASCOPE_TORCH_BIG_MB");
        if (big != null && !big.isBlank() && !quick) {
            big(Long.parseLong(big.strip()), f);
        }
    }

    /** A snapshot of about {@code mb} MB through stats and the window under -Xmx4g, once each. */
    private static void big(long mb, Map<String, Double> f) throws Exception {
        int allocations = (int) Math.min(Integer.MAX_VALUE, Math.round(mb * 1e6 / BYTES_PER_ALLOCATION));
        Path file = Files.createTempFile("arenascope-bench-torch-big-", ".pickle");
        try {
            SyntheticSnapshot.Summary sum = SyntheticSnapshot.write(file, SyntheticSnapshot.Spec.plain(SEED, allocations));
            List<String> jvm = new ArrayList<>(launcherAot());
            jvm.addAll(LeanJvm.BATCH_OPTIONS);
            jvm.add("-Xmx4g");
            ChildRun r = ChildRun.cli(jvm, "stats", file.toString());
            Matcher m = PEAK.matcher(r.stdout());
            long peak = m.find() ? Long.parseLong(m.group(1)) : -1;
            if (peak != sum.peakDefault()) {
                throw new IllegalStateException("bench: stats -Xmx4g printed peak_bytes " + peak + " for the " + sum.bytes()
                        + "-byte snapshot, the generator says " + sum.peakDefault());
            }
            f.put("torch.big_mb", sum.bytes() / 1e6);
            f.put("torch.big_stats_s", r.wallS());
            if (!Double.isNaN(r.rssMb())) {
                f.put("torch.big_peak_rss_mb", r.rssMb());
            }
            f.put("ui.torch_big_open_s", windowOpen(file, "-Xmx4g", sum.peakDefault()));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** {@code stats FILE} in a fresh JVM with {@code jvm} options; checks the peak it prints against the generator's. */
    private static ChildRun stats(Path file, List<String> jvm, long expectedPeak) throws Exception {
        ChildRun r = ChildRun.cli(jvm, "stats", file.toString());
        Matcher m = PEAK.matcher(r.stdout());
        long peak = m.find() ? Long.parseLong(m.group(1)) : -1;
        if (peak != expectedPeak) {
            throw new IllegalStateException("bench: stats printed peak_bytes " + peak + " for the generated snapshot, the generator says "
                    + expectedPeak);
        }
        return r;
    }

    /**
     * The options the launcher starts a command with: the build's ahead-of-time cache when there is one
     * beside the jar and not older than it (as the launcher checks), else none.
     */
    private static List<String> launcherAot() {
        return AotCache.beside(AotCache.appJar()).map(c -> List.of("-XX:AOTCache=" + c)).orElse(List.of());
    }

    private static final Pattern OPEN = Pattern.compile("open_s=([0-9.]+) .*peak_used=(\\d+)");

    /** Seconds from File → Open to the first full frame, in a fresh JVM with heap option {@code xmx}; checks the lane's peak. */
    private static double windowOpen(Path file, String xmx, long expectedPeak) throws Exception {
        ChildRun r = ChildRun.main(List.of(xmx, "-Darenascope.headless=true"), WindowOpenProbe.class.getName(), file.toString());
        Matcher m = OPEN.matcher(r.stdout());
        if (!m.find()) {
            throw new IllegalStateException("bench: the window probe printed no open time: " + r.stdout().strip());
        }
        long peak = Long.parseLong(m.group(2));
        if (peak != expectedPeak) {
            throw new IllegalStateException("bench: the window's lane peaks at " + peak + " for the generated snapshot under " + xmx
                    + ", the generator says " + expectedPeak);
        }
        return Double.parseDouble(m.group(1));
    }

    private static final Pattern PEAK = Pattern.compile("\"peak_bytes\"\\s*:\\s*(\\d+)");

    /** Consumes the stream the way a store would at least look at it: the peak of {@code used}. */
    private static final class PeakSink implements EventSink {
        long peak;

        @Override
        public void onEvents(EventBatch batch) {
            for (int i = 0; i < batch.size(); i++) {
                peak = Math.max(peak, batch.used(i));
            }
        }
    }
}
