package dev.arenascope.app.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * Reads a trace file of any format {@link TraceFormats} reads ({@code .astrace}, {@code .jsonl}, a PyTorch
 * snapshot {@code .pickle}) into an {@code EventStore}. Unreadable or malformed input becomes a one-line
 * {@link UsageException} naming the file and, where the reader knows it, the byte offset or line; a
 * damaged file that still yielded events (a crash-truncated {@code .astrace}) is reported from what was
 * recovered, with a one-line warning.
 */
final class TraceLoader {
    private TraceLoader() {}

    static TraceView load(Path file, PrintStream warnings) {
        FileArgs.trace("report", file.toString());
        LoadedTrace t;
        try {
            t = TraceFormats.load(file);
        } catch (IOException | IllegalArgumentException e) {
            throw new UsageException("report: " + (e.getMessage() == null ? file + ": " + e : e.getMessage()));
        }
        if (t.report().damaged()) {
            if (t.report().events() == 0) {
                throw new UsageException("report: " + t.report().summary());
            }
            warnings.println("report: warning: " + t.report().summary() + "; the report covers what was recovered");
        }
        return t.store();
    }
}
