package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.report.Report;
import dev.arenascope.core.report.ReportFormat;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.store.EventStore;

/**
 * A snapshot without {@code time_us} speaks in entries, and the blocks live before its trace are named
 * so: what {@code sites} and the window's Sites caption print comes from {@link SiteAnalysis}, checked
 * here against the generator's own counts.
 */
class UntimedSnapshotTest {

    private static EventStore imported(SyntheticSnapshot.Spec spec, SyntheticSnapshot.Summary[] sum) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        sum[0] = SyntheticSnapshot.write(out, spec);
        EventStore store = new EventStore();
        TorchSnapshotToTrace.convert(out.toByteArray(), "untimed.pickle", store);
        return store;
    }

    @Test
    void timeAxisWritesEntries() {
        assertEquals("entry 3,697", TimeAxis.ENTRIES.at(3_697_000));
        assertEquals("entry 3697", TimeAxis.ENTRIES.plain(3_697_000));
        assertEquals("1 entry", TimeAxis.ENTRIES.span(1_000));
        assertEquals("1,180 entries", TimeAxis.ENTRIES.span(1_180_000));
        assertEquals("3.27 ms", TimeAxis.TIME.at(3_270_000));
        assertEquals("0.003697 s", TimeAxis.TIME.plain(3_697_000));
        assertEquals(TimeAxis.ENTRIES, TimeAxis.of(java.util.Map.of("time_axis", "entry_order")));
        assertEquals(TimeAxis.TIME, TimeAxis.of(java.util.Map.of("time_axis", "mixed")));
        assertEquals(TimeAxis.TIME, TimeAxis.of(null));
    }

    /** The time axis labels of an HTML report's charts. */
    private static List<String> axisLabels(String html) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<text class=\"xlab\"[^>]*>([^<]*)</text>").matcher(html);
        List<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void theReportsChartsCountEntriesWhereTheSnapshotHasNoTimes() throws Exception {
        SyntheticSnapshot.Summary[] sum = new SyntheticSnapshot.Summary[1];
        EventStore store = imported(new SyntheticSnapshot.Spec(7, 2000, 100, 0, 0, 0, false, false), sum);
        String html = ReportFormat.HTML.render(Report.of(TraceAnalysis.of(store), "test", "untimed.pickle"));
        List<String> labels = axisLabels(html);
        assertFalse(labels.isEmpty(), "the chart has time ticks");
        for (String l : labels) {
            assertTrue(l.matches("[0-9][0-9,]*"), "an entry number, no unit of time: '" + l + "' of " + labels);
        }
        assertTrue(html.contains("<text class=\"xtitle\"") && html.contains(">" + TimeAxis.ENTRIES.title() + "<"), "the axis says it counts entries");
        // a timed trace's chart: one unit on every tick, the window's (TimeAxis.ticks), and no entry title
        String timed = ReportFormat.HTML.render(Report.of(TraceAnalysis.of(dev.arenascope.core.analysis.TestTraces.render(12, 8, 4)), "test", "r.astrace"));
        List<String> times = axisLabels(timed);
        assertFalse(times.isEmpty());
        assertEquals(1, times.stream().map(l -> l.substring(l.lastIndexOf(' ') + 1)).distinct().count(), "one unit: " + times);
        assertFalse(timed.contains("class=\"xtitle\""));
    }

    @Test
    void questionsOfAnUntimedSnapshotSpeakInEntries() throws Exception {
        SyntheticSnapshot.Summary[] sum = new SyntheticSnapshot.Summary[1];
        EventStore store = imported(new SyntheticSnapshot.Spec(7, 2000, 100, 0, 0, 0, false, false), sum);
        MemoryInfo cuda = store.memories().getFirst();
        assertEquals(TimeAxis.ENTRIES, TimeAxis.of(cuda.attributes()));
        SiteAnalysis sa = SiteAnalysis.of(store, cuda, false);
        SiteBreakdown peak = sa.ask(new SiteQuestion.AtPeak());
        assertEquals(sum[0].peakDefault(), peak.totalBytes(), "the generator's peak");
        String q = peak.question();
        assertTrue(q.contains("at entry " + TimeAxis.entry(sa.peakNs()) + ")"), q);
        assertFalse(q.matches(".*\\d s\\b.*"), "no seconds in " + q);
        String live = sa.ask(new SiteQuestion.LiveAt(1_234_000)).question();
        assertEquals("live at entry 1234", live);
        String temps = sa.ask(new SiteQuestion.Temporaries(0, 100_000, 10_000)).question();
        assertTrue(temps.contains("freed within 10 entries") && temps.contains("from entry 0 to entry 100"), temps);
    }

    @Test
    void blocksLiveBeforeTheTraceAreNamedSoNeverNoSite() throws Exception {
        SyntheticSnapshot.Summary[] sum = new SyntheticSnapshot.Summary[1];
        EventStore store = imported(new SyntheticSnapshot.Spec(7, 2000, 100, 0, 0, 0, false, false), sum);
        assertTrue(sum[0].initial() > 0, "the generator leaves blocks live before the trace");
        int before = 0;
        long beforeBytes = 0;
        for (long i = 0; i < store.eventCount(); i++) {
            Event e = store.event(i);
            if (e.kind() == EventKind.ALLOC && e.category() >= 0 && Event.BEFORE_RECORDING.equals(store.string(e.category()))) {
                before++;
                beforeBytes += e.b();
            }
        }
        assertEquals(sum[0].initial(), before, "every block older than the trace, and no other, carries the category");
        MemoryInfo cuda = store.memories().getFirst();
        SiteAnalysis sa = SiteAnalysis.of(store, cuda, false);
        // at the trace's first instant only the older blocks are live: under their frames where the file
        // has them, else under the name itself, never "(no site)"
        // (entry 0's own allocation is live there too, under its own site)
        SiteBreakdown start = sa.ask(new SiteQuestion.LiveAt(0));
        List<String> labels = start.rows().stream().map(SiteBreakdown.Row::label).toList();
        assertFalse(labels.contains("(no site)"), labels.toString());
        SiteBreakdown byCategory = sa.ask(new SiteQuestion.LiveAt(0), SiteAnalysis.By.CATEGORY);
        SiteBreakdown.Row older = byCategory.rows().stream().filter(r -> r.label().equals(Event.BEFORE_RECORDING)).findFirst().orElseThrow();
        assertEquals(beforeBytes, older.bytes(), "the older blocks' bytes, as the file has them");
        assertEquals(before, older.count());
        assertTrue(start.totalBytes() - beforeBytes <= sum[0].peakDefault(), "the rest is the trace's own");
    }
}
