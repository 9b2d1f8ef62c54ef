package dev.arenascope.app.aot;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the JDK's ahead-of-time cache of this installation lies: {@code arenascope.aot} beside the
 * application jar, written by the build's training run (a {@code plan} of a small problem, see
 * {@code app/pom.xml}) and passed by the launcher as {@code -XX:AOTCache}. The cache only holds for the exact class path it was trained with; the JVM
 * ignores one that does not match. Stateless.
 */
public final class AotCache {
    /** The cache's file name, beside {@code arenascope-app.jar}. */
    public static final String FILE_NAME = "arenascope.aot";

    private AotCache() {}

    /** The application jar (the one this class was loaded from), or empty when running from a classes folder (tests). */
    public static Optional<Path> appJar() {
        try {
            var src = AotCache.class.getProtectionDomain().getCodeSource();
            if (src == null) {
                return Optional.empty();
            }
            Path p = Path.of(src.getLocation().toURI());
            return p.getFileName() != null && p.getFileName().toString().endsWith(".jar") ? Optional.of(p) : Optional.empty();
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The cache beside {@code jar}, when it exists and is not older than the jar. */
    public static Optional<Path> beside(Optional<Path> jar) {
        if (jar.isEmpty()) {
            return Optional.empty();
        }
        Path cache = jar.get().resolveSibling(FILE_NAME);
        try {
            return Files.isRegularFile(cache)
                    && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar.get())) >= 0
                    ? Optional.of(cache) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
