package dev.arenascope.app.ui;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;

/** Where the shared fixtures are: {@code arenascope.shared} (set by surefire) or {@code ../shared}. */
final class Fixtures {
    private Fixtures() {}

    /** {@code arenascope.shared} when it names a directory, else the nearest {@code shared/} beside an ancestor. */
    static Path shared() {
        String p = System.getProperty("arenascope.shared");
        if (p != null && Files.isDirectory(Path.of(p))) {
            return Path.of(p);
        }
        Path dir = Path.of("").toAbsolutePath();
        for (int up = 0; up < 4 && dir != null; up++, dir = dir.getParent()) {
            Path candidate = dir.resolveSibling("shared");
            if (Files.isDirectory(candidate.resolve("fixtures"))) {
                return candidate;
            }
        }
        return Path.of("..", "shared");
    }

    static Path torch(String name) {
        Path f = shared().resolve("fixtures/torch").resolve(name);
        Assumptions.assumeTrue(Files.isRegularFile(f), "fixture missing: " + f);
        return f;
    }
}
