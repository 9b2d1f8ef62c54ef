package dev.arenascope.app.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs ArenaScope's CLI in a fresh JVM, as a user would, and measures it: wall time including JVM
 * start, and (through {@code /usr/bin/time -v}, when the machine has it) peak resident memory and
 * CPU time. The child uses this process's java and class path.
 *
 * @param wallS  seconds from start to exit
 * @param rssMb  peak resident set size in MiB, or NaN without {@code /usr/bin/time}
 * @param cpuS   user + system CPU seconds, or NaN without {@code /usr/bin/time}
 * @param exit   the child's exit code
 * @param stdout what it printed on stdout
 */
record ChildRun(double wallS, double rssMb, double cpuS, int exit, String stdout) {
    private static final Path TIME = Path.of("/usr/bin/time");
    private static final Pattern RSS = Pattern.compile("Maximum resident set size \\(kbytes\\): (\\d+)");
    private static final Pattern USER = Pattern.compile("User time \\(seconds\\): ([0-9.]+)");
    private static final Pattern SYS = Pattern.compile("System time \\(seconds\\): ([0-9.]+)");

    /** Runs {@code dev.arenascope.app.Main} with {@code jvmOptions} and {@code args}; waits for it. */
    static ChildRun cli(List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        return main(jvmOptions, "dev.arenascope.app.Main", args);
    }

    /** Runs the class {@code mainClass} of this class path with {@code jvmOptions} and {@code args}; waits for it. */
    static ChildRun main(List<String> jvmOptions, String mainClass, String... args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        boolean timed = Files.isExecutable(TIME);
        if (timed) {
            cmd.add(TIME.toString());
            cmd.add("-v");
        }
        cmd.add(java);
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile("arenascope-bench-", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
            long t0 = System.nanoTime();
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = p.waitFor();
            double wall = (System.nanoTime() - t0) / 1e9;
            String e = Files.readString(err, StandardCharsets.UTF_8);
            double rss = Double.NaN, cpu = Double.NaN;
            if (timed) {
                Matcher m = RSS.matcher(e);
                if (m.find()) {
                    rss = Long.parseLong(m.group(1)) / 1024.0;
                }
                Matcher u = USER.matcher(e), s = SYS.matcher(e);
                if (u.find() && s.find()) {
                    cpu = Double.parseDouble(u.group(1)) + Double.parseDouble(s.group(1));
                }
            }
            if (exit != 0) {
                throw new IOException("bench: child `" + String.join(" ", args) + "` exited " + exit + ": "
                        + e.lines().filter(l -> !l.startsWith("\t") && !l.contains("Command being timed")).findFirst().orElse(""));
            }
            return new ChildRun(wall, rss, cpu, exit, out);
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
