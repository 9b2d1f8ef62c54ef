package dev.arenascope.app.bench;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.prefs.Preferences;

import javafx.stage.Stage;

import dev.arenascope.app.ui.FxToolkit;
import dev.arenascope.app.ui.MainWindow;
import dev.arenascope.app.ui.WindowPrefs;
import dev.arenascope.app.ui.job.Job;
import dev.arenascope.app.ui.job.RanksView;
import dev.arenascope.app.ui.live.ListenView;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.Workloads;

/**
 * The live half of the job bench, run by {@link JobBench} in a child JVM (headless through Monocle when
 * there is no display): a {@link MainWindow} listens on a free loopback port, as File ▸ Listen for Processes
 * does, and {@code JAVA} Java processes ({@link LiveJobSender}, each a JVM of its own, all with the session
 * name {@code particles}, so their ranks are told apart by pid alone) and {@code PYTHON} Python clients
 * ({@code python3 -m arenascope run --live … --name "train rankK" live_rank.py}) are started at once and
 * stream to it. Every refresh the Ranks view applies is timed on the FX thread, with how many connections
 * were streaming then; once every process has exited and the view shows every rank with every event that
 * process says it sent, the probe prints one line per rank and a summary:
 * <pre>
 * rank particles (pid 4242) kind=java sent=41234 shown=41234
 * intervals_ms=498/16,502/16,...   (each interval, and the connections streaming as it began)
 * processes=16 ranks=16 events=N refreshes=R refresh_median_ms=M refresh_p95_ms=P refresh_max_ms=X
 *     streaming_max=S stream_s=D caught_up_s=C
 * </pre>
 * The refresh intervals are those between consecutive refreshes from the first one after a rank appeared
 * to the one that shows every event, counting only intervals that began while some connection was still
 * streaming (a view with nothing new to show need not refresh); {@code streaming_max} the most connections
 * streaming at once at a refresh, {@code caught_up_s} the seconds from the last process's exit to the view
 * showing everything. Exit 0; 3 with one line on stderr when a process failed, a rank is missing, two
 * processes got one name, or a rank's events differ from what its process sent.
 *
 * <p>Arguments: {@code JAVA PYTHON PYTHON_DIR JAVA_STEPS PYTHON_STEPS PAUSE_MS [LIMIT_S]}: the processes of
 * each kind, the project's {@code python} folder (the client and its test stand-ins), the steps each sender
 * runs, the pause after each step (a Java sender's step is {@value #JAVA_STEPS_PER_MARK} of the particles workload's), and a limit for the whole run (300 s).
 */
public final class LiveJobProbe {
    private LiveJobProbe() {}

    /** One applied refresh: when (ns), connections streaming then, events the job held. */
    private record Refresh(long atNs, int streaming, long events, int ranks) {}

    private record Child(String kind, String name, Process process, Path output) {}

    /** Java steps per {@code ProfilerStep} marker (and pause). */
    static final int JAVA_STEPS_PER_MARK = 5;

