package dev.arenascope.core.plan;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/** The MiniMalloc "challenging" problems in ../shared/benchmarks/minimalloc, relative to the repository root. */
final class MiniMallocProblems {
    static final long CAPACITY = 1_048_576;

    private MiniMallocProblems() {}

    /**
     * The problem directory: {@code shared/benchmarks/minimalloc} beside the repository (CI's ../shared)
     * or inside it, searched from the working directory upwards (a worktree's shared/ may sit further up).
     */
    static Path dir() {
        for (Path a = Path.of("").toAbsolutePath(); a != null; a = a.getParent()) {
            Path d = a.resolve("shared").resolve("benchmarks").resolve("minimalloc");
            if (Files.isDirectory(d)) {
                return d;
            }
        }
        return null;
    }

    /** Problem name ("A") to file, skipping the test with a message when the directory is absent. */
    static List<Path> files() throws IOException {
        Path d = dir();
        Assumptions.assumeTrue(d != null, "../shared/benchmarks/minimalloc not found beside the repository: MiniMalloc problems skipped");
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(d)) {
            s.filter(p -> p.getFileName().toString().endsWith(".csv")).sorted().forEach(out::add);
        }
        Assumptions.assumeTrue(!out.isEmpty(), "no CSV files in " + d);
        return out;
    }

    static String name(Path file) {
        return file.getFileName().toString().split("\\.")[0];
    }
}
