package dev.arenascope.core.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.arenascope.core.analysis.ListTraceView;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.TestTraces;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;

/** The three writers on one trace and on a baseline comparison; files land in target/report-samples for a look. */
class ReportWritersTest {
    static final Path OUT = Path.of("target/report-samples");
    static TraceAnalysis small;
    static TraceAnalysis large;

    @BeforeAll
    static void traces() throws IOException {
        Files.createDirectories(OUT);
        small = TraceAnalysis.of(TestTraces.render(12, 8, 4));
        large = TraceAnalysis.of(TestTraces.render(12, 10, 6));
    }

    static String render(Report r, ReportFormat f, String name) throws IOException {
        String s = f.render(r);
        Files.writeString(OUT.resolve(name + "." + f.extension()), s);
        return s;
    }

    @Test
    void jsonCarriesTheFiguresUnderStableNames() throws IOException {
        Report r = Report.of(small, "arenascope test", "render.astrace");
        JsonNode j = new ObjectMapper().readTree(render(r, ReportFormat.JSON, "single"));
        assertEquals(JsonReportWriter.SCHEMA, j.get("schema").asText());
        assertTrue(j.get("baseline").isNull());
        assertTrue(j.get("comparison").isNull());
        JsonNode mem = j.at("/trace/memories/0");
        MemoryAnalysis m = small.memories().getFirst();
        assertEquals(m.name(), mem.get("name").asText());
        assertEquals("arena", mem.get("kind").asText());
        assertEquals(m.peakUsedBytes(), mem.get("peakUsedBytes").asLong());
        assertEquals(m.footprintBytes(), mem.get("footprintBytes").asLong());
        assertEquals(m.fragmentation(), mem.get("fragmentation").asDouble(), 1e-12);
        assertEquals(m.highWater("backward").bytes(), mem.at("/highWaterMarks/2/bytes").asLong());
        assertEquals(TraceAnalysis.DEFAULT_BUCKETS, mem.at("/occupancy/usedMax").size());
        assertEquals("frame", j.at("/trace/scopes/0/path").asText());
        assertEquals(11, j.at("/trace/scopes/0/params/tiles").asLong());
        assertTrue(j.at("/trace/scopes/0/model").asText().contains("tiles"));
        JsonNode bin = j.at("/trace/poolBins/0");
        assertEquals("buffers", bin.get("pool").asText());
        assertTrue(bin.get("reuseFactor").asDouble() > 1);
        assertEquals(small.session().events(), j.at("/trace/session/events").asLong());
    }

    @Test
    void markdownHasTheSameTables() throws IOException {
        String md = render(Report.of(small, "arenascope test", "render.astrace"), ReportFormat.MARKDOWN, "single");
        assertTrue(md.startsWith("# Memory report: render-test"));
        for (String h : List.of("## Memories", "## Top scopes by peak bytes", "## Pool bins", "## Session")) {
            assertTrue(md.contains(h), h);
        }
        MemoryAnalysis m = small.memory("frame-arena");
        assertTrue(md.contains("| **frame-arena** · arena · virtual |"), md);
        assertTrue(md.contains(Bytes.format(m.peakUsedBytes())));
        assertFalse(md.contains("## Regressions"), "no baseline, no regressions section");
    }

    @Test
    void htmlIsSelfContained() throws IOException {
        String html = render(Report.of(small, "arenascope test", "render.astrace"), ReportFormat.HTML, "single");
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertFalse(html.contains("<script"), "no scripts");
        assertFalse(html.contains("http://") || html.contains("https://") || html.contains("url("), "no network resources");
        assertEquals(2, html.split("<svg class=\"chart\"", -1).length - 1, "one chart per memory");
        assertTrue(html.contains(Units.exactBytes(small.memory("frame-arena").peakUsedBytes())));
    }

    /** The right end of the first baseline line of {@code html}, against its chart's plot right edge and its first point: {x, edge, first x}. */
    private static double[] baselineEnd(String html) {
        int at = html.indexOf("class=\"l-base\" d=\"");
        assertTrue(at > 0, "a baseline line");
        int svg = html.lastIndexOf("<svg class=\"chart\" viewBox=\"0 0 ", at);
        String[] box = html.substring(svg + "<svg class=\"chart\" viewBox=\"0 0 ".length()).split("[ \"]", 2);
        String d = html.substring(at + "class=\"l-base\" d=\"".length(), html.indexOf('"', at + "class=\"l-base\" d=\"".length()));
        String last = d.substring(d.lastIndexOf('L') + 1);
        double first = Double.parseDouble(d.substring(1).split(",")[0].strip());
        return new double[] {Double.parseDouble(last.split(",")[0]), Double.parseDouble(box[0]) - 14, first};
    }

    private static long span(TraceAnalysis t) {
        return t.memory("frame-arena").occupancy().toNs() - t.memory("frame-arena").occupancy().fromNs();
    }

