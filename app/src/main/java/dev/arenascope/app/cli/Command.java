package dev.arenascope.app.cli;

import java.io.PrintStream;
import java.util.List;

/** One sub-command of {@code arenascope}. Implementations are listed where the application is assembled ({@code dev.arenascope.app.Main#commands}). */
public interface Command {

    /** The name typed on the command line, e.g. {@code record}. */
    String name();

    /** One line for {@code arenascope --help}. */
    String summary();

    /** Full usage text for {@code arenascope NAME --help}. */
    String usage();

    /**
     * Runs the command on the words after its name; parse them with {@link Args}.
     *
     * @return the process exit code (0 success; 2 bad usage or input; others as the command documents)
     * @throws UsageException on bad arguments or input: printed as one line, exit 2
     */
    int run(List<String> args, PrintStream out, PrintStream err) throws Exception;
}
