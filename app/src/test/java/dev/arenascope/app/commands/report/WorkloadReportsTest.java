package dev.arenascope.app.commands.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.Main;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.device.Devices;
import dev.arenascope.core.device.MemoryDevice;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.report.Report;
import dev.arenascope.core.report.ReportFormat;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.WorkloadResult;
import dev.arenascope.workloads.Workloads;

/** Reports of the sample workloads' traces, checked against the figures the workloads measure themselves. */
class WorkloadReportsTest {
    static final Map<String, Map<String, String>> SMALL = Map.of(
            "render", Map.of("frames", "24", "width", "96", "height", "54", "triangles", "800", "grow-by", "400",
                    "grow-every", "2", "arena", "4MiB"),
            "particles", Map.of("steps", "120", "rate", "50", "period", "60", "free-held-every", "100"),
            "inference", Map.of());

    record Run(EventStore store, WorkloadResult result) {}

    static Run record(String workload, Map<String, String> options) {
        Workload w = Workloads.find(workload);
        EventStore store = new EventStore(workload);
        WorkloadResult r;
        try (Session session = new Session(workload); MemoryDevice d = Devices.open("virtual").device()) {
            session.addSink(store);
            r = w.run(session, d, w.parse(options), Progress.NONE);
            session.flush();
        }
        return new Run(store, r);
    }

    @Test
    void everyWorkloadsReportCarriesItsFigures() throws Exception {
        for (Workload w : Workloads.all()) {
            Run run = record(w.name(), SMALL.getOrDefault(w.name(), Map.of()));
            TraceAnalysis a = TraceAnalysis.of(run.store());
            assertFalse(a.memories().isEmpty(), w.name());
            Report report = Report.of(a, "arenascope test", w.name());
            JsonNode j = new ObjectMapper().readTree(ReportFormat.JSON.render(report));
            String md = ReportFormat.MARKDOWN.render(report);
            String html = ReportFormat.HTML.render(report);
            assertTrue(html.contains("<svg class=\"chart\""), w.name());
            assertTrue(md.contains("## Memories"), w.name());
            assertEquals(run.store().eventCount(), j.at("/trace/session/events").asLong());
            Map<String, Long> f = run.result().figures();
            for (MemoryAnalysis m : a.memories()) {
                assertEquals(run.store().peakUsed(m.id()), m.peakUsedBytes(), w.name() + " " + m.name());
                assertTrue(md.contains("| **" + m.name().replace("_", "\\_") + "** "), m.name());
            }
            switch (w.name()) {
                case "render" -> {
                    MemoryAnalysis arena = a.memories().stream().filter(m -> m.kind() == MemoryKind.ARENA).findFirst().orElseThrow();
                    assertEquals(f.get("arena_peak_bytes"), arena.peakUsedBytes());
                    assertEquals(f.get("arena_bytes"), arena.capacityBytes());
                    assertTrue(a.scopes().stream().anyMatch(s -> s.name().equals("batch") && s.params().containsKey("frames")));
                    assertTrue(a.scopes().stream().anyMatch(s -> s.model() != null), "calibrated models in the report");
                    assertNotNull(j.at("/trace/scopes/0/model"));
                }
                case "particles" -> {
                    long hits = a.poolBins().stream().mapToLong(PoolBinAnalysis::hits).sum();
                    long misses = a.poolBins().stream().mapToLong(PoolBinAnalysis::misses).sum();
                    assertEquals(f.get("hits"), hits);
                    assertEquals(f.get("misses"), misses);
                    assertEquals(f.get("requests"), hits + misses);
                    assertTrue(md.contains("## Pool bins"));
                }
                case "inference" -> {
                    assertFalse(a.plans().isEmpty(), "plan arenas in the inference trace");
                    for (var p : a.plans()) {
                        assertTrue(p.lowerBoundBytes() <= p.heightBytes(), p.subject() + " bound above height");
                        var packed = p.withSearch(500_000_000L);
                        if (!p.tensors().isEmpty()) {
                            assertTrue(packed.searchHeightBytes() >= p.lowerBoundBytes(), p.subject() + " packed below the bound");
                            assertEquals("search", packed.searchPlanner());
                            assertTrue(packed.searchBoundBytes() >= p.lowerBoundBytes()
                                    && packed.searchBoundBytes() <= packed.searchHeightBytes(), p.subject() + " proved bound out of range");
                            assertTrue(packed.searchProof().equals("optimal") || packed.searchProof().matches("gap <= \\d+\\.\\d\\d%"),
                                    packed.searchProof());
                        }
                    }
                    assertTrue(md.contains("## Memory plans"));
                }
                default -> { }
            }
        }
    }

