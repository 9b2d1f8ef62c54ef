package dev.arenascope.app.report;

import java.io.IOException;
import java.nio.file.Path;

import dev.arenascope.app.cli.FileArgs;
import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.ReadReport;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * Reads a trace file of any format {@link TraceFormats} reads ({@code .astrace}, {@code .jsonl}, a PyTorch
 * snapshot {@code .pickle}) into an {@code EventStore}. Unreadable or malformed input becomes a one-line
 * {@link UsageException} naming the file and, where the reader knows it, the byte offset or line; a
 * damaged file that still yielded events (a crash-truncated {@code .astrace}, a {@code .jsonl} with bad
 * lines) is loaded as far as it is sound, and its {@link ReadReport} says so: the command reports from
 * what was recovered and then exits 2 with one line naming the first problem, as {@code stats} and
 * {@code convert} do.
 */
final class TraceLoader {
    private TraceLoader() {}

    static LoadedTrace load(Path file) {
        FileArgs.trace("report", file.toString());
        LoadedTrace t;
        try {
            t = TraceFormats.load(file);
        } catch (IOException | IllegalArgumentException e) {
            throw new UsageException("report: " + (e.getMessage() == null ? file + ": " + e : e.getMessage()));
        }
        if (t.report().damaged() && t.report().events() == 0) {
            throw new UsageException("report: " + t.report().summary());
        }
        return t;
    }
}
