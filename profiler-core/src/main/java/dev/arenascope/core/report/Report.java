package dev.arenascope.core.report;

import java.util.List;

import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;

/**
 * What a report says: one trace's analyses, and optionally their comparison with a baseline and a
 * regression gate. The writers ({@link ReportFormat}) render the same content as HTML, Markdown or JSON.
 *
 * @param trace       the analyses of the trace under review
 * @param diff        its comparison with a baseline, or null
 * @param gatePct     the regression gate in percent ({@code --fail-on-regression}), or null for none
 * @param generator   the tool and version that wrote the report, e.g. {@code arenascope 0.1.0}
 * @param source      where the trace came from (a file name), or empty
 * @param baselineSource where the baseline came from, or empty
 * @param stretchBaseline whether the baseline's occupancy is drawn stretched to this run's length
 * @param whatIf      the caching allocator what-if of a PyTorch snapshot ({@code report --whatif}), or null
 */
public record Report(TraceAnalysis trace, TraceDiff diff, Double gatePct, String generator, String source,
                     String baselineSource, boolean stretchBaseline, WhatIfSection whatIf) {

    /** Scopes listed in the HTML and Markdown tables (JSON lists every scope). */
    public static final int TOP_SCOPES = 20;

    public Report {
        if (trace == null) {
            throw new IllegalArgumentException("report needs a trace analysis");
        }
        if (diff != null && diff.current() != trace) {
            throw new IllegalArgumentException("report's diff must compare the report's own trace");
        }
        if (gatePct != null && (gatePct.isNaN() || gatePct < 0)) {
            throw new IllegalArgumentException("regression gate must be a percentage >= 0, got " + gatePct);
        }
        generator = generator == null ? "arenascope" : generator;
        source = source == null ? "" : source;
        baselineSource = baselineSource == null ? "" : baselineSource;
    }

    /** A report of one trace with no baseline. */
    public static Report of(TraceAnalysis trace, String generator, String source) {
        return new Report(trace, null, null, generator, source, "", false, null);
    }

    /** A report of {@code trace} against {@code baseline}, gated at {@code gatePct} (null for no gate). */
    public static Report compare(TraceAnalysis trace, TraceAnalysis baseline, Double gatePct, String generator,
                                 String source, String baselineSource) {
        return new Report(trace, TraceDiff.of(trace, baseline), gatePct, generator, source, baselineSource, false, null);
    }

    /**
     * This report with the baseline's occupancy drawn stretched to this run's length ({@code true}) or,
     * the default and the window's rule, aligned at the start on the same time scale.
     */
    public Report withStretchedBaseline(boolean stretch) {
        return new Report(trace, diff, gatePct, generator, source, baselineSource, stretch, whatIf);
    }

    /** This report with a what-if section (null: none). */
    public Report withWhatIf(WhatIfSection section) {
        return new Report(trace, diff, gatePct, generator, source, baselineSource, stretchBaseline, section);
    }

    /** Whether a baseline is attached. */
    public boolean hasBaseline() {
        return diff != null;
    }

    /** The peak regressions past the gate; empty without a baseline or gate. */
    public List<TraceDiff.Change> gateFailures() {
        return diff == null || gatePct == null ? List.of() : diff.gate(gatePct);
    }
}
