package dev.arenascope.app.cli;

import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import dev.arenascope.app.info.AppInfo;
import dev.arenascope.app.info.ExitCodes;

/**
 * The command-line front of {@code arenascope}: global options, sub-command dispatch and the one-line
 * error policy (no stack trace unless {@code --debug}). The exit codes are {@link ExitCodes}, the
 * version {@link AppInfo}.
 */
public final class Cli {
    private final List<Command> builtIn;
    private final Supplier<List<Command>> extras;
    private List<Command> all;

    /**
     * A command line over these sub-commands, in the order {@code --help} lists them (the list is built
     * where the application is assembled, {@code dev.arenascope.app.Main}, so this dispatcher knows no
     * command and no command knows it).
     */
    public Cli(List<Command> commands) {
        this(commands, List::of);
    }

    /**
     * A command line over the built-in commands and, asked only when a name is not among them or the
     * whole list is printed, more found elsewhere ({@code bench}, from its own module): a lookup of
     * what is present costs opening every jar of the class path (tens of milliseconds of a command's
     * start), so a built-in command never pays it. {@code --help} lists the extras after the first
     * built-in command.
     */
    public Cli(List<Command> builtIn, Supplier<List<Command>> extras) {
        this.builtIn = List.copyOf(builtIn);
        this.extras = extras;
    }

    private List<Command> all() {
        if (all == null) {
            List<Command> list = new ArrayList<>(builtIn);
            list.addAll(Math.min(1, list.size()), extras.get());
            all = List.copyOf(list);
        }
        return all;
    }

    /** Whether the arguments ask for a sub-command (otherwise the window opens). */
    public static boolean isHeadless(String[] args) {
        return args.length > 0;
    }

    /** Runs the command line and returns the exit code. */
    public int run(String[] argv, PrintStream out, PrintStream err) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        boolean debug = args.remove("--debug");
        if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("-h") || args.get(0).equals("help")) {
            if (args.size() > 1 && args.get(0).equals("help")) {
                return help(args.get(1), out, err);
            }
            out.print(mainHelp());
            return ExitCodes.OK;
        }
        if (args.get(0).equals("--version") || args.get(0).equals("-V")) {
            out.println("arenascope " + AppInfo.version() + " (Java " + Runtime.version() + ")");
            return ExitCodes.OK;
        }
        String name = args.get(0);
        Command command = find(name);
        if (command == null) {
            err.println("arenascope: unknown command '" + name + "' (commands: " + names() + "; see arenascope --help)");
            return ExitCodes.USAGE;
        }
        List<String> rest = args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h")) {
            out.print(command.usage());
            return ExitCodes.OK;
        }
        try {
            return command.run(new ArrayList<>(rest), out, err);
        } catch (UsageException e) {
            err.println("arenascope " + name + ": " + stripPrefix(e.getMessage(), name));
            if (debug) {
                e.printStackTrace(err);
            }
            return ExitCodes.USAGE;
        } catch (FileSystemException e) {
            // a file named on the command line that cannot be opened or written: bad input, not a bug
            err.println("arenascope " + name + ": " + fileProblem(e));
            if (debug) {
                e.printStackTrace(err);
            }
            return ExitCodes.USAGE;
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            err.println("arenascope " + name + ": error: " + (e.getMessage() == null ? e.toString() : e.getMessage())
                    + (debug ? "" : " (run with --debug for details)"));
            if (debug) {
                e.printStackTrace(err);
            }
            return ExitCodes.ERROR;
        }
    }

    /** One line for a file the command could not open, create or replace: the file and why. */
    static String fileProblem(FileSystemException e) {
        String why = switch (e) {
            case NoSuchFileException x -> "no such file or directory";
            case AccessDeniedException x -> "permission denied";
            case DirectoryNotEmptyException x -> "is a directory";
            case NotDirectoryException x -> "not a directory";
            case FileAlreadyExistsException x -> "exists already; give --force to replace it";
            default -> e.getReason() == null ? e.getClass().getSimpleName() : e.getReason();
        };
        return (e.getFile() == null ? "" : e.getFile() + ": ") + why
                + (e.getOtherFile() == null ? "" : " (" + e.getOtherFile() + ")");
    }

    private static String stripPrefix(String message, String name) {
        return message != null && message.startsWith(name + ": ") ? message.substring(name.length() + 2) : message;
    }

    private int help(String name, PrintStream out, PrintStream err) {
        Command c = find(name);
        if (c == null) {
            err.println("arenascope: unknown command '" + name + "' (commands: " + names() + ")");
            return ExitCodes.USAGE;
        }
        out.print(c.usage());
        return ExitCodes.OK;
    }

    Command find(String name) {
        Command c = named(builtIn, name);
        return c != null ? c : named(all(), name); // the extras looked up only for a name not built in
    }

    private static Command named(List<Command> in, String name) {
        return in.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
    }

    private String names() {
        return String.join(", ", all().stream().map(Command::name).toList());
    }

    /** The text of {@code arenascope --help}. */
    public String mainHelp() {
        StringBuilder sb = new StringBuilder();
        sb.append("arenascope ").append(AppInfo.version()).append(" - a visual memory profiler for bump arenas, binned pools and memory plans\n\n");
        sb.append("Usage:\n");
        sb.append("  arenascope                      open the window on a live demo session\n");
        sb.append("  arenascope COMMAND [OPTIONS]    run a command headless\n\n");
        sb.append("Commands:\n");
        for (Command c : all()) {
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
