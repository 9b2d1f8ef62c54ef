package dev.arenascope.app.ui;

import java.nio.file.Path;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.prefs.Preferences;

import javafx.stage.Stage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

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
    protected void openUntilLoaded(Path f) {
        fxRun(() -> window.open(f));
        waitForSettled(60, "the file " + f.getFileName() + " open", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && window.model().eventCountProperty().get() > 0
                && window.model().digestProperty().get().events() == window.model().trace().eventCount());
    }

    /**
     * Waits up to {@code seconds} until {@code condition} holds and the window is settled
     * ({@link MainWindow#settled()}), both read in one turn of the FX thread: the state the test then
     * asserts is the final one, not a step on the way to it (a view filled in steps, a listing about to be
     * replaced). Not for a live session, which never settles while it streams.
     */
    protected void waitForSettled(double seconds, String what, BooleanSupplier condition) {
        waitForSettled(seconds, what, condition, () -> "");
    }

    /** {@link #waitForSettled(double, String, BooleanSupplier)}, saying what {@code state} shows on a time-out. */
    protected void waitForSettled(double seconds, String what, BooleanSupplier condition, java.util.function.Supplier<String> state) {
        waitFor(seconds, what + " (the window settled)", () -> {
            // the layout a pulse would do now, so that a size it changes (a legend shown, a bar re-laid) has asked
            // for its new frame before the window is asked whether it is settled
            javafx.scene.Parent root = window.scene().getRoot();
            root.applyCss();
            root.layout();
            return window.settled() && condition.getAsBoolean();
        },
                () -> state.get() + "; " + unsettled());
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
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out after " + seconds + " s waiting for: " + what);
        }
    }

    /**
     * Waits like {@link #waitFor(double, String, BooleanSupplier)}; on a time-out the message also says
     * what {@code state} (read on the FX thread) shows then, so that a failure on another machine says why.
     */
    protected static void waitFor(double seconds, String what, BooleanSupplier condition, java.util.function.Supplier<String> state) {
        try {
            WaitForAsyncUtils.waitFor((long) (seconds * 1000), TimeUnit.MILLISECONDS, () -> fx(condition::getAsBoolean));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out after " + seconds + " s waiting for: " + what + "; state: " + fx(state::get));
        }
    }

    /** Runs {@code work} on the FX thread and returns its result. */
    protected static <T> T fx(java.util.concurrent.Callable<T> work) {
        try {
            return WaitForAsyncUtils.asyncFx(work).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("FX work failed: " + e, e);
        }
    }

    protected static void fxRun(Runnable work) {
        fx(() -> {
            work.run();
            return null;
        });
    }
}