    @Test
    void theBaselineIsAlignedAtTheStartUnlessStretched() throws IOException {
        // the runs' spans are wall-clock time, so which is shorter (and by how much) is not known before: the
        // shorter one is the baseline, and its aligned line must end at its span's share of the plot
        TraceAnalysis run = span(small) < span(large) ? large : small;
        TraceAnalysis base = run == large ? small : large;
        Report r = Report.compare(run, base, null, "t", "run", "baseline");
        String aligned = render(r, ReportFormat.HTML, "aligned");
        double[] e = baselineEnd(aligned);
        double share = (double) span(base) / span(run);
        double expected = e[2] + (e[1] - e[2]) * share;
        assertEquals(expected, e[0], 1.0, "aligned at the start, the baseline ends at its span's share (" + share + ") of the plot");
        assertTrue(aligned.contains("baseline in use (aligned at the start)"));
        String stretched = render(r.withStretchedBaseline(true), ReportFormat.HTML, "stretched");
        double[] s2 = baselineEnd(stretched);
        assertEquals(s2[1], s2[0], 0.05, "stretched, it spans the plot");
        assertTrue(stretched.contains("baseline in use (stretched to this run"), "the legend says so");
    }

    @Test
    void baselineComparisonShowsTheExpectedDeltas() throws IOException {
        Report r = Report.compare(large, small, 5.0, "arenascope test", "large.astrace", "small.astrace");
        TraceDiff d = r.diff();
        TraceDiff.Change peak = d.change(large.memory("frame-arena"), "peakUsedBytes");
        long was = small.memory("frame-arena").peakUsedBytes();
        long now = large.memory("frame-arena").peakUsedBytes();
        // two more tiles (4096 B each) and two more lights (8192 B each) at the peak
        assertEquals(2 * 4096 + 2 * 8192, now - was);
        assertEquals(now - was, (long) peak.delta());
        assertTrue(peak.regression());
        assertFalse(r.gateFailures().isEmpty());
        assertTrue(d.regressions().contains(peak));
        List<TraceDiff.Change> regs = d.regressions();
        for (int i = 1; i < regs.size(); i++) {
            assertTrue(regs.get(i - 1).severity() >= regs.get(i).severity(), "worst first");
        }

        JsonNode j = new ObjectMapper().readTree(render(r, ReportFormat.JSON, "compare"));
        assertTrue(j.at("/comparison/gateFailed").asBoolean());
        assertEquals(5.0, j.at("/comparison/failOnRegressionPct").asDouble());
        JsonNode first = j.at("/comparison/regressions/0");
        assertTrue(first.get("regression").asBoolean());
        boolean found = false;
        for (JsonNode c : j.at("/comparison/changes")) {
            if (c.get("section").asText().equals("memories") && c.get("subject").asText().equals("frame-arena")
                    && c.get("figure").asText().equals("peakUsedBytes")) {
                assertEquals(now, c.get("value").asLong());
                assertEquals(was, c.get("baseline").asLong());
                assertEquals(now - was, c.get("delta").asLong());
                assertEquals((now - was) * 100.0 / was, c.get("deltaPct").asDouble(), 1e-9);
                assertTrue(c.get("failsGate").asBoolean());
                found = true;
            }
        }
        assertTrue(found);

        String md = render(r, ReportFormat.MARKDOWN, "compare");
        assertTrue(md.indexOf("## Regressions") < md.indexOf("## Memories"), "regressions first");
        assertTrue(md.contains("**Gate failed:**"));
        String html = render(r, ReportFormat.HTML, "compare");
        assertTrue(html.indexOf("id=\"regressions\"") < html.indexOf("id=\"memories\""), "regressions first");
        assertTrue(html.contains("Gate failed"));
        assertTrue(html.contains("class=\"l-base\""), "baseline drawn in the charts");

        // the same runs the other way round: improvements, no regression of peaks, gate passes
        Report back = Report.compare(small, large, 5.0, "arenascope test", "small", "large");
        assertTrue(back.gateFailures().isEmpty());
        assertTrue(back.diff().improvements().stream().anyMatch(c -> c.figure().key().equals("peakUsedBytes")));
        render(back, ReportFormat.HTML, "compare-back");
    }

    /** A trace of arenas, each allocating its peak once. */
    private static TraceAnalysis arenas(String session, Object... namesAndPeaks) {
        ListTraceView view = new ListTraceView();
        try (Session s = new Session(session)) {
            s.addSink(view);
            for (int i = 0; i < namesAndPeaks.length; i += 2) {
                long peak = (Long) namesAndPeaks[i + 1];
                int mem = s.registerMemory((String) namesAndPeaks[i], MemoryKind.ARENA, "virtual", 1 << 20, Map.of());
                s.publish(EventKind.ALLOC, 0, mem, 0, peak, peak, peak, 0, -1, -1);
            }
            s.flush();
        }
        return TraceAnalysis.of(view);
    }

