package dev.arenascope.app.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.file.FileKind;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.ReadReport;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * How every headless command reads a trace of any format {@link TraceFormats} reads ({@code .astrace},
 * {@code .jsonl}, a PyTorch snapshot {@code .pickle}), with one rule for bad input:
 * <ul>
 *   <li>a file that is missing, unreadable or of an unknown extension, or whose content no reader
 *       accepts, is a one-line {@link UsageException} (exit 2) naming the command, the file and, where
 *       the reader knows it, the byte offset or line; a file-system failure past those checks
 *       (permissions changed under us) reaches {@link Cli} as the {@code FileSystemException} it is;</li>
 *   <li>a damaged file that yielded no event at all is the same usage error: there is nothing to report
 *       from;</li>
 *   <li>a damaged file that still yielded events (a crash-truncated {@code .astrace}, a {@code .jsonl}
 *       with bad lines) is returned as far as it is sound; the command answers from what was recovered,
 *       then calls {@link #finish} to print the one line naming the first problem and exit 2.</li>
 * </ul>
 * Stateless; safe from any thread.
 */
public final class TraceLoader {
    private TraceLoader() {}

    /** Checks {@code arg} as a trace file ({@link FileArgs#trace}) and reads it under the rule above. */
    public static LoadedTrace load(String command, String arg) throws IOException {
        return load(command, Path.of(arg));
    }

    /** Checks {@code file} as a trace file ({@link FileArgs#trace}) and reads it under the rule above. */
    public static LoadedTrace load(String command, Path file) throws IOException {
        FileArgs.trace(command, file.toString());
        LoadedTrace t;
        try {
            t = TraceFormats.load(file);
        } catch (TraceFormatException | IllegalArgumentException e) {
            throw unreadable(command, file, e);
        }
        check(command, file, t.report());
        return t;
    }

    /** The usage error for {@code file} when its reader refused it: one line, led by what the file is where its name misleads. */
    public static UsageException unreadable(String command, Path file, Exception e) {
        return new UsageException(command + ": " + explained(file, e.getMessage() == null ? file + ": " + e : e.getMessage()), e);
    }

    /**
     * Throws the usage error for a damaged {@code file} that yielded no event at all (there is nothing to answer from);
     * a command that reads a trace its own way (convert streams it) calls this with its reader's report.
     */
    public static void check(String command, Path file, ReadReport report) {
        if (report.damaged() && report.events() == 0) {
            throw new UsageException(command + ": " + explained(file, report.summary()));
        }
    }

    /**
     * The exit code of a command that answered from {@code report}'s file: 0 for a sound file; for a damaged
     * one, the line naming its first problem on {@code err} (with {@code after}, e.g. what the command wrote
     * from the recovered part, when not empty) and 2.
     */
    public static int finish(String command, ReadReport report, String after, PrintStream err) {
        if (!report.damaged()) {
            if (report.stillWriting()) {
                // a recording in progress: what was sealed so far was answered; no damage, so no error
                err.println("arenascope " + command + ": " + report.file() + ": " + report.summary());
            }
            return 0;
        }
        err.println("arenascope " + command + ": " + report.summary() + (after == null || after.isEmpty() ? "" : "; " + after));
        return 2;
    }

    /** {@code detail}, led by what the file is where its content is not what its name says (as the window says it). */
    private static String explained(Path file, String detail) {
        String what = FileKind.mismatch(file);
        if (what == null) {
            return detail;
        }
        String name = file.toString();
        String rest = detail.startsWith(name) ? detail.substring(name.length()).replaceFirst("^:? ", "") : detail;
        return name + ": " + what + "; the reader stopped " + rest;
    }
}
