package dev.arenascope.app.ui;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import dev.arenascope.app.cli.Args;
import dev.arenascope.app.cli.Command;
import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.app.info.ExitCodes;

/** {@code arenascope open TRACE}: opens the window on a trace file (beside the window code: the CLI knows no UI). */
public final class OpenCommand implements Command {
    @Override
    public String name() {
        return "open";
    }

    @Override
    public String summary() {
        return "open the window on a trace (.astrace, .jsonl, PyTorch .pickle)";
    }

    @Override
    public String usage() {
        return """
                Usage: arenascope open TRACE

                Opens the ArenaScope window on TRACE: an ArenaScope trace (.astrace), JSON lines
                (.jsonl) or a PyTorch CUDA memory snapshot (.pickle). Loading runs in the background
                with progress in the status bar and can be cancelled. Needs a display.
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        Args a = new Args("open", args, Set.of());
        a.finish();
        if (a.positionals().size() != 1) {
            throw new UsageException("open: expected one trace file, got " + a.positionals().size() + " (see arenascope open --help)");
        }
        Path file = FileArgs.readable("open", a.positionals().get(0));
        if (!Display.available()) {
            throw new UsageException("open: no display to open the window on (set DISPLAY)");
        }
        ArenaScopeApp.launchWindow(file);
        return ExitCodes.OK;
    }
}