    @Test
    void aMemoryInOneTraceOnlyIsAddedOrRemovedNotARegression() throws IOException {
        TraceAnalysis now = arenas("now", "kept", 2000L, "fresh", 5000L);
        TraceAnalysis before = arenas("before", "kept", 1000L, "gone", 3000L);
        Report r = Report.compare(now, before, 50.0, "arenascope test", "now.astrace", "before.astrace");
        TraceDiff d = r.diff();
        assertTrue(d.regressions().stream().allMatch(c -> c.subject().equals("kept")), d.regressions().toString());
        assertTrue(d.regressions().stream().anyMatch(c -> c.figure().key().equals("peakUsedBytes")));
        assertEquals(List.of("fresh"), d.added().stream().map(TraceDiff.Change::subject).distinct().toList());
        assertEquals(List.of("gone"), d.removed().stream().map(TraceDiff.Change::subject).distinct().toList());
        assertTrue(d.improvements().stream().noneMatch(c -> !c.subject().equals("kept")));
        TraceDiff.Change fresh = d.change(now.memory("fresh"), "peakUsedBytes");
        assertEquals(TraceDiff.Presence.ADDED, fresh.presence());
        assertFalse(fresh.regression());
        assertTrue(Double.isNaN(fresh.deltaPct()));
        // the gate sees kept's +100% only; at 150% nothing fails although a 5000-byte memory appeared
        assertTrue(r.gateFailures().stream().allMatch(c -> c.subject().equals("kept")));
        assertFalse(r.gateFailures().isEmpty());
        assertTrue(Report.compare(now, before, 150.0, "t", "", "").gateFailures().isEmpty());

        JsonNode j = new ObjectMapper().readTree(render(r, ReportFormat.JSON, "compare-added"));
        assertEquals("memories", j.at("/comparison/added/0/section").asText());
        assertEquals("fresh", j.at("/comparison/added/0/subject").asText());
        assertEquals(1, j.at("/comparison/added").size());
        assertEquals("gone", j.at("/comparison/removed/0/subject").asText());
        assertEquals(1, j.at("/comparison/removed").size());
        for (JsonNode c : j.at("/comparison/regressions")) {
            assertEquals("kept", c.get("subject").asText());
        }
        for (JsonNode c : j.at("/comparison/changes")) {
            if (!c.get("subject").asText().equals("kept")) {
                assertFalse(c.get("regression").asBoolean(), c.toString());
                assertTrue(c.get("delta").isNull() && c.get("deltaPct").isNull(), c.toString());
                assertEquals(c.get("subject").asText().equals("fresh") ? "added" : "removed", c.get("presence").asText());
            }
        }

        String md = render(r, ReportFormat.MARKDOWN, "compare-added");
        String regs = md.substring(md.indexOf("## Regressions"), md.indexOf("## Session"));
        assertFalse(regs.contains("fresh") || regs.contains("gone"), regs);
        assertTrue(md.contains("## Added: only in this trace\n\nNot compared, so neither regressions nor improvements.\n\n- memory: fresh\n"), md);
        assertTrue(md.contains("## Removed: only in the baseline\n\n- memory: gone\n"), md);
        assertTrue(md.contains("(added)"), md);

        String html = render(r, ReportFormat.HTML, "compare-added");
        String htmlRegs = html.substring(html.indexOf("id=\"regressions\""), html.indexOf("</section>", html.indexOf("id=\"regressions\"")));
        assertFalse(htmlRegs.contains("fresh") || htmlRegs.contains("gone"), htmlRegs);
        assertTrue(html.contains("<section id=\"added\">"), "added section");
        assertTrue(html.contains("<li>memory: fresh</li>"));
        assertTrue(html.contains("<li>memory: gone</li>"));
        assertFalse(html.contains("class=\"chg bad\">added"), "an added memory is not marked as worse");
    }

    @Test
    void gateIsStrictlyAboveThePercentage() {
        long was = small.memory("frame-arena").peakUsedBytes();
        long now = large.memory("frame-arena").peakUsedBytes();
        double pct = (now - was) * 100.0 / was;
        Report at = Report.compare(large, small, pct, "t", "", "");
        assertTrue(at.gateFailures().stream().noneMatch(c -> c.subject().equals("frame-arena") && c.figure().key().equals("peakUsedBytes")));
        Report below = Report.compare(large, small, pct - 0.001, "t", "", "");
        assertTrue(below.gateFailures().stream().anyMatch(c -> c.subject().equals("frame-arena") && c.figure().key().equals("peakUsedBytes")));
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ReportFormat.parse("pdf"));
        assertEquals(ReportFormat.MARKDOWN, ReportFormat.parse("markdown"));
        assertThrows(IllegalArgumentException.class, () -> Report.compare(small, large, -1.0, "t", "", ""));
        assertNotNull(Report.of(small, null, null).generator());
    }
}
