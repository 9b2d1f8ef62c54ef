package dev.arenascope.app;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import dev.arenascope.app.cli.Cli;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.app.commands.live.ListenCommand;
import dev.arenascope.app.commands.plan.PlanCommand;
import dev.arenascope.app.commands.pool.PoolBinsCommand;
import dev.arenascope.app.commands.query.QueryCommand;
import dev.arenascope.app.commands.whatif.WhatIfCommand;
import dev.arenascope.app.commands.record.CalibrateCommand;
import dev.arenascope.app.commands.record.RecordCommand;
import dev.arenascope.app.commands.report.ReportCommand;
import dev.arenascope.app.commands.sites.SitesCommand;
import dev.arenascope.app.commands.trace.ConvertCommand;
import dev.arenascope.app.commands.trace.GenerateCommand;
import dev.arenascope.app.commands.trace.StatsCommand;
import dev.arenascope.app.ui.ArenaScopeApp;
import dev.arenascope.app.ui.Display;
import dev.arenascope.app.ui.OpenCommand;

/**
 * Entry point of the {@code arenascope} executable, and the one place the application is assembled:
 * with a sub-command it runs headless, with none it opens the window.
 */
public final class Main {
    private Main() {}

    /**
     * Every sub-command, in the order {@code --help} lists them: the built-in ones and those found on
     * the class path ({@link #found()}).
     */
    public static List<Command> commands() {
        List<Command> all = new ArrayList<>(builtIn());
        all.addAll(1, found());
        return List.copyOf(all);
    }

    /**
     * Commands of other modules, found through {@link ServiceLoader} when their jar is on the class path:
     * {@code bench} lives in its own module ({@code app-bench}, which depends on this one: it measures the
     * window and the commands from outside), whose jar the launcher and the installers put after the
     * app's; without it {@code bench} is an unknown command.
     */
    public static List<Command> found() {
        List<Command> found = new ArrayList<>();
        ServiceLoader.load(Command.class, Main.class.getClassLoader()).forEach(found::add);
        return found;
    }

    private static List<Command> builtIn() {
        return List.of(
                new OpenCommand(),
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
        return new Cli(builtIn(), Main::found);
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
        ArenaScopeApp.launchWindow(List.of()); // no file: the live demo
        System.exit(ExitCodes.OK);
    }
}
