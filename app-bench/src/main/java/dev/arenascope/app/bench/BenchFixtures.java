package dev.arenascope.app.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;

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

    /** The bench's generated PyTorch snapshot: its file and what the generator says of it. */
    record Generated(Path file, SyntheticSnapshot.Summary summary) {}

    /** The generated snapshot imported into a store, and its {@code cuda} (segmented) memory. */
    record GeneratedStore(EventStore store, MemoryInfo cuda) {}

    private static final Map<Integer, Generated> GENERATED = new HashMap<>();
    private static final Map<Integer, GeneratedStore> GENERATED_STORES = new HashMap<>();

    /**
     * The snapshot the torch and ui suites measure on ({@link SyntheticSnapshot}, seed
     * {@link TorchBench#SEED}, {@link TorchBench#ALLOCATIONS} allocations, or {@link
     * TorchBench#QUICK_ALLOCATIONS} with {@code quick}): written once per JVM into the bench's temporary
     * folder (removed when the JVM exits), so that suites running one after the other share it.
     */
    static synchronized Generated generatedSnapshot(boolean quick) throws IOException {
        int allocations = quick ? TorchBench.QUICK_ALLOCATIONS : TorchBench.ALLOCATIONS;
        Generated g = GENERATED.get(allocations);
        if (g == null) {
            Path file = tempDir().resolve("generated-" + allocations + ".pickle");
            SyntheticSnapshot.Summary sum = SyntheticSnapshot.write(file, SyntheticSnapshot.Spec.plain(TorchBench.SEED, allocations));
            file.toFile().deleteOnExit();
            g = new Generated(file, sum);
            GENERATED.put(allocations, g);
        }
        return g;
    }

    /**
     * {@link #generatedSnapshot} imported into an {@link EventStore} (once per JVM; the suites only read
     * it) with its cuda memory. A snapshot without one is a broken generator ({@link IllegalStateException}).
     */
    static synchronized GeneratedStore generatedStore(boolean quick) throws IOException {
        Generated g = generatedSnapshot(quick);
        int allocations = quick ? TorchBench.QUICK_ALLOCATIONS : TorchBench.ALLOCATIONS;
        GeneratedStore s = GENERATED_STORES.get(allocations);
        if (s == null) {
            EventStore store = new EventStore("bench-generated-" + allocations);
            TorchSnapshotToTrace.convert(g.file(), store);
            MemoryInfo cuda = store.memories().stream().filter(m -> m.kind() == MemoryKind.SEGMENTED).findFirst()
                    .orElseThrow(() -> new IllegalStateException("bench: the generated snapshot has no cuda memory"));
            s = new GeneratedStore(store, cuda);
            GENERATED_STORES.put(allocations, s);
        }
        return s;
    }

    private static synchronized Path tempDir() throws IOException {
        if (temp == null) {
            temp = Files.createTempDirectory("arenascope-bench-");
            temp.toFile().deleteOnExit();
        }
        return temp;
    }

    /** The packaged resource {@code relative}, copied to a temporary file (once per JVM). */
    private static synchronized Path resource(String relative) throws IOException {
        Path out = tempDir().resolve(relative);
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
