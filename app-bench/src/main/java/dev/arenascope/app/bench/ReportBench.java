package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.report.Report;
import dev.arenascope.core.report.ReportFormat;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.store.EventStore;

/**
 * The report's figures on a synthetic trace (an arena, a pool and a plan arena; 1 M events, 100 k
 * quick): {@code report.analyse_ns_per_event}, the whole {@link TraceAnalysis} (one pass over the
 * store's events plus the calibration pass) per event; {@code report.html_ms} and {@code report.json_ms},
 * writing the report of that analysis.
 */
public final class ReportBench implements BenchSuite {

    @Override
    public String group() {
        return "report";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        int rounds = quick ? 3 : 7;
        int warmups = quick ? 1 : 2;
        long events = quick ? 100_000 : 1_000_000;
        EventStore store = new EventStore("bench-report");
        SyntheticTrace.write(11, events, store);
        long n = store.eventCount();
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("report.analyse_ns_per_event", Medians.medianOf(warmups, rounds,
                () -> Medians.nsPerOp(n, () -> TraceAnalysis.of(store).memories().size())));
        Report report = Report.of(TraceAnalysis.of(store), "arenascope bench", "synthetic");
        figures.put("report.html_ms", Medians.medianOf(warmups, rounds,
                () -> Medians.nsPerOp(1, () -> ReportFormat.HTML.render(report).length()) / 1e6));
        figures.put("report.json_ms", Medians.medianOf(warmups, rounds,
                () -> Medians.nsPerOp(1, () -> ReportFormat.JSON.render(report).length()) / 1e6));
        return figures;
    }
}
