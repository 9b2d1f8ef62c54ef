package dev.arenascope.app.bench;

import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.report.JsonOutput;
import dev.arenascope.core.trace.file.OutputFiles;

/** {@code arenascope bench}: runs the project's benchmarks and writes a flat JSON object of figures. */
public final class BenchCommand implements Command {
    /** Every suite, in the order they run. */
    static final List<BenchSuite> SUITES = List.of(
            new ArenaBench(),
            new PoolBench(),
            new TorchBench(),
            new TorchShapeBench(),
            new WhatIfBench(),
            new LiveBench(),
            new TraceBench(),
            new OocBench(),
            new UiBenchSuite(),
            new StripesBench(),
            new SiteViewBench(),
            new AllocatorStateBench(),
            new PlanBench(),
            new PlanScaleBench(),
            new PlanBanksBench(),
            new ReportBench(),
            new SitesBench(),
            new JobBench(),
            new SqlBench(),
            new CliBench());

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public String summary() {
        return "measure the hot paths and write the figures as flat JSON";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope bench [--json FILE [--force]] [--only GROUP[,GROUP...]] [--quick]

                Runs the project's benchmarks in this process and prints one line per figure
                (median of several rounds after a warm-up). Figures are named group.figure_unit,
                e.g. arena.alloc_ns; the names are stable.

                  --json FILE   also write the figures as one flat JSON object to FILE (refused when
                                FILE exists, unless --force: then replaced once complete)
                  --only LIST   run only these groups (e.g. arena,pool)
                  --quick       fewer, shorter rounds: a smoke test, not a measurement
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Args a = new Args("bench", args, Set.of("quick", "force"));
        if (!a.positionals().isEmpty()) {
            throw new UsageException("bench: unexpected argument '" + a.positionals().get(0) + "'");
        }
        String json = a.string("json", null);
        String only = a.string("only", null);
        boolean quick = a.flag("quick");
        boolean force = a.flag("force");
        a.finish();
        if (json != null) {
            FileArgs.output("bench", "--json", json, force);   // before minutes of measuring, not after
        }
        Set<String> groups = only == null ? null : Set.of(only.split(","));
        if (groups != null) {
            for (String g : groups) {
                if (SUITES.stream().noneMatch(s -> s.group().equals(g))) {
                    throw new UsageException("bench: unknown group '" + g + "' (groups: "
                            + String.join(", ", SUITES.stream().map(BenchSuite::group).toList()) + ")");
                }
            }
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        for (BenchSuite suite : SUITES) {
            if (groups != null && !groups.contains(suite.group())) {
                continue;
            }
            err.println("bench: running " + suite.group() + (quick ? " (quick)" : "") + " ...");
            Map<String, Double> f = suite.run(quick);
            f.forEach((k, v) -> out.printf("%-36s %,.2f%n", k, v));
            figures.putAll(f);
        }
        if (json != null) {
            Path p = Path.of(json);
            StringWriter text = new StringWriter();
            JsonGenerator g = JsonOutput.open(text); // as every command's JSON: a figure that is not a number is null
            g.writeStartObject();
            for (Map.Entry<String, Double> e : figures.entrySet()) {
                JsonOutput.number(g, e.getKey(), e.getValue());
            }
            g.writeEndObject();
            JsonOutput.end(g);
            OutputFiles.write(p, force, f -> Files.writeString(f, text.toString()));
            err.println("bench: wrote " + figures.size() + " figures to " + p);
        }
        return 0;
    }
}
