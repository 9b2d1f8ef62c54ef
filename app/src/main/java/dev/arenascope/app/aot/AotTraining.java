package dev.arenascope.app.aot;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import dev.arenascope.app.cli.Cli;
import dev.arenascope.app.plan.PlanCommand;

/**
 * The training run the build makes the JDK's ahead-of-time cache from ({@code -XX:AOTCacheOutput},
 * JEP 483/514/515; see {@code app/pom.xml} and the launcher script): runs {@code plan} — search and
 * greedy, CSV and plan JSON, with and without a capacity — and {@code --help} in this JVM, on a small
 * problem it writes to a temporary folder, so that the classes they load and link and the methods they
 * run are what the cache holds. Only {@code plan}: a cache trained on {@code record} and {@code report}
 * as well (30 MB against 13 MB) made {@code plan} start slower than no cache at all (0.145 against
 * 0.09 CPU seconds; none 0.16), the other commands' classes and profiles costing more to map and
 * compile than they save. Output is discarded; a command that fails makes the training fail (exit 1,
 * naming it), so a broken command is never baked into the cache silently. Not for users; one run at a
 * time.
 */
public final class AotTraining {
    private AotTraining() {}

    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("arenascope-aot-");
        try {
            Path csv = dir.resolve("problem.csv");
            StringBuilder sb = new StringBuilder("id,lower,upper,size\n");
            // a small problem whose optimum is above the load, so the search narrows and proves
            sb.append("a,0,1,128\nb,0,2,128\nc,1,3,64\nd,1,4,64\ne,2,3,64\nf,2,4,64\ng,3,5,128\nh,4,5,128\n");
            for (int i = 0; i < 40; i++) {
                int lower = 6 + i % 7;
                sb.append("x").append(i).append(',').append(lower).append(',').append(lower + 1 + i % 4).append(',')
                        .append(64 * (1 + i % 5)).append('\n');
            }
            Files.writeString(csv, sb);
            Path plan = dir.resolve("problem.plan.json");
            List<String[]> runs = new ArrayList<>();
            runs.add(new String[] {"--help"});
            runs.add(new String[] {"plan", "--input", csv.toString(), "--time-limit", "5"});
            runs.add(new String[] {"plan", "--input", csv.toString(), "--capacity", "1MiB", "--output", plan.toString()});
            runs.add(new String[] {"plan", "--input", csv.toString(), "--strategy", "greedy", "--output", dir.resolve("g.csv").toString()});
            runs.add(new String[] {"plan", "--input", plan.toString(), "--time-limit", "5"});
            PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
            Cli cli = new Cli(List.of(new PlanCommand()));
            for (String[] run : runs) {
                int code = cli.run(run, sink, sink);
                if (code != 0) {
                    System.err.println("aot training: `arenascope " + String.join(" ", run) + "` exited " + code);
                    System.exit(1);
                }
            }
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
