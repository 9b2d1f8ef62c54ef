package dev.arenascope.core.trace;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the shared real-world fixtures are: {@code ../shared/fixtures} relative to the repository root. */
public final class Fixtures {
    private Fixtures() {}

    /**
     * The directory of PyTorch snapshots, found by walking up from the working directory (a worktree
     * may sit one level deeper than a plain clone, whose CI checks {@code shared/} out beside it).
     */
    public static Path torch() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path f = p.resolve("shared/fixtures/torch");
            if (Files.isDirectory(f)) {
                return f;
            }
        }
        return Path.of("../shared/fixtures/torch").toAbsolutePath().normalize();
    }
}