    @Test
    void biggerFramesBaselineShowsTheExpectedDeltas() {
        Map<String, String> small = new HashMap<>(SMALL.get("render"));
        Map<String, String> big = new HashMap<>(small);
        big.put("arena", "8MiB");
        big.put("width", "128");
        big.put("height", "72");
        Run before = record("render", small);
        Run after = record("render", big);
        TraceAnalysis a = TraceAnalysis.of(after.store());
        TraceAnalysis b = TraceAnalysis.of(before.store());
        Report r = Report.compare(a, b, 1.0, "arenascope test", "render-128x72", "render-96x54");
        MemoryAnalysis arena = a.memories().stream().filter(m -> m.kind() == MemoryKind.ARENA).findFirst().orElseThrow();
        TraceDiff.Change capacity = r.diff().change(arena, "capacityBytes");
        assertEquals(4L << 20, (long) capacity.delta(), "the arena doubled");
        TraceDiff.Change peak = r.diff().change(arena, "peakUsedBytes");
        assertEquals(after.result().figures().get("arena_peak_bytes") - before.result().figures().get("arena_peak_bytes"),
                (long) peak.delta(), "the report's delta is what the workloads measured");
        assertTrue(peak.delta() > 0, "bigger frames take more bytes: " + peak.delta());
        assertFalse(r.gateFailures().isEmpty(), "a peak that grew by " + peak.deltaPct() + "% fails a 1% gate");
        // the scene is the same: its inputs' scope does not move
        var sceneNow = a.scopes(s -> s.name().equals("scene_inputs")).getFirst();
        TraceDiff.Change scene = r.diff().change(sceneNow, "peakBytes");
        assertEquals(0.0, scene.delta());
        assertFalse(scene.regression());
    }

    /** Records a workload into an .astrace file, as {@code arenascope record} does. */
    static void recordFile(String workload, Map<String, String> options, Path file) throws Exception {
        Workload w = Workloads.find(workload);
        try (Session session = new Session(workload); MemoryDevice d = Devices.open("virtual").device()) {
            session.addSink(TraceFormats.output(file).open(file));
            w.run(session, d, w.parse(options), Progress.NONE);
        }
    }

    @Test
    void ciGateOnTwoRecordedRuns(@TempDir Path dir) throws Exception {
        Map<String, String> small = new HashMap<>(SMALL.get("render"));
        Map<String, String> big = new HashMap<>(small);
        big.put("arena", "8MiB");
        big.put("width", "128");
        big.put("height", "72");
        Path before = dir.resolve("before.astrace");
        Path after = dir.resolve("after.astrace");
        recordFile("render", small, before);
        recordFile("render", big, after);
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        Path html = dir.resolve("review.html");
        int rc = Main.cli().run(new String[] {"report", after.toString(), "--baseline", before.toString(),
                "--fail-on-regression", "1", "--out", html.toString()}, new PrintStream(out), new PrintStream(err));
        assertEquals(4, rc, err.toString());
        assertTrue(err.toString().contains("regression: memories"), err.toString());
        assertTrue(Files.readString(html).contains("Gate failed"));
        err.reset();
        rc = Main.cli().run(new String[] {"report", before.toString(), "--baseline", after.toString(),
                "--fail-on-regression", "1", "--format", "md"}, new PrintStream(out), new PrintStream(err));
        assertEquals(0, rc, err.toString());
    }

    @Test
    void coarserPoolBinsWasteMoreAndReuseMore() {
        Map<String, String> fine = new HashMap<>(SMALL.get("particles"));
        fine.put("mantissa-bits", "4");
        Map<String, String> coarse = new HashMap<>(fine);
        coarse.put("mantissa-bits", "1");
        TraceAnalysis f = TraceAnalysis.of(record("particles", fine).store());
        TraceAnalysis c = TraceAnalysis.of(record("particles", coarse).store());
        Report r = Report.compare(c, f, null, "arenascope test", "coarse", "fine");
        MemoryAnalysis pool = c.memories().stream().filter(m -> m.kind() == MemoryKind.POOL).findFirst().orElseThrow();
        MemoryAnalysis finePool = f.memory(pool.name());
        TraceDiff.Change waste = r.diff().change(pool, "roundingWaste");
        assertTrue(waste.regression(), "1 mantissa bit rounds requests up by up to half");
        assertTrue(pool.roundingWaste() < 0.5 && finePool.roundingWaste() < 1.0 / 16, pool.roundingWaste() + " " + finePool.roundingWaste());
        assertTrue(c.poolBins().size() < f.poolBins().size(), "fewer, wider bins");
        long hitsCoarse = c.poolBins().stream().mapToLong(PoolBinAnalysis::hits).sum();
        long hitsFine = f.poolBins().stream().mapToLong(PoolBinAnalysis::hits).sum();
        assertTrue(hitsCoarse >= hitsFine, "wider bins serve more requests from held blocks");
        String md = ReportFormat.MARKDOWN.render(r);
        assertTrue(md.indexOf("## Regressions") < md.indexOf("## Memories"));
    }
}
