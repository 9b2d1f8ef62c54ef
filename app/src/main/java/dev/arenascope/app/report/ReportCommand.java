package dev.arenascope.app.report;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.TraceLoader;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.info.AppInfo;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.report.Report;
import dev.arenascope.core.report.ReportFormat;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.ReadReport;

/**
 * {@code arenascope report}: one trace's memory report as HTML, Markdown or JSON, optionally against
 * a baseline trace with a regression gate for CI. Exit codes: 0 written; 2 bad usage, an unreadable
 * trace, or a damaged one (the report of what was recovered is written first, then one line per damaged
 * file names its first problem, as {@code stats} and {@code convert} do); 4 a peak grew past
 * {@code --fail-on-regression} (the report is still written first).
 */
public final class ReportCommand implements Command {
    /** Exit code when a peak grew past the gate. */
    public static final int EXIT_REGRESSION = ExitCodes.REGRESSION;

    @Override
    public String name() {
        return "report";
    }

    @Override
    public String summary() {
        return "write a trace's memory report (HTML, Markdown, JSON), optionally against a baseline";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope report TRACE [--baseline TRACE] [--format html|md|json] [--out FILE]
                                         [--fail-on-regression PCT] [--plan-search-ms MS]
                                         [--stretch-baseline]

                Analyses TRACE (.astrace, .jsonl or a PyTorch memory snapshot .pickle) and writes a report:
                per memory its peak, high-water marks, footprint and fragmentation with an occupancy chart;
                the top scopes by peak bytes with their params and calibrated models; pool bins; each memory
                plan's height against its lower bound and the search planner's packing.

                  --baseline TRACE          compare with this trace: every figure beside the baseline's,
                                            regressions first
                  --format FMT              html (one self-contained file), md (Markdown tables) or json
                                            (schema in docs/report-schema.md); default: from --out's
                                            extension, else html
                  --out FILE                write to FILE instead of standard output
                  --fail-on-regression PCT  exit 4 when any peak grew more than PCT percent against the
                                            baseline (needs --baseline); the report is written first
                  --plan-search-ms MS       time the search planner may take per plan arena (default 2000)
                  --stretch-baseline        draw the baseline's occupancy stretched to this run's length
                                            (default: aligned at the start on the same time scale, as
                                            the window draws it)

                A damaged TRACE (a recording cut off mid-write, bad lines) is reported as far as it is
                sound; the report is written, then one line names the file and the byte offset or line
                of its first problem and what was recovered, and the exit code is 2.

                Exit codes: 0 written, 2 bad usage or an unreadable or damaged trace, 4 regression past
                the gate (a damaged trace's 2 comes first).
                """;
    }

    @Override
    public int run(List<String> raw, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args("report", raw, Set.of("stretch-baseline"));
        if (a.positionals().isEmpty()) {
            throw new UsageException("report: missing TRACE (see arenascope report --help)");
        }
        if (a.positionals().size() > 1) {
            throw new UsageException("report: unexpected argument '" + a.positionals().get(1) + "' (one TRACE; a baseline goes after --baseline)");
        }
        Path trace = Path.of(a.positionals().getFirst());
        String baselineArg = a.string("baseline", null);
        String outArg = a.string("out", null);
        String formatArg = a.string("format", null);
        String gateArg = a.string("fail-on-regression", null);
        long searchMs = a.longValue("plan-search-ms", 2000);
        boolean stretch = a.flag("stretch-baseline");
        a.finish();
        if (searchMs < 0) {
            throw new UsageException("report: --plan-search-ms must be >= 0, got " + searchMs);
        }
        ReportFormat format = format(formatArg, outArg);
        if (outArg != null) {
            FileArgs.output("report", "--out", outArg);
        }
        Double gate = gateArg == null ? null : percent(gateArg);
        if (stretch && baselineArg == null) {
            throw new UsageException("report: --stretch-baseline needs --baseline TRACE");
        }
        if (gate != null && baselineArg == null) {
            throw new UsageException("report: --fail-on-regression needs --baseline TRACE to compare with");
        }
        List<ReadReport> damaged = new ArrayList<>();
        TraceAnalysis current = analyse(trace, searchMs, damaged);
        Report report;
        if (baselineArg != null) {
            Path baseline = Path.of(baselineArg);
            TraceAnalysis before = analyse(baseline, searchMs, damaged);
            report = Report.compare(current, before, gate, AppInfo.tool(), trace.getFileName().toString(),
                    baseline.getFileName().toString()).withStretchedBaseline(stretch);
        } else {
            report = Report.of(current, AppInfo.tool(), trace.getFileName().toString());
        }
        if (outArg == null) {
            Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            format.write(report, w);
            w.flush();
        } else {
            Path target = Path.of(outArg);
            Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
            // an encoder that replaces what UTF-8 cannot hold (a lone surrogate in a recorded name) instead of
            // failing with "Input length = 1", as the stdout path does
            try (Writer w = new java.io.BufferedWriter(new java.io.OutputStreamWriter(Files.newOutputStream(tmp), StandardCharsets.UTF_8))) {
                format.write(report, w);
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                throw new UsageException("report: cannot write " + target + ": " + e.getMessage());
            }
            try {
                Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);     // left only when the move failed
            }
            err.println("report: wrote " + target + " (" + format.extension() + ", " + Files.size(target) + " bytes)");
        }
        List<TraceDiff.Change> failed = report.gateFailures();
        if (!failed.isEmpty()) {
            for (TraceDiff.Change c : failed) {
                err.println(String.format(Locale.ROOT, "report: regression: %s %s %s: %s -> %s (%+.2f%%, gate %.2f%%)",
                        c.section(), c.subject(), c.figure().label(), bytes(c.baselineValue()), bytes(c.value()),
                        Double.isInfinite(c.deltaPct()) ? 100.0 : c.deltaPct(), gate));
            }
        }
        for (ReadReport d : damaged) {
            err.println("arenascope report: " + d.summary() + "; the report covers what was recovered");
        }
        if (!damaged.isEmpty()) {
            return ExitCodes.USAGE;
        }
        return failed.isEmpty() ? ExitCodes.OK : EXIT_REGRESSION;
    }

    private static String bytes(double v) {
        return dev.arenascope.core.device.Bytes.format((long) v);
    }

    private static ReportFormat format(String formatArg, String outArg) {
        if (formatArg != null) {
            try {
                return ReportFormat.parse(formatArg);
            } catch (IllegalArgumentException e) {
                throw new UsageException("report: --format: " + e.getMessage());
            }
        }
        if (outArg != null) {
            String n = outArg.toLowerCase(Locale.ROOT);
            if (n.endsWith(".md") || n.endsWith(".markdown")) {
                return ReportFormat.MARKDOWN;
            }
            if (n.endsWith(".json")) {
                return ReportFormat.JSON;
            }
        }
        return ReportFormat.HTML;
    }

    /** {@code 5}, {@code 2.5} or {@code 5%}: a percentage >= 0. */
    static double percent(String s) {
        String t = s.trim();
        if (t.endsWith("%")) {
            t = t.substring(0, t.length() - 1).trim();
        }
        try {
            double d = Double.parseDouble(t);
            if (Double.isNaN(d) || Double.isInfinite(d) || d < 0) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("report: --fail-on-regression expects a percentage >= 0 such as 5 or 2.5%, got '" + s + "'");
        }
    }

    /**
     * Reads and analyses one trace; unreadable input becomes a one-line usage error (exit 2), a damaged
     * file's read report is added to {@code damaged}.
     */
    static TraceAnalysis analyse(Path file, long searchMs, List<ReadReport> damaged) throws java.io.IOException {
        LoadedTrace t = TraceLoader.load("report", file);
        if (t.report().damaged()) {
            damaged.add(t.report());
        }
        TraceAnalysis a = TraceAnalysis.of(t.store());
        if (!a.plans().isEmpty() && searchMs > 0) {
            a = a.withPlans(a.plans().stream().map(p -> p.withSearch(searchMs * 1_000_000L)).toList());
        }
        return a;
    }

}
