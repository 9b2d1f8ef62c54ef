package dev.arenascope.app.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.app.aot.LeanJvm;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.file.AstraceIndex;
import dev.arenascope.core.trace.file.AstraceReader;
import dev.arenascope.core.trace.file.GeneratedTrace;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.OutOfCoreStore;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * The {@code ooc} figures: a {@link GeneratedTrace} of N events opened out of core and in memory, side
 * by side in one run (each question asked of both stores, alternating which goes first):
 * <ul>
 * <li>{@code ooc.events}, {@code ooc.file_bytes_per_event}, {@code ooc.generate_s}: the trace measured and
 *     the time {@code generate} took to write it;</li>
 * <li>{@code ooc.first_open_s} (no saved index: the trace read once, the index built and saved),
 *     {@code ooc.index_open_s} (from the saved index), {@code ooc.memory_open_s} (the in-memory store);</li>
 * <li>{@code ooc.index_mb} (what the out-of-core store keeps: indexes and chunk index),
 *     {@code ooc.memory_store_mb} (the in-memory store's {@code memoryBytes});</li>
 * <li>{@code ooc.frame_full_ms}: one frame of the whole session (every memory, 1600 buckets), and
 *     {@code ooc.zoom_cold_ms} / {@code ooc.zoom_warm_ms}: a zoom into a window of a hundredth of the
 *     session, its chunks not yet cached / cached, each with its {@code ooc.memory_*} twin;</li>
 * <li>{@code ooc.events_range_ms}: 10,000 events of a range in the middle (the events table), cold;</li>
 * <li>{@code ooc.site_question_s}: the site analysis of {@code cuda:0} built and asked what was live at
 *     mid-session, with its twin;</li>
 * <li>{@code ooc.stats_s}, {@code ooc.stats_rss_mb}, {@code ooc.stats_cpu_s}: {@code stats} in a fresh
 *     JVM under {@code -Xmx2g} out of core, with {@code ooc.memory_stats_*} in memory under {@code -Xmx4g}.</li>
 * </ul>
 * N is {@code ARENASCOPE_OOC_EVENTS} (default 100 M; 2 M with {@code --quick}); the trace goes to
 * {@code ARENASCOPE_OOC_DIR} (default {@code java.io.tmpdir}) and is deleted afterwards. The bench's own
 * JVM holds the in-memory store too: at 100 M events give it {@code -Xmx4g}.
 */
final class OocBench implements BenchSuite {
    @Override
    public String group() {
        return "ooc";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        String env = System.getenv("ARENASCOPE_OOC_EVENTS");
        long events = env != null && !env.isBlank() ? Long.parseLong(env.strip()) : quick ? 2_000_000 : 100_000_000;
        String d = System.getenv("ARENASCOPE_OOC_DIR");
        Path dir = Files.createTempDirectory(d != null && !d.isBlank() ? Path.of(d.strip()) : Path.of(System.getProperty("java.io.tmpdir")),
                "arenascope-bench-ooc");
        Path file = dir.resolve("ooc.astrace");
        Map<String, Double> f = new LinkedHashMap<>();
        try {
            long g0 = System.nanoTime();
            GeneratedTrace.write(file, events, 1, null);
            f.put("ooc.generate_s", (System.nanoTime() - g0) / 1e9);
            f.put("ooc.events", (double) events);
            f.put("ooc.file_bytes_per_event", Files.size(file) / (double) events);
            Path idx = AstraceIndex.indexOf(file);
            Files.deleteIfExists(idx);
            OutOfCoreStore ooc = (OutOfCoreStore) timed(f, "ooc.first_open_s", () -> AstraceIndex.open(file, null).store());
            ooc = (OutOfCoreStore) timed(f, "ooc.index_open_s", () -> AstraceIndex.open(file, null).store());
            EventStore mem = (EventStore) timed(f, "ooc.memory_open_s", () -> AstraceReader.loadInMemory(file, null).store());
            f.put("ooc.index_mb", ooc.indexBytes() / 1e6);
            f.put("ooc.memory_store_mb", mem.memoryBytes() / 1e6);
            TraceStore[] both = {ooc, mem};
            long s = mem.startNs();
            long span = mem.endNs() - s + 1;
            long z0 = s + span / 2;
            long z1 = z0 + Math.max(1, span / 100);
            for (int round = 0; round < 2; round++) { // alternate which store goes first
                for (int k = 0; k < 2; k++) {
                    TraceStore t = both[(k + round) % 2];
                    String p = t == ooc ? "ooc." : "ooc.memory_";
                    add(f, p + "frame_full_ms", ms(() -> frame(t, s, s + span)));
                    add(f, p + "zoom_cold_ms", ms(() -> frame(t, z0, z1)));
                    add(f, p + "zoom_warm_ms", ms(() -> frame(t, z0, z1)));
                    long from = t.firstIndexAtOrAfter(s + span / 3 + round * 1000);
                    add(f, p + "events_range_ms", ms(() -> {
                        EventBatch b = new EventBatch(10_000);
                        t.copyEvents(from, Math.min(t.eventCount(), from + 10_000), b);
                    }));
                }
                if (round == 0) {
                    ooc = (OutOfCoreStore) AstraceIndex.open(file, null).store(); // a cold cache for the second round
                    both[0] = ooc;
                }
            }
            average(f);
            if (!"0".equals(System.getenv("ARENASCOPE_OOC_SITES"))) {
                for (TraceStore t : both) {
                    String p = t == ooc ? "ooc." : "ooc.memory_";
                    long t0 = System.nanoTime();
                    SiteAnalysis a = SiteAnalysis.of(t, "cuda:0", false);
                    a.ask(new SiteQuestion.LiveAt(s + span / 2));
                    f.put(p + "site_question_s", (System.nanoTime() - t0) / 1e9);
                }
            }
            mem = null;
            both = null;
            System.gc();
            ChildRun r = stats(f, "ooc.", "-Xmx2g", "file", file);
            ChildRun rm = stats(f, "ooc.memory_", "-Xmx4g", "memory", file);
            if (!r.stdout().equals(rm.stdout())) {
                throw new IllegalStateException("bench: stats printed different summaries out of core and in memory");
            }
        } finally {
            Files.deleteIfExists(AstraceIndex.indexOf(file));
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
        return f;
    }

    private interface Opener {
        TraceStore open() throws Exception;
    }

    private static TraceStore timed(Map<String, Double> f, String key, Opener o) throws Exception {
        long t0 = System.nanoTime();
        TraceStore t = o.open();
        f.put(key, (System.nanoTime() - t0) / 1e9);
        return t;
    }

    /** One frame: every memory's gauges over {@code [from, to)} in 1600 buckets, and its scopes of 3 px or more. */
    private static void frame(TraceStore t, long from, long to) {
        long px = Math.max(1, (to - from) / 1600);
        for (MemoryInfo m : t.memories()) {
            t.gauges(m.id(), from, to, 1600);
            t.scopes(m.id(), from, to, 3 * px);
        }
    }

    private static double ms(Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        return (System.nanoTime() - t0) / 1e6;
    }

    /** Sums a figure over the rounds ({@link #average} divides). */
    private static void add(Map<String, Double> f, String key, double v) {
        f.merge(key, v, Double::sum);
    }

    private static void average(Map<String, Double> f) {
        for (String k : List.copyOf(f.keySet())) {
            if (k.endsWith("_ms")) {
                f.put(k, f.get(k) / 2);
            }
        }
    }

    /** {@code stats FILE} in a child JVM with the store {@code store}: its wall, CPU and peak RSS as {@code PREFIXstats_*}. */
    private static ChildRun stats(Map<String, Double> f, String prefix, String heap, String store, Path file) throws Exception {
        List<String> jvm = new ArrayList<>(LeanJvm.BATCH_OPTIONS);
        jvm.add(heap);
        jvm.add("-Darenascope.store=" + store);
        ChildRun r = ChildRun.cli(jvm, "stats", file.toString());
        f.put(prefix + "stats_s", r.wallS());
        putIfMeasured(f, prefix + "stats_rss_mb", r.rssMb());
        putIfMeasured(f, prefix + "stats_cpu_s", r.cpuS());
        return r;
    }

    private static void putIfMeasured(Map<String, Double> f, String key, double v) {
        if (!Double.isNaN(v)) {
            f.put(key, v);
        }
    }
}
