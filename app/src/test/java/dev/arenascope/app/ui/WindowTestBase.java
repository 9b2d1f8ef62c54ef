package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.prefs.Preferences;

import javafx.scene.Parent;
import javafx.stage.Stage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.util.Progress;
import dev.arenascope.workloads.Workload;
import dev.arenascope.workloads.Workloads;

/** Opens a {@link MainWindow} on a fresh stage (headless Monocle under surefire) with throwaway preferences. */
abstract class WindowTestBase {
    protected MainWindow window;
    protected Stage stage;
    protected final FxRobot robot = new FxRobot();

    @BeforeEach
    void openWindow() throws Exception {
        org.testfx.api.FxToolkit.registerPrimaryStage();
        Preferences node = Preferences.userRoot().node("dev/arenascope/app-test/" + getClass().getSimpleName());
        node.clear();
        fxRun(() -> {
            stage = new Stage();
            window = new MainWindow(stage, new WindowPrefs(node));
            stage.setWidth(1200);
            stage.setHeight(760);
            stage.show();
            stage.toFront();
        });
        WaitForAsyncUtils.waitForFxEvents();
    }

    @AfterEach
    void closeWindow() throws Exception {
        if (window != null) {
            fxRun(() -> {
                window.dispose();
                stage.close();
            });
        }
    }

    /**
     * Opens {@code f} in the window and waits until it is the window's trace with its events in, its
     * digest done and the window settled (every view has drawn or answered what the open asked of it).
     */
    /** Opens the Listen window, listens on a port the system picks and returns it. */
    protected int listenOnAnyPort() {
        fxRun(() -> {
            window.listenView().show(stage);
            window.listenView().portField().setText("0");
            window.listenView().toggle();
        });
        int port = fx(() -> window.listenView().listeningPort());
        assertTrue(port > 0, "listening");
        return port;
    }

    /**
     * Streams {@code steps} steps of the particles workload to {@code port} as a profiled process named {@code name}
     * would, and returns the events the receiver acknowledged.
     */
    protected static long streamParticles(int port, String name, int steps) throws Exception {
        Workload w = Workloads.find("particles");
        try (Session session = new Session(name); VirtualDevice device = new VirtualDevice(1L << 30)) {
            LiveSender sender = LiveSender.stream(session, "127.0.0.1:" + port, null);
            w.run(session, device, w.parse(Map.of("steps", Integer.toString(steps))), Progress.NONE);
            session.flush();
            session.removeSink(sender);
            return sender.stats().deliveredEvents();
        }
    }

    protected void openUntilLoaded(Path f) {
        fxRun(() -> window.open(f));
        waitForSettled(60, "the file " + f.getFileName() + " open", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && window.model().eventCountProperty().get() > 0
                && window.model().digestProperty().get().events() == window.model().trace().eventCount());
    }

    /**
     * Waits until {@code condition} holds and the window is settled ({@link MainWindow#settled()}), both
     * read in one turn of the FX thread: the state the test then asserts is the final one, not a step on
     * the way to it (a view filled in steps, a listing about to be replaced). Time the window spends at
     * work does not count against {@code seconds}: only time it spends settled with the condition false
     * does (the answer is in and it is not the one expected), so a loaded machine makes the wait longer,
     * never a failure; {@value #HANG_SECONDS} s in all is a hang. Not for a live session, which never
     * settles while it streams.
     */
    protected void waitForSettled(double seconds, String what, BooleanSupplier condition) {
        waitForSettled(seconds, what, condition, () -> "");
    }

    /** {@link #waitForSettled(double, String, BooleanSupplier)}, saying what {@code state} shows on a time-out. */
    protected void waitForSettled(double seconds, String what, BooleanSupplier condition, Supplier<String> state) {
        long allowed = (long) (seconds * 1e9);
        long start = System.nanoTime();
        long last = start;
        long settledFalse = 0;
        while (true) {
            int seen = fx(() -> {
                // the layout a pulse would do now, so that a size it changes (a legend shown, a bar re-laid) has
                // asked for its new frame before the window is asked whether it is settled
                Parent root = window.scene().getRoot();
                root.applyCss();
                root.layout();
                return !window.settled() ? 0 : condition.getAsBoolean() ? 2 : 1;
            });
            long now = System.nanoTime();
            if (seen == 2) {
                return;
            }
            if (seen == 1) {
                settledFalse += now - last;
            }
            last = now;
            if (settledFalse > allowed || now - start > TimeUnit.SECONDS.toNanos(HANG_SECONDS)) {
                throw new AssertionError((settledFalse > allowed ? "settled for " + seconds + " s without" : "no settled window in "
                        + HANG_SECONDS + " s with") + ": " + what + "; state: " + fx(state::get) + "; " + fx(this::unsettled));
            }
            LockSupport.parkNanos(10_000_000L); // the next look, after the FX thread's next turns
        }
    }

