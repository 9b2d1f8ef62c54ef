package dev.arenascope.app.commands.job;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import dev.arenascope.app.cli.UsageException;
import dev.arenascope.core.trace.file.TraceFormats;

/**
 * The trace arguments of a job command ({@code stats}, {@code report}, {@code sites}): several files, a
 * folder (its trace files, not recursing), or a glob the shell left alone ({@code 'runs/*.pickle'},
 * {@code 'runs/**}{@code /snapshot_rank*.pickle'}). One plain file is not a job: the command keeps its
 * single-trace behaviour. A file named outright is a member even when it cannot be read (it becomes a
 * failed row of the rank table); a folder or a glob takes only files with an extension a reader knows.
 * Stateless.
 */
public final class JobInputs {
    private JobInputs() {}

    /** Whether {@code args} name a job: more than one, a directory, or a glob. */
    public static boolean isJob(List<String> args) {
        if (args.size() > 1) {
            return true;
        }
        if (args.size() == 1) {
            String a = args.getFirst();
            return Files.isDirectory(Path.of(a)) || isGlob(a);
        }
        return false;
    }

    /** Whether {@code arg} is a glob: it has a glob character and names no existing file. */
    static boolean isGlob(String arg) {
        if (arg.chars().noneMatch(c -> c == '*' || c == '?' || c == '[' || c == '{')) {
            return false;
        }
        try {
            return !Files.exists(Path.of(arg));
        } catch (InvalidPathException e) {
            return true;
        }
    }

    /**
     * The job's files, each once, in the order found.
     *
     * @throws UsageException for a folder with no trace file or a glob that matches none
     */
    public static List<Path> files(String command, List<String> args) {
        Set<Path> out = new LinkedHashSet<>();
        for (String a : args) {
            if (isGlob(a)) {
                List<Path> m = glob(a);
                if (m.isEmpty()) {
                    throw new UsageException(command + ": " + a + ": no trace file matches (reads " + TraceFormats.inputExtensions() + ")");
                }
                out.addAll(m);
            } else if (Files.isDirectory(Path.of(a))) {
                List<Path> m = folder(Path.of(a));
                if (m.isEmpty()) {
                    throw new UsageException(command + ": " + a + ": is a directory holding no trace file (reads "
                            + TraceFormats.inputExtensions() + ")");
                }
                out.addAll(m);
            } else {
                out.add(Path.of(a));
            }
        }
        return new ArrayList<>(out);
    }

    private static List<Path> folder(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> TraceFormats.input(p) != null).sorted().toList();
        } catch (IOException e) {
            throw new UsageException("cannot list " + dir + ": " + e.getMessage());
        }
    }

    private static List<Path> glob(String pattern) {
        String p = pattern.replace('\\', '/');
        // the directory part before the first segment with a glob character
        String[] parts = p.split("/", -1);
        StringBuilder base = new StringBuilder();
        int first = 0;
        for (; first < parts.length - 1; first++) {
            String seg = parts[first];
            if (seg.chars().anyMatch(c -> c == '*' || c == '?' || c == '[' || c == '{')) {
                break;
            }
            base.append(seg).append('/');
        }
        Path root = base.isEmpty() ? Path.of(".") : Path.of(base.toString().equals("/") ? "/" : base.toString());
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        String rest = String.join("/", Arrays.copyOfRange(parts, first, parts.length));
        int depth = rest.contains("**") ? Integer.MAX_VALUE : rest.split("/").length;
        PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + rest);
        try (Stream<Path> s = Files.walk(root, depth)) {
            return s.filter(Files::isRegularFile)
                    .filter(f -> matcher.matches(root.relativize(f)))
                    .filter(f -> TraceFormats.input(f) != null)
                    .map(f -> base.isEmpty() ? root.relativize(f) : f)
                    .sorted().toList();
        } catch (IOException | UncheckedIOException e) {
            throw new UsageException("cannot list " + root + ": " + e.getMessage());
        }
    }
}
