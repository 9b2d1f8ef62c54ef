package dev.arenascope.app.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.arenascope.app.bench.BenchCommand;
import dev.arenascope.app.live.ListenCommand;
import dev.arenascope.app.record.CalibrateCommand;
import dev.arenascope.app.record.RecordCommand;
import dev.arenascope.app.trace.ConvertCommand;
import dev.arenascope.app.trace.StatsCommand;
import dev.arenascope.app.pool.PoolBinsCommand;
import dev.arenascope.app.plan.PlanCommand;
import dev.arenascope.app.report.ReportCommand;

/**
 * The command-line front of {@code arenascope}: global options, sub-command dispatch, exit codes and
 * the one-line error policy (no stack trace unless {@code --debug}).
 *
 * <p>Exit codes: 0 success, 1 an internal error, 2 bad usage or bad input; sub-commands add their own
 * (plan: 3 no packing within capacity in time; report: 4 a regression past the gate).
 */
public final class Cli {
    /** Every sub-command, in the order {@code --help} lists them. */
    static final List<Command> COMMANDS = List.of(
            new OpenCommand(),
            new BenchCommand(),
            new PoolBinsCommand(),
            new PlanCommand(),
            new ReportCommand(),
            new ConvertCommand(),
            new StatsCommand(),
            new ListenCommand(),
            new RecordCommand(),
            new CalibrateCommand());

    public static final int EXIT_OK = 0;
    public static final int EXIT_ERROR = 1;
    public static final int EXIT_USAGE = 2;
    /**
     * {@code record}: the workload ran but some events did not reach an output (the disk filled, the live
     * receiver refused the stream or was not there); the summary says how many were written and lost.
     */
    public static final int EXIT_INCOMPLETE = 5;

    private Cli() {}

    /** The version of this build, e.g. {@code 0.1.0}. */
    public static String version() {
        String v = Cli.class.getPackage().getImplementationVersion();
        if (v == null) {
            try (var in = Cli.class.getResourceAsStream("/arenascope-version.properties")) {
                if (in != null) {
                    var p = new java.util.Properties();
                    p.load(in);
                    v = p.getProperty("version");
                }
            } catch (java.io.IOException ignored) {
                // fall through
            }
        }
        return v == null ? "dev" : v;
    }

    /** Whether the arguments ask for a sub-command (otherwise the window opens). */
    public static boolean isHeadless(String[] args) {
        return args.length > 0;
    }

    /** Runs the command line and returns the exit code. */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        boolean debug = args.remove("--debug");
        if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("-h") || args.get(0).equals("help")) {
            if (args.size() > 1 && args.get(0).equals("help")) {
                return help(args.get(1), out, err);
            }
            out.print(mainHelp());
            return EXIT_OK;
        }
        if (args.get(0).equals("--version") || args.get(0).equals("-V")) {
            out.println("arenascope " + version() + " (Java " + Runtime.version() + ")");
            return EXIT_OK;
        }
        String name = args.get(0);
        Command command = find(name);
        if (command == null) {
            err.println("arenascope: unknown command '" + name + "' (commands: " + names() + "; see arenascope --help)");
            return EXIT_USAGE;
        }
        List<String> rest = args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h")) {
            out.print(command.usage());
            return EXIT_OK;
        }
        try {
            return command.run(new ArrayList<>(rest), out, err);
        } catch (UsageException e) {
            err.println("arenascope " + name + ": " + stripPrefix(e.getMessage(), name));
            if (debug) {
                e.printStackTrace(err);
            }
            return EXIT_USAGE;
        } catch (java.nio.file.FileSystemException e) {
            // a file named on the command line that cannot be opened or written: bad input, not a bug
            err.println("arenascope " + name + ": " + fileProblem(e));
            if (debug) {
                e.printStackTrace(err);
            }
            return EXIT_USAGE;
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            err.println("arenascope " + name + ": error: " + (e.getMessage() == null ? e.toString() : e.getMessage())
                    + (debug ? "" : " (run with --debug for details)"));
            if (debug) {
                e.printStackTrace(err);
            }
            return EXIT_ERROR;
        }
    }

    /** One line for a file the command could not open, create or replace: the file and why. */
    static String fileProblem(java.nio.file.FileSystemException e) {
        String why = switch (e) {
            case java.nio.file.NoSuchFileException x -> "no such file or directory";
            case java.nio.file.AccessDeniedException x -> "permission denied";
            case java.nio.file.DirectoryNotEmptyException x -> "is a directory";
            case java.nio.file.NotDirectoryException x -> "not a directory";
            case java.nio.file.FileAlreadyExistsException x -> "already exists";
            default -> e.getReason() == null ? e.getClass().getSimpleName() : e.getReason();
        };
        return (e.getFile() == null ? "" : e.getFile() + ": ") + why
                + (e.getOtherFile() == null ? "" : " (" + e.getOtherFile() + ")");
    }

    private static String stripPrefix(String message, String name) {
        return message != null && message.startsWith(name + ": ") ? message.substring(name.length() + 2) : message;
    }

    private static int help(String name, PrintStream out, PrintStream err) {
        Command c = find(name);
        if (c == null) {
            err.println("arenascope: unknown command '" + name + "' (commands: " + names() + ")");
            return EXIT_USAGE;
        }
        out.print(c.usage());
        return EXIT_OK;
    }

    static Command find(String name) {
        return COMMANDS.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    }

    private static String names() {
        return String.join(", ", COMMANDS.stream().map(Command::name).toList());
    }

    /** The text of {@code arenascope --help}. */
    public static String mainHelp() {
        StringBuilder sb = new StringBuilder();
        sb.append("arenascope ").append(version()).append(" - a visual memory profiler for bump arenas, binned pools and memory plans\n\n");
        sb.append("Usage:\n");
        sb.append("  arenascope                      open the window on a live demo session\n");
        sb.append("  arenascope COMMAND [OPTIONS]    run a command headless\n\n");
        sb.append("Commands:\n");
        for (Command c : COMMANDS) {
            sb.append(String.format("  %-12s %s%n", c.name(), c.summary()));
        }
        sb.append("\nOptions:\n");
        sb.append("  --help       this text; 'arenascope COMMAND --help' for a command's options\n");
        sb.append("  --version    print the version\n");
        sb.append("  --debug      print stack traces on errors\n");
        sb.append("\nExit codes: 0 ok, 1 internal error, 2 bad usage or input, 3 no plan within capacity, 4 regression past the gate\n");
        return sb.toString();
    }
}