    /** What keeps the window from being settled, in words (FX thread). */
    protected String unsettled() {
        return "settled: " + window.settled() + " (tasks " + window.model().tasks().settled() + " " + window.model().tasks().running().stream()
                .map(h -> h.title()).toList() + ", timeline " + window.timeline().settled() + ", events " + window.events().settled()
                + ", sites " + window.sites().settled() + ")";
    }

    /** Waits up to {@code seconds} for {@code condition} (checked on the FX thread). */
    protected static void waitFor(double seconds, String what, BooleanSupplier condition) {
        try {
            WaitForAsyncUtils.waitFor((long) (seconds * 1000), TimeUnit.MILLISECONDS, () -> fx(condition::getAsBoolean));
        } catch (TimeoutException e) {
            throw new AssertionError("timed out after " + seconds + " s waiting for: " + what + "\n" + workerStacks());
        }
    }

    /**
     * Waits like {@link #waitFor(double, String, BooleanSupplier)}; on a time-out the message also says
     * what {@code state} (read on the FX thread) shows then, so that a failure on another machine says why.
     */
    protected static void waitFor(double seconds, String what, BooleanSupplier condition, Supplier<String> state) {
        try {
            WaitForAsyncUtils.waitFor((long) (seconds * 1000), TimeUnit.MILLISECONDS, () -> fx(condition::getAsBoolean));
        } catch (TimeoutException e) {
            throw new AssertionError("timed out after " + seconds + " s waiting for: " + what + "; state: " + fx(state::get) + "\n"
                    + workerStacks());
        }
    }

    /** How long the FX thread may stand at one place, its stack unchanged, before a test calls it stuck. */
    private static final long STUCK_SECONDS = 30;
    /** How long one piece of FX work may take at most, however busy the FX thread is meanwhile: a hang guard. */
    private static final long HANG_SECONDS = 600;

    /**
     * Runs {@code work} on the FX thread and returns its result. It waits as long as the FX thread gets on
     * with its queue (a cold start of the toolkit and the window on a loaded machine takes what it takes):
     * it fails when the FX thread's stack has stayed the same for {@value #STUCK_SECONDS} s (blocked, or
     * looping at one place), saying where, or after {@value #HANG_SECONDS} s in all.
     */
    protected static <T> T fx(Callable<T> work) {
        Future<T> f = WaitForAsyncUtils.asyncFx(work);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
        StackTraceElement[] last = null;
        long stillSince = System.nanoTime();
        while (true) {
            try {
                return f.get(5, TimeUnit.SECONDS);
            } catch (TimeoutException slow) {
                StackTraceElement[] now = toolkitStacks();
                if (!Arrays.equals(now, last)) {
                    last = now;
                    stillSince = System.nanoTime();
                } else if (System.nanoTime() - stillSince > TimeUnit.SECONDS.toNanos(STUCK_SECONDS)) {
                    throw new AssertionError("FX work did not run: the FX thread and the renderer have stood still for " + STUCK_SECONDS + " s at\n"
                            + stack(now));
                }
                if (System.nanoTime() - end > 0) {
                    throw new AssertionError("FX work did not finish in " + HANG_SECONDS + " s; the FX thread is at\n" + stack(now));
                }
            } catch (ExecutionException e) {
                throw new AssertionError("FX work failed: " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for FX work", e);
            }
        }
    }

    /** The FX thread's stack, then the renderer's (the FX thread waits for it in a pulse): either moving is progress. */
    private static StackTraceElement[] toolkitStacks() {
        List<StackTraceElement> all = new ArrayList<>();
        for (String name : new String[] {"JavaFX Application Thread", "QuantumRenderer-0"}) {
            Thread.getAllStackTraces().entrySet().stream().filter(e -> e.getKey().getName().equals(name)).findFirst()
                    .ifPresent(e -> all.addAll(Arrays.asList(e.getValue())));
        }
        return all.toArray(StackTraceElement[]::new);
    }

    /**
     * Where the app's own background threads stand (the task runners' workers, the SQL engine's load and
     * time-out threads): what a time-out on another machine says about why the work did not finish.
     */
    static String workerStacks() {
        StringBuilder sb = new StringBuilder("the app's background threads:\n");
        Thread.getAllStackTraces().entrySet().stream().filter(e -> e.getKey().getName().startsWith("arenascope-"))
                .sorted((a, b) -> a.getKey().getName().compareTo(b.getKey().getName()))
                .forEach(e -> sb.append("  ").append(e.getKey().getName()).append(" (").append(e.getKey().getState()).append(")\n")
                        .append(stack(e.getValue())));
        return sb.toString();
    }

    private static String stack(StackTraceElement[] frames) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(frames.length, 25); i++) {
            sb.append("    at ").append(frames[i]).append('\n');
        }
        return sb.toString();
    }

    protected static void fxRun(Runnable work) {
        fx(() -> {
            work.run();
            return null;
        });
    }
}
