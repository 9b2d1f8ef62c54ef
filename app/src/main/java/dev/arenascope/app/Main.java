package dev.arenascope.app;

import java.util.List;

import dev.arenascope.app.bench.BenchCommand;
import dev.arenascope.app.cli.Cli;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.app.live.ListenCommand;
import dev.arenascope.app.plan.PlanCommand;
import dev.arenascope.app.pool.PoolBinsCommand;
import dev.arenascope.app.query.QueryCommand;
import dev.arenascope.app.whatif.WhatIfCommand;
import dev.arenascope.app.record.CalibrateCommand;
import dev.arenascope.app.record.RecordCommand;
import dev.arenascope.app.report.ReportCommand;
import dev.arenascope.app.sites.SitesCommand;
import dev.arenascope.app.trace.ConvertCommand;
import dev.arenascope.app.trace.GenerateCommand;
import dev.arenascope.app.trace.StatsCommand;
import dev.arenascope.app.ui.ArenaScopeApp;
import dev.arenascope.app.ui.Display;
import dev.arenascope.app.ui.OpenCommand;

/**
 * Entry point of the {@code arenascope} executable, and the one place the application is assembled:
 * with a sub-command it runs headless, with none it opens the window.
 */
public final class Main {
    private Main() {}

    /** Every sub-command, in the order {@code --help} lists them. */
    public static List<Command> commands() {
        return List.of(
                new OpenCommand(),
                new BenchCommand(),
                new PoolBinsCommand(),
                new WhatIfCommand(),
                new PlanCommand(),
                new ReportCommand(),
                new ConvertCommand(),
                new StatsCommand(),
                new GenerateCommand(),
                new SitesCommand(),
                new QueryCommand(),
                new ListenCommand(),
                new RecordCommand(),
                new CalibrateCommand());
    }

    /** The command line over {@link #commands()}. */
    public static Cli cli() {
        return new Cli(commands());
    }

    public static void main(String[] args) {
        if (Cli.isHeadless(args)) {
            int code = cli().run(args, System.out, System.err);
            System.out.flush();
            System.exit(code);
        }
        if (!Display.available()) {
            System.err.println("arenascope: no display to open the window on (set DISPLAY, or run a command: arenascope --help)");
            System.exit(ExitCodes.USAGE);
        }
        ArenaScopeApp.launchWindow(null);
        System.exit(ExitCodes.OK);
    }
}
