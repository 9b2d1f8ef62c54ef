package dev.arenascope.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The one place tests find the repository's real-world fixtures ({@code fixtures/} at the repository
 * root: PyTorch snapshots in {@code torch/}, MiniMalloc problems in {@code minimalloc/}; see
 * {@code fixtures/README.md}).
 *
 * <p>Policy: a fixture is part of the repository, so one that cannot be found is a broken checkout
 * and the test <em>fails</em> with an {@link AssertionError} naming the path looked for; it is never
 * skipped. The root is the system property {@code arenascope.fixtures} when set, else the nearest
 * {@code fixtures/} folder (holding a {@code README.md}) in the working directory or above it, so a
 * module's tests find it from the module directory Maven runs them in. Thread-safe (no state).
 */
public final class Fixtures {
    /** The capacity every MiniMalloc "challenging" problem is known to pack within, in bytes. */
    public static final long MINIMALLOC_CAPACITY = 1_048_576;

    private Fixtures() {}

    /** The {@code fixtures/} folder; fails when there is none. */
    public static Path root() {
        String p = System.getProperty("arenascope.fixtures");
        if (p != null && !p.isBlank()) {
            Path d = Path.of(p).toAbsolutePath().normalize();
            if (!Files.isDirectory(d)) {
                throw new AssertionError("fixtures folder " + d + " (system property arenascope.fixtures) does not exist");
            }
            return d;
        }
        Path start = Path.of("").toAbsolutePath();
        for (Path a = start; a != null; a = a.getParent()) {
            Path d = a.resolve("fixtures");
            if (Files.isRegularFile(d.resolve("README.md")) && Files.isDirectory(d.resolve("torch"))) {
                return d;
            }
        }
        throw new AssertionError("no fixtures/ folder in " + start + " or above it: the repository's fixtures are missing");
    }

    /** A file under {@code fixtures/}, e.g. {@code "torch/cs336-a2-magma27.pickle"}; fails when it is missing. */
    public static Path file(String relative) {
        Path f = root().resolve(relative);
        if (!Files.isRegularFile(f)) {
            throw new AssertionError("fixture missing: " + f);
        }
        return f;
    }

    /** The PyTorch snapshot {@code name} in {@code fixtures/torch/}; fails when it is missing. */
    public static Path torch(String name) {
        return file("torch/" + name);
    }

    /** The folder of PyTorch snapshots. */
    public static Path torchDir() {
        return folder("torch");
    }

    /** MiniMalloc's "challenging" problems, {@code A.1048576.csv} to {@code K.1048576.csv}, in name order; fails when there are none. */
    public static List<Path> miniMalloc() {
        Path d = folder("minimalloc");
        try (Stream<Path> s = Files.list(d)) {
            List<Path> out = s.filter(f -> f.getFileName().toString().endsWith(".csv")).sorted().toList();
            if (out.isEmpty()) {
                throw new AssertionError("no MiniMalloc problems (*.csv) in " + d);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + d, e);
        }
    }

    /** A MiniMalloc problem's name: {@code "A"} for {@code A.1048576.csv}. */
    public static String problemName(Path file) {
        return file.getFileName().toString().split("\\.")[0];
    }

    private static Path folder(String name) {
        Path d = root().resolve(name);
        if (!Files.isDirectory(d)) {
            throw new AssertionError("fixture folder missing: " + d);
        }
        return d;
    }
}
