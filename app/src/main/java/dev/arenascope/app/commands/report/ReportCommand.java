package dev.arenascope.app.commands.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
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
import dev.arenascope.app.commands.job.JobCommands;
import dev.arenascope.app.commands.job.JobInputs;
import dev.arenascope.app.commands.whatif.WhatIfSections;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.TraceAnalysis;
import dev.arenascope.core.analysis.TraceDiff;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.report.Report;
import dev.arenascope.core.report.ReportFormat;
import dev.arenascope.core.report.WhatIfSection;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.file.FileKind;
import dev.arenascope.core.trace.torch.TorchAllocatorTrace;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.OutputFiles;
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
                                         [--stretch-baseline] [--fail-on-peak BYTES]
                                         [--whatif [--whatif-capacity SIZE] [--floor-time SECONDS]]
                       arenascope report TRACE TRACE... | FOLDER | 'GLOB' [--format html|md|json] [--out FILE]
                                         [--fail-on-imbalance PCT] [--fail-on-peak BYTES] [--rank-pattern REGEX]

                Analyses TRACE (.astrace, .jsonl or a PyTorch memory snapshot .pickle) and writes a report:
                per memory its peak, high-water marks, footprint and fragmentation with an occupancy chart;
                the top scopes by peak bytes with their params and calibrated models; pool bins; each memory
                plan's height against its lower bound and the search planner's packing.

                  --baseline TRACE          compare with this trace: every figure beside the baseline's,
                                            regressions first
                  --format FMT              html (one self-contained file), md (Markdown tables) or json
                                            (schema in docs/report-schema.md); default: from --out's
                                            extension, else html
                  --out FILE                write to FILE instead of standard output (written under a
                                            temporary name, moved there once complete)
                  --force                   replace --out when it exists (refused otherwise)
                  --fail-on-regression PCT  exit 4 when any peak grew more than PCT percent against the
                                            baseline (needs --baseline); the report is written first
                  --plan-search-ms MS       time the search planner may take per plan arena (default 2000)
                  --stretch-baseline        draw the baseline's occupancy stretched to this run's length
                                            (default: aligned at the start on the same time scale, as
                                            the window draws it)
                  --fail-on-peak BYTES      exit 4 when a peak in use passes BYTES (70GiB, 512MiB): the
                                            largest memory's, or any rank's of a job; the report is
                                            written first
                  --whatif                  (a PyTorch snapshot) add the caching allocator what-if: the
                                            model's check on the file, the recorded reserved peak as live
                                            + rounding + split remainders + cached, the --grid of
                                            arenascope whatif best first, and the floor; it reads the
                                            snapshot a second time and replays it about 13 times (on the
                                            cores), so it is asked for, not done by default
                  --whatif-capacity SIZE    the device's bytes for the what-if (first out-of-memory,
                                            garbage collection), e.g. 80GiB
                  --floor-time SECONDS      the planner's time for the what-if's floor (default 2; 0:
                                            the live peak alone)

                Several traces, a folder or a glob are a job (one rank per file, named as for stats):
                the report is the job's: the gates' verdict, small multiples (a sparkline of live bytes
                per rank, one byte axis), the rank table, max / median / min per column, and the worst
                rank's sites against the median rank's (md is the text form for a terminal).
                  --fail-on-imbalance PCT   exit 4 when the worst rank's peak live is more than PCT
                                            percent over the median rank's; one line names the rank
                  --rank-pattern REGEX      name ranks by REGEX's first group in the file name
                A rank that cannot be read is a row with its reason; the others are reported; exit 2.

                A damaged TRACE (a recording cut off mid-write, bad lines) is reported as far as it is
                sound; the report is written, then one line names the file and the byte offset or line
                of its first problem and what was recovered, and the exit code is 2.

                Exit codes: 0 written, 2 bad usage or an unreadable or damaged trace (or rank), 4 a gate
                failed: regression, imbalance or peak (a damaged trace's 2 comes first).
                """;
    }

    @Override
    public int run(List<String> raw, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args("report", raw, Set.of("stretch-baseline", "force", "whatif"));
        if (a.positionals().isEmpty()) {
            throw new UsageException("report: missing TRACE (see arenascope report --help)");
        }
        boolean job = JobInputs.isJob(a.positionals());
        if (a.positionals().size() > 1 && !job) {
            throw new UsageException("report: unexpected argument '" + a.positionals().get(1) + "' (one TRACE; a baseline goes after --baseline)");
        }
        String baselineArg = a.string("baseline", null);
        String outArg = a.string("out", null);
        String formatArg = a.string("format", null);
        String gateArg = a.string("fail-on-regression", null);
        long searchMs = a.longValue("plan-search-ms", 2000);
        boolean stretch = a.flag("stretch-baseline");
        String imbalanceArg = a.string("fail-on-imbalance", null);
        long peakLimit = a.bytes("fail-on-peak", -1);
        String rankPattern = a.string("rank-pattern", null);
        boolean force = a.flag("force");
        boolean whatIf = a.flag("whatif");
        long whatIfCapacity = a.has("whatif-capacity") ? a.bytes("whatif-capacity", 0) : 0;
        double floorTime = a.doubleValue("floor-time", 2);
        boolean whatIfOptions = a.has("whatif-capacity") || a.has("floor-time");
        a.finish();
        if (whatIfOptions && !whatIf) {
            throw new UsageException("report: --whatif-capacity and --floor-time go with --whatif");
        }
        if (a.has("whatif-capacity") && whatIfCapacity <= 0) {
            throw new UsageException("report: --whatif-capacity must be above 0");
        }
        if (floorTime < 0) {
            throw new UsageException("report: --floor-time must be 0 or more seconds");
        }
        if (outArg != null) {
            // the report replaces --out only when complete, with --force, and never a file this run reads
            Path target = Path.of(outArg);
            if (job) {
                for (Path rank : JobInputs.files("report", a.positionals())) {
                    if (OutputFiles.sameFile(target, rank)) {
                        throw new UsageException("report: --out " + target + " is one of the job's traces (" + rank + "); name another file");
                    }
                }
            } else if (OutputFiles.sameFile(target, Path.of(a.positionals().getFirst()))) {
                throw new UsageException("report: --out " + target + " is the trace being reported on; name another file");
            }
            if (baselineArg != null && OutputFiles.sameFile(target, Path.of(baselineArg))) {
                throw new UsageException("report: --out " + target + " is the --baseline trace; name another file");
            }
            FileArgs.output("report", "--out", outArg, force);  // before any trace is read
        }
        if (job) {
            JobCommands.refuse("report", "--baseline", baselineArg != null, "compare ranks with arenascope sites --rank A --baseline-rank B");
            JobCommands.refuse("report", "--fail-on-regression", gateArg != null, "gate with --fail-on-imbalance or --fail-on-peak");
            JobCommands.refuse("report", "--stretch-baseline", stretch, "there is no baseline to stretch");
            JobCommands.refuse("report", "--whatif", whatIf, "run arenascope whatif RANK.pickle --grid on the rank in question");
            return JobReports.run(a.positionals(), rankPattern, imbalanceArg == null ? null : percent(imbalanceArg, "--fail-on-imbalance"),
                    peakLimit < 0 ? null : peakLimit, format(formatArg, outArg), outArg, force, out, err);
        }
        if (imbalanceArg != null) {
            throw new UsageException("report: --fail-on-imbalance needs a job: several traces, a folder or a glob (one rank has no imbalance)");
        }
        Path trace = Path.of(a.positionals().getFirst());
        if (searchMs < 0) {
            throw new UsageException("report: --plan-search-ms must be >= 0, got " + searchMs);
        }
        ReportFormat format = format(formatArg, outArg);
        Double gate = gateArg == null ? null : percent(gateArg, "--fail-on-regression");
        if (stretch && baselineArg == null) {
            throw new UsageException("report: --stretch-baseline needs --baseline TRACE");
        }
        if (gate != null && baselineArg == null) {
            throw new UsageException("report: --fail-on-regression needs --baseline TRACE to compare with");
        }
        List<ReadReport> damaged = new ArrayList<>();
        TraceAnalysis current = analyse(trace, searchMs, damaged); // an unreadable TRACE is named here first
        if (whatIf && FileKind.of(trace) != FileKind.PICKLE) {
            throw new UsageException("report: --whatif needs a PyTorch memory snapshot (.pickle); " + trace + " is " + FileKind.of(trace).description());
        }
        Report report;
        if (baselineArg != null) {
            Path baseline = Path.of(baselineArg);
            TraceAnalysis before = analyse(baseline, searchMs, damaged);
            report = Report.compare(current, before, gate, AppInfo.tool(), trace.getFileName().toString(),
                    baseline.getFileName().toString()).withStretchedBaseline(stretch);
        } else {
            report = Report.of(current, AppInfo.tool(), trace.getFileName().toString());
        }
        Report written = whatIf ? report.withWhatIf(whatIf(trace, whatIfCapacity, floorTime)) : report;
        emit(w -> format.write(written, w), format, outArg, force, out, err);
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
        boolean overPeak = false;
        if (peakLimit >= 0) {
            // one rank of its own: the memory with the largest peak against the limit
            var largest = current.memories().stream().max(Comparator.comparingLong(
                    MemoryAnalysis::peakUsedBytes)).orElse(null);
            if (largest != null && largest.peakUsedBytes() > peakLimit) {
                overPeak = true;
                err.println("report: peak: " + trace.getFileName() + " " + largest.name() + " peaks at " + bytes(largest.peakUsedBytes())
                        + " (" + largest.peakUsedBytes() + " bytes), over the limit " + bytes(peakLimit));
            }
        }
        if (!damaged.isEmpty()) {
            return ExitCodes.USAGE;
        }
        return failed.isEmpty() && !overPeak ? ExitCodes.OK : EXIT_REGRESSION;
    }

    private static WhatIfSection whatIf(Path trace, long capacity, double floorTime) throws IOException {
        TorchAllocatorTrace t;
        try {
            t = TorchAllocatorTrace.read(trace);
        } catch (TraceFormatException e) {
            throw TraceLoader.unreadable("report: --whatif", trace, e); // as every command says a file it cannot read
        }
        if (t.devices().isEmpty()) {
            throw new UsageException("report: --whatif: " + trace + ": the snapshot has no device");
        }
        return WhatIfSections.of(t, capacity, floorTime);
    }

    /** What a report writes, given the writer. */
    @FunctionalInterface
    interface Body {
        void write(Writer w) throws IOException;
    }

    /** Writes {@code body} to standard output, or to {@code outArg} through a temporary file moved into place. */
    static void emit(Body body, ReportFormat format, String outArg, boolean force, PrintStream out, PrintStream err) throws IOException {
        if (outArg == null) {
            Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            body.write(w);
            w.flush();
        } else {
            Path target = Path.of(outArg);
            Path tmp = OutputFiles.temporaryFor(target); // its own name: two reports to one --out never share it
            // an encoder that replaces what UTF-8 cannot hold (a lone surrogate in a recorded name) instead of
            // failing with "Input length = 1", as the stdout path does
            try (Writer w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(tmp), StandardCharsets.UTF_8))) {
                body.write(w);
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                throw new UsageException("report: cannot write " + target + ": " + e.getMessage());
            }
            try {
                OutputFiles.commit(tmp, target, force);
            } finally {
                Files.deleteIfExists(tmp);     // left only when the move failed
            }
            err.println("report: wrote " + target + " (" + format.extension() + ", " + Files.size(target) + " bytes)");
        }
    }

    private static String bytes(double v) {
        return Bytes.format((long) v);
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
    static double percent(String s, String option) {
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
            throw new UsageException("report: " + option + " expects a percentage >= 0 such as 5 or 2.5%, got '" + s + "'");
        }
    }

    /**
     * Reads and analyses one trace; unreadable input becomes a one-line usage error (exit 2), a damaged
     * file's read report is added to {@code damaged}.
     */
    static TraceAnalysis analyse(Path file, long searchMs, List<ReadReport> damaged) throws IOException {
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
