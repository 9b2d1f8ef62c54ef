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
import dev.arenascope.core.trace.torch.SnapshotShapes;

/**
 * PyTorch snapshots of every shape ({@link SnapshotShapes#shapes()}: distinct stacks 1 to all, Python
 * or C++ depth, memo-shared or anew frame dicts, 1 or 8 devices, plain, expandable or private-pool
 * segments), each generated here (seed {@value #SEED}) in the temporary directory and run in fresh
 * JVMs as the launcher starts them (the build's ahead-of-time cache when there is one):
 * <ul>
 *   <li>{@code torch.shape.NAME.mb}: the pickle's size in MB (10^6 bytes);</li>
 *   <li>{@code torch.shape.NAME.stats_s} and {@code .stats_rss_mb}: {@code arenascope stats FILE} under
 *       the launcher's collector for batch commands (serial, {@link LeanJvm#BATCH_OPTIONS}): wall
 *       seconds (JVM start included) and peak resident MiB; {@code .stats_g1_s} and
 *       {@code .stats_g1_rss_mb} the same on G1, taking turns with it;</li>
 *   <li>{@code torch.shape.NAME.convert_s} and {@code .convert_rss_mb}: {@code arenascope convert FILE
 *       OUT.astrace} likewise (serial).</li>
 * </ul>
 * Each figure is the median of {@value #ROUNDS} rounds (one in quick mode); the peak {@code stats}
 * prints for {@code cuda:0} must equal the generator's, or the bench fails. Allocations per shape:
 * {@value #ALLOCATIONS}, {@value #QUICK_ALLOCATIONS} in quick mode, or {@code ARENASCOPE_TORCH_SHAPE_ALLOCATIONS}.
 *
 * <p>The curve: with {@code ARENASCOPE_TORCH_CURVE} set to a list of allocation counts (e.g.
 * {@code 100000,1000000,3000000,10000000}), the worst shape ({@link SnapshotShapes#worst()}) at each
 * through {@code stats -Xmx4g} once: {@code torch.shape.curve.N.mb}, {@code .stats_s},
 * {@code .stats_rss_mb}. Off by default (the largest writes gigabytes); in quick mode it runs at
 * 5,000, 10,000 and 20,000 allocations.
 */
final class TorchShapeBench implements BenchSuite {
    static final long SEED = 26;
    static final int ALLOCATIONS = 1_000_000;
    static final int QUICK_ALLOCATIONS = 5_000;
    static final int ROUNDS = 3;
    private static final Pattern PEAK = Pattern.compile("\"name\"\\s*:\\s*\"cuda:0\"[^}]*?\"peak_bytes\"\\s*:\\s*(\\d+)", Pattern.DOTALL);

    @Override
    public String group() {
        return "torch.shape";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        Map<String, Double> f = new LinkedHashMap<>();
        String n = System.getenv("ARENASCOPE_TORCH_SHAPE_ALLOCATIONS");
        int allocations = n != null && !n.isBlank() ? Integer.parseInt(n.strip()) : quick ? QUICK_ALLOCATIONS : ALLOCATIONS;
        int rounds = quick ? 1 : ROUNDS;
        List<String> aot = AotCache.beside(AotCache.appJar()).map(c -> List.of("-XX:AOTCache=" + c)).orElse(List.of());
        List<String> serial = new ArrayList<>(aot);
        serial.addAll(LeanJvm.BATCH_OPTIONS);
        for (SnapshotShapes.Shape shape : SnapshotShapes.shapes()) {
            Path file = Files.createTempFile("arenascope-bench-shape-" + shape.name() + "-", ".pickle");
            Path out = Files.createTempFile("arenascope-bench-shape-" + shape.name() + "-", ".astrace");
            try {
                SnapshotShapes.Summary sum = SnapshotShapes.write(file, shape, SEED, allocations);
                String p = "torch.shape." + shape.name();
                f.put(p + ".mb", sum.bytes() / 1e6);
                double[] s = new double[rounds], sr = new double[rounds], g = new double[rounds], gr = new double[rounds];
                double[] c = new double[rounds], cr = new double[rounds];
                for (int i = 0; i < rounds; i++) { // the kinds take turns: all see the same machine
                    ChildRun a = stats(file, serial, sum.peaks()[0][0]);
                    s[i] = a.wallS();
                    sr[i] = a.rssMb();
                    ChildRun b = stats(file, aot, sum.peaks()[0][0]);
                    g[i] = b.wallS();
                    gr[i] = b.rssMb();
                    Files.deleteIfExists(out);
                    ChildRun v = ChildRun.cli(serial, "convert", file.toString(), out.toString());
                    c[i] = v.wallS();
                    cr[i] = v.rssMb();
                }
                f.put(p + ".stats_s", Medians.median(s));
                f.put(p + ".stats_g1_s", Medians.median(g));
                f.put(p + ".convert_s", Medians.median(c));
                if (!Double.isNaN(sr[0])) {
                    f.put(p + ".stats_rss_mb", Medians.median(sr));
                    f.put(p + ".stats_g1_rss_mb", Medians.median(gr));
                    f.put(p + ".convert_rss_mb", Medians.median(cr));
                }
            } finally {
                Files.deleteIfExists(file);
                Files.deleteIfExists(out);
            }
        }
        String curve = System.getenv("ARENASCOPE_TORCH_CURVE");
        List<Integer> sizes = new ArrayList<>();
        if (curve != null && !curve.isBlank()) {
            for (String x : curve.split(",")) {
                sizes.add(Integer.parseInt(x.strip()));
            }
        } else if (quick) {
            sizes.addAll(List.of(5_000, 10_000, 20_000));
        }
        List<String> big = new ArrayList<>(serial);
        big.add("-Xmx4g");
        for (int size : sizes) {
            Path file = Files.createTempFile("arenascope-bench-curve-", ".pickle");
            try {
                SnapshotShapes.Summary sum = SnapshotShapes.write(file, SnapshotShapes.worst(), SEED, size);
                ChildRun r = stats(file, big, sum.peaks()[0][0]);
                String p = "torch.shape.curve." + size;
                f.put(p + ".mb", sum.bytes() / 1e6);
                f.put(p + ".stats_s", r.wallS());
                if (!Double.isNaN(r.rssMb())) {
                    f.put(p + ".stats_rss_mb", r.rssMb());
                }
            } finally {
                Files.deleteIfExists(file);
            }
        }
        return f;
    }

    /** {@code stats FILE} in a fresh JVM; checks the peak it prints for cuda:0 against the generator's. */
    private static ChildRun stats(Path file, List<String> jvm, long expectedPeak) throws Exception {
        ChildRun r = ChildRun.cli(jvm, "stats", file.toString());
        Matcher m = PEAK.matcher(r.stdout());
        long peak = m.find() ? Long.parseLong(m.group(1)) : -1;
        if (peak != expectedPeak) {
            throw new IllegalStateException("bench: stats printed peak_bytes " + peak + " for cuda:0 of " + file.getFileName()
                    + ", the generator says " + expectedPeak);
        }
        return r;
    }
}
