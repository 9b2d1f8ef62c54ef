package dev.arenascope.app.ui;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;

/** Where the shared fixtures are: {@code arenascope.shared} (set by surefire) or {@code ../shared}. */
final class Fixtures {
    private Fixtures() {}

    static Path shared() {
        String p = System.getProperty("arenascope.shared");
        Path dir = p != null ? Path.of(p) : Path.of("..", "shared");
        if (!Files.isDirectory(dir)) {
            dir = Path.of("..", "..", "shared");
        }
        return dir;
    }

    static Path torch(String name) {
        Path f = shared().resolve("fixtures/torch").resolve(name);
        Assumptions.assumeTrue(Files.isRegularFile(f), "fixture missing: " + f);
        return f;
    }
}
