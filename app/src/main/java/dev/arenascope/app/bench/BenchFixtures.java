package dev.arenascope.app.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The real-world inputs the bench measures on: the repository's {@code fixtures/} (MiniMalloc's
 * problems, the magma27 PyTorch snapshot), packaged into the app as class-path resources under
 * {@code dev/arenascope/app/bench/fixtures/} so the bench runs the same from a clone and from an
 * installed package. The suites read files, so a resource is copied once into a temporary folder
 * (removed when the JVM exits). An environment variable may name other inputs instead.
 *
 * <p>A fixture that is neither named nor packaged is a broken build: {@link IllegalStateException}
 * with what was looked for (the bench never reports figures for work it did not do). One thread.
 */
final class BenchFixtures {
    /** MiniMalloc's "challenging" problems, in the order they are measured. */
    static final List<String> MINIMALLOC = List.of("A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K");
    private static final String ROOT = "fixtures/";
    private static Path temp;

    private BenchFixtures() {}

    /**
     * The MiniMalloc problem files: the {@code *.csv} in the folder {@code env} names when it is set
     * (name order), else the packaged problems.
     */
    static List<Path> miniMalloc(String env) throws IOException {
        if (env != null && !env.isBlank()) {
            Path d = Path.of(env);
            if (!Files.isDirectory(d)) {
                throw new IllegalStateException("ARENASCOPE_MINIMALLOC=" + env + " is not a folder");
            }
            List<Path> files = new ArrayList<>();
            try (Stream<Path> s = Files.list(d)) {
                s.filter(p -> p.getFileName().toString().endsWith(".csv")).sorted().forEach(files::add);
            }
            if (files.isEmpty()) {
                throw new IllegalStateException("ARENASCOPE_MINIMALLOC=" + env + " holds no *.csv problems");
            }
            return files;
        }
        List<Path> files = new ArrayList<>();
        for (String name : MINIMALLOC) {
            files.add(resource("minimalloc/" + name + ".1048576.csv"));
        }
        return files;
    }

    /**
     * MiniMalloc's own wall time per problem (seconds), from the packaged {@code
     * minimalloc/minimalloc-times.tsv}: {@code problem<TAB>seconds} lines after {@code #} comments and
     * a header. A malformed line is a broken build ({@link IllegalStateException} naming the line).
     */
    static Map<String, Double> miniMallocTimes() throws IOException {
        Map<String, Double> times = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(resource("minimalloc/minimalloc-times.tsv"));
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("problem\t")) {
                continue;
            }
            String[] cols = line.split("\t");
            try {
                if (cols.length != 2) {
                    throw new NumberFormatException("expected problem<TAB>seconds");
                }
                times.put(cols[0], Double.parseDouble(cols[1]));
            } catch (NumberFormatException e) {
                throw new IllegalStateException("minimalloc-times.tsv line " + (i + 1) + ": " + e.getMessage());
            }
        }
        return times;
    }

    /** The PyTorch snapshot: the file {@code env} names when it is set, else the packaged {@code name}. */
    static Path torch(String env, String name) throws IOException {
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env);
            if (!Files.isRegularFile(p)) {
                throw new IllegalStateException("ARENASCOPE_TORCH_FIXTURE=" + env + " is not a file");
            }
            return p;
        }
        return resource("torch/" + name);
    }

    /** The packaged resource {@code relative}, copied to a temporary file (once per JVM). */
    private static synchronized Path resource(String relative) throws IOException {
        if (temp == null) {
            temp = Files.createTempDirectory("arenascope-bench-");
            temp.toFile().deleteOnExit();
        }
        Path out = temp.resolve(relative);
        if (!Files.exists(out)) {
            Files.createDirectories(out.getParent()).toFile().deleteOnExit();
            try (InputStream in = BenchFixtures.class.getResourceAsStream(ROOT + relative)) {
                if (in == null) {
                    throw new IllegalStateException("bench fixture " + ROOT + relative
                            + " is not packaged in the app (the build copies it from the repository's fixtures/)");
                }
                Files.copy(in, out);
            }
            out.toFile().deleteOnExit();
        }
        return out;
    }
}