    public static void main(String[] args) throws Exception {
        int java = Integer.parseInt(args[0]);
        int python = Integer.parseInt(args[1]);
        Path pyDir = Path.of(args[2]).toAbsolutePath().normalize();
        int javaSteps = Integer.parseInt(args[3]);
        int pythonSteps = Integer.parseInt(args[4]);
        int pauseMs = Integer.parseInt(args[5]);
        double limitS = args.length > 6 ? Double.parseDouble(args[6]) : 300;
        long t0 = System.nanoTime();
        Path work = Files.createTempDirectory("arenascope-live-job-");
        Path script = work.resolve("live_rank.py");
        try (InputStream in = LiveJobProbe.class.getResourceAsStream("live_rank.py")) {
            Files.copy(in, script);
        }
        FxToolkit.start();
        Preferences node = Preferences.userRoot().node("dev/arenascope/bench-live-job-" + ProcessHandle.current().pid());
        warmUp(node, limitS);
        List<Refresh> refreshes = new CopyOnWriteArrayList<>();
        MainWindow window = FxToolkit.call(() -> {
            MainWindow w = listeningWindow(node);
            ListenView lv = w.listenView();
            w.ranks().jobProperty().addListener((o, a, b) -> {
                if (b != null && b.live()) {
                    int streaming = (int) lv.connections().stream().filter(c -> c.stats().peer() != null && !c.stats().state().ended()).count();
                    long events = b.summary().ranks().stream().mapToLong(r -> r.loaded() ? r.events() : 0).sum();
                    refreshes.add(new Refresh(System.nanoTime(), streaming, events, b.summary().ranks().size()));
                }
            });
            return w;
        });
        int port = FxToolkit.call(() -> window.listenView().listeningPort());
        if (port <= 0) {
            fail(node, "the window is not listening: " + FxToolkit.call(() -> window.listenView().listeningProperty().get()));
        }
        String target = "127.0.0.1:" + port;

        Map<String, Long> cpuBefore = threadCpu();
        // every process started at once (in the same second): Java senders first, they take longest to start
        List<Child> children = new ArrayList<>();
        String javaExe = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (int i = 0; i < java; i++) {
            Path out = work.resolve("java-" + i + ".out");
            ProcessBuilder pb = new ProcessBuilder(javaExe, "--enable-native-access=ALL-UNNAMED", "-Xmx160m", "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1", "-Darenascope.headless=true", "-cp", System.getProperty("java.class.path"),
                    LiveJobSender.class.getName(), target, "particles", Integer.toString(javaSteps), Integer.toString(JAVA_STEPS_PER_MARK),
                    Integer.toString(pauseMs));
            pb.redirectErrorStream(true).redirectOutput(out.toFile());
            children.add(new Child("java", null, pb.start(), out));
        }
        String py = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        for (int k = 0; k < python; k++) {
            Path out = work.resolve("python-" + k + ".out");
            ProcessBuilder pb = new ProcessBuilder(py, "-m", "arenascope", "run", "--live", target, "--name", "train rank" + k,
                    script.toString(), Integer.toString(pythonSteps), Integer.toString(pauseMs));
            pb.environment().put("PYTHONPATH", String.join(File.pathSeparator, pyDir.toString(),
                    pyDir.resolve("tests/standin_libs").toString(), pyDir.resolve("tests").toString()));
            pb.redirectErrorStream(true).redirectOutput(out.toFile());
            children.add(new Child("python", "rank" + k, pb.start(), out));
        }
        List<Long> exits = new CopyOnWriteArrayList<>();
        for (Child c : children) {
            c.process().getOutputStream().close();
            c.process().onExit().thenRun(() -> exits.add(System.nanoTime()));
        }

        // each process's own count of what it sent, by the rank name the view gives it
        List<LiveJobCheck.Sent> counts = new ArrayList<>();
        for (Child c : children) {
            long left = (long) (limitS * 1e9) - (System.nanoTime() - t0);
            if (!c.process().waitFor(Math.max(1, left), TimeUnit.NANOSECONDS)) {
                children.forEach(ch -> ch.process().destroyForcibly());
                fail(node, "a " + c.kind() + " sender did not end within " + limitS + " s: " + tail(c.output()));
            }
            String text = Files.readString(c.output(), StandardCharsets.UTF_8);
            if (c.process().exitValue() != 0) {
                fail(node, "a " + c.kind() + " sender exited " + c.process().exitValue() + ": " + tail(c.output()));
            }
            try {
                // a Java sender: the session's name and the process's pid, what the Ranks view names a rank without a number by
                counts.add(c.kind().equals("java") ? LiveJobCheck.java("particles", c.process().pid(), text) : LiveJobCheck.python(c.name(), text));
            } catch (LiveJobCheck.Failure e) {
                fail(node, e.getMessage());
            }
        }
        Map<String, Long> sent = null;
        try {
            sent = LiveJobCheck.byRank(counts);
        } catch (LiveJobCheck.Failure e) {
            fail(node, e.getMessage());
        }
        Map<String, String> kinds = new LinkedHashMap<>();
        counts.forEach(c -> kinds.put(c.rank(), c.kind()));

        while (exits.size() < children.size()) {
            Thread.sleep(1); // the exit times, recorded as each process ended
        }
        long lastExit = exits.stream().mapToLong(Long::longValue).max().orElseThrow();

        // the view catches up: every rank, every event (a rank short of what its process sent is a loss: exit 3)
        Job shown = null;
        long caughtUp = 0;
        while (shown == null) {
            Job j = FxToolkit.call(() -> window.ranks().jobProperty().get());
            String difference = j == null || !j.live() ? "the Ranks view shows no live job" : LiveJobCheck.difference(sent, j.summary().ranks());
            if (difference == null) {
                shown = j;
                caughtUp = System.nanoTime();
                break;
            }
            if ((System.nanoTime() - lastExit) / 1e9 > 60 || (System.nanoTime() - t0) / 1e9 > limitS + 60) {
                fail(node, "60 s after the last process ended: " + difference);
            }
            Thread.sleep(20);
        }

        // the refresh intervals while anything streamed, up to the refresh that showed everything
        List<Refresh> rs = new ArrayList<>(refreshes);
        int last = rs.size() - 1;
        while (last > 0 && rs.get(last).atNs() > caughtUp) {
            last--;
        }
        List<Double> gaps = new ArrayList<>();
        int streamingMax = 0;
        for (int i = 0; i <= last; i++) {
            streamingMax = Math.max(streamingMax, rs.get(i).streaming());
            if (i > 0 && rs.get(i - 1).streaming() > 0) {
                gaps.add((rs.get(i).atNs() - rs.get(i - 1).atNs()) / 1e6);
            }
        }
        double[] g = gaps.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(g);
        for (RankSummary r : shown.summary().ranks()) {
            System.out.printf(Locale.ROOT, "rank %s kind=%s sent=%d shown=%d%n", r.rank(), kinds.get(r.rank()), sent.get(r.rank()), r.events());
        }
        StringBuilder each = new StringBuilder("intervals_ms=");
        for (int i = 1; i <= last; i++) {
            each.append(i == 1 ? "" : ",").append(Math.round((rs.get(i).atNs() - rs.get(i - 1).atNs()) / 1e6)).append('/').append(rs.get(i - 1).streaming());
        }
        System.out.println(each);
        // where each refresh's time went: waiting for the worker / computing / waiting for the FX thread / applying
        StringBuilder parts = new StringBuilder("refresh_parts_ms=");
        for (RanksView.LiveTiming t : FxToolkit.call(() -> window.ranks().liveTimings())) {
            parts.append(parts.length() == 17 ? "" : ",").append(String.format(Locale.ROOT, "%d/%d/%d/%d:%d",
                    Math.round((t.startedNs() - t.submittedNs()) / 1e6), Math.round((t.computedNs() - t.startedNs()) / 1e6),
                    Math.round((t.receivedNs() - t.computedNs()) / 1e6), Math.round((t.appliedNs() - t.receivedNs()) / 1e6), t.ranks()));
        }
        System.out.println(parts);
        // this JVM's threads' CPU from the processes' start to the view showing everything: which of them the refreshes waited for
        Map<String, Long> cpuAfter = threadCpu();
        StringBuilder cpu = new StringBuilder("threads_cpu_ms=");
        cpuAfter.entrySet().stream().map(e -> Map.entry(e.getKey(), e.getValue() - cpuBefore.getOrDefault(e.getKey(), 0L)))
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(10)
                .forEach(e -> cpu.append(cpu.length() == 15 ? "" : ",").append(e.getKey()).append('=').append(e.getValue() / 1_000_000));
        System.out.println(cpu);
        System.out.printf(Locale.ROOT, "processes=%d ranks=%d events=%d refreshes=%d refresh_median_ms=%.1f refresh_p95_ms=%.1f "
                        + "refresh_max_ms=%.1f streaming_max=%d stream_s=%.2f caught_up_s=%.3f%n",
                children.size(), shown.summary().ranks().size(), sent.values().stream().mapToLong(Long::longValue).sum(), rs.size(),
                g.length == 0 ? Double.NaN : Medians.median(g), g.length == 0 ? Double.NaN : g[(int) Math.min(g.length - 1, Math.ceil(0.95 * g.length) - 1)],
                g.length == 0 ? Double.NaN : g[g.length - 1], streamingMax,
                rs.isEmpty() ? 0 : (rs.get(last).atNs() - rs.getFirst().atNs()) / 1e9, Math.max(0, caughtUp - lastExit) / 1e9);
        System.out.flush();
        node.removeNode();
        System.exit(0);
    }

