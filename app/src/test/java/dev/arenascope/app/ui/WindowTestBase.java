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

    /** Opens {@code f} in the window and waits until it is the window's trace with its events in. */
    protected void openUntilLoaded(Path f) {
        fxRun(() -> window.open(f));
        waitFor(60, "the file " + f.getFileName() + " open", () -> window.model().titleProperty().get().equals(f.getFileName().toString())
                && window.model().eventCountProperty().get() > 0);
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
