package dev.arenascope.app.ui;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.info.ExitCodes;
import dev.arenascope.app.commands.job.JobInputs;

/**
 * {@code arenascope open TRACE} or {@code open TRACE... | FOLDER | 'GLOB'}: opens the window on a trace file, or
 * on a job of many (one rank each, the Ranks view). Beside the window code: the CLI knows no UI.
 */
public final class OpenCommand implements Command {
    @Override
    public String name() {
        return "open";
    }

    @Override
    public String summary() {
        return "open the window on a trace (.astrace, .jsonl, PyTorch .pickle), or on a job of many";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope open TRACE
                       arenascope open TRACE TRACE... | FOLDER | 'GLOB'

                Opens the ArenaScope window on TRACE: an ArenaScope trace (.astrace), JSON lines
                (.jsonl) or a PyTorch CUDA memory snapshot (.pickle). Loading runs in the background
                with progress in the status bar and can be cancelled. Needs a display.

                Several traces, a folder (its trace files) or a quoted glob open as one job, each
                file a rank named from its file name (rank(\\d+), _(\\d+).pickle, else the name): the
                Ranks view lists every rank's peak, step, out-of-memory events and top site with a
                sparkline, and the window shows the worst rank. A file that cannot be read is a row
                with its reason. See docs/guide/jobs.md.
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        Args a = new Args("open", args, Set.of());
        a.finish();
        if (a.positionals().isEmpty()) {
            throw new UsageException("open: expected one trace file, got 0 (see arenascope open --help)");
        }
        List<Path> paths;
        if (a.positionals().size() == 1 && Files.isDirectory(Path.of(a.positionals().getFirst()))) {
            JobInputs.files("open", a.positionals()); // refuses a folder without a trace file, in one line
            paths = List.of(Path.of(a.positionals().getFirst())); // the window names the job after its folder
        } else if (JobInputs.isJob(a.positionals())) {
            paths = JobInputs.files("open", a.positionals()); // a folder or a glob: its trace files; a file as given
            if (paths.stream().noneMatch(Files::isRegularFile)) {
                throw new UsageException("open: none of the " + paths.size() + " files named exists as a file: " + paths.getFirst()
                        + (paths.size() > 1 ? ", ..." : ""));
            }
        } else {
            paths = List.of(FileArgs.readable("open", a.positionals().get(0)));
        }
        if (!Display.available()) {
            throw new UsageException("open: no display to open the window on (set DISPLAY)");
        }
        ArenaScopeApp.launchWindow(paths);
        return ExitCodes.OK;
    }
}