    /** CPU time by thread name (threads of one name summed), ns. */
    private static Map<String, Long> threadCpu() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> out = new LinkedHashMap<>();
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null) {
                long ns = mx.getThreadCpuTime(t.getThreadId());
                if (ns > 0) {
                    out.merge(t.getThreadName().replaceAll("-\\d+$", "-N"), ns, Long::sum);
                }
            }
        }
        return out;
    }

    /** A window that listens on a free loopback port, its Listen window shown (FX thread). */
    private static MainWindow listeningWindow(Preferences node) {
        Stage stage = new Stage();
        MainWindow w = new MainWindow(stage, new WindowPrefs(node));
        stage.setWidth(1200);
        stage.setHeight(760);
        stage.show();
        w.listenView().show(stage);
        w.listenView().portField().setText("0");
        w.listenView().toggle();
        return w;
    }

    /**
     * A window that has been open a while, as a user's is when a job starts: one process (in this JVM)
     * streams to a first window until its Ranks view shows it whole, and that window is closed; the
     * measured window then starts with the classes loaded and the code compiled, not cold.
     */
    private static void warmUp(Preferences node, double limitS) throws Exception {
        MainWindow w = FxToolkit.call(() -> listeningWindow(node));
        int port = FxToolkit.call(() -> w.listenView().listeningPort());
        Workload particles = Workloads.find("particles");
        long delivered;
        try (Session session = new Session("warm-up"); VirtualDevice device = new VirtualDevice(1L << 30)) {
            LiveSender sender = LiveSender.stream(session, "127.0.0.1:" + port, null);
            particles.run(session, device, particles.parse(Map.of("steps", "400")), Progress.NONE);
            session.flush();
            session.removeSink(sender);
            delivered = sender.stats().deliveredEvents();
        }
        long t0 = System.nanoTime();
        while (!FxToolkit.call(() -> {
            Job j = w.ranks().jobProperty().get();
            return j != null && j.summary().ranks().size() == 1 && j.summary().ranks().getFirst().events() == delivered;
        })) {
            if ((System.nanoTime() - t0) / 1e9 > limitS) {
                fail(node, "the warm-up process did not reach the Ranks view in " + limitS + " s");
            }
            Thread.sleep(20);
        }
        FxToolkit.call(() -> {
            w.dispose();
            w.listenView().stage().getOwner().hide();
            return null;
        });
    }

    private static String tail(Path output) {
        try {
            List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private static void fail(Preferences node, String why) {
        System.err.println("live job probe: " + why);
        try {
            node.removeNode();
        } catch (Exception ignored) {
            // throwaway preferences
        }
        System.exit(3);
    }
}
