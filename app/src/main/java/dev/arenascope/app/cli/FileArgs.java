package dev.arenascope.app.cli;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.arenascope.core.trace.file.OutputFiles;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * Checks a file named on the command line before a command reads or writes it, so that every command
 * says the same thing about the same mistake: a missing file, a directory, an unreadable file, an
 * extension no reader knows, an output in a directory that does not exist. Each check throws a {@link UsageException} (exit 2) whose message starts with the
 * command and the file. Stateless; safe from any thread.
 */
public final class FileArgs {
    private FileArgs() {}

    /**
     * {@code arg} as a path to an existing, readable regular file.
     *
     * @throws UsageException naming the command, the file and whether it is missing, a directory or unreadable
     */
    public static Path readable(String command, String arg) {
        Path file = Path.of(arg);
        if (!Files.exists(file)) {
            if (Files.isSymbolicLink(file)) {
                // a link whose target is missing, or a loop of links (a -> b -> a): not "no such file"
                try {
                    file.toRealPath();
                } catch (FileSystemException e) {
                    String why = e.getReason() == null ? "" : e.getReason();
                    throw new UsageException(command + ": " + file + ": "
                            + (why.toLowerCase(Locale.ROOT).contains("too many") ? "a loop of symbolic links"
                            : "a symbolic link to a missing file" + (why.isEmpty() ? "" : " (" + why + ")")));
                } catch (IOException e) {
                    throw new UsageException(command + ": " + file + ": a symbolic link that does not resolve (" + e.getMessage() + ")");
                }
            }
            throw new UsageException(command + ": " + file + ": no such file");
        }
        if (Files.isDirectory(file)) {
            throw new UsageException(command + ": " + file + ": is a directory, not a file");
        }
        if (!Files.isRegularFile(file)) {
            throw new UsageException(command + ": " + file + ": not a regular file");
        }
        if (!Files.isReadable(file)) {
            throw new UsageException(command + ": " + file + ": permission denied");
        }
        return file;
    }

    /**
     * {@code arg} as a path to a readable trace file in a format {@link TraceFormats} reads.
     *
     * @throws UsageException as {@link #readable}, or naming the extension no reader knows
     */
    public static Path trace(String command, String arg) {
        Path file = readable(command, arg);
        if (TraceFormats.input(file) == null) {
            String ext = TraceFormats.extension(file);
            throw new UsageException(command + ": " + file + ": "
                    + (ext.isEmpty() ? "no file extension to tell the format by" : "cannot read '" + ext + "' files")
                    + " (reads " + TraceFormats.inputExtensions() + ")");
        }
        return file;
    }

    /**
     * {@code arg}, given to {@code option}, as a path a command can create or replace: not a directory, in a
     * directory that exists. Checked before the command does its work, so a typo costs nothing.
     *
     * @throws UsageException naming the command, the option, the file and what is wrong
     */
    public static Path output(String command, String option, String arg) {
        Path file = Path.of(arg);
        if (Files.isDirectory(file)) {
            throw new UsageException(command + ": " + option + " " + file + ": is a directory; name the file to write");
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new UsageException(command + ": " + option + " " + file + ": no such directory " + dir);
        }
        return file;
    }

    /**
     * {@link #output(String, String, String)}, and unless {@code force} a name nothing is at yet: no run
     * replaces an earlier run's file unasked. The message names the file and {@code --force}.
     *
     * @throws UsageException as {@link #output(String, String, String)}, or when the file exists and {@code force} is not given
     */
    public static Path output(String command, String option, String arg, boolean force) {
        Path file = output(command, option, arg);
        if (!force && OutputFiles.taken(file)) {
            throw exists(command, option, file);
        }
        return file;
    }

    /** The one line for an output that exists: the option, the file, and {@code --force}. */
    public static UsageException exists(String command, String option, Path file) {
        return new UsageException(command + ": " + (option.isEmpty() ? "" : option + " ") + file
                + " exists already; give --force to replace it");
    }
}
