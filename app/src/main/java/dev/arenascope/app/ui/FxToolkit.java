package dev.arenascope.app.ui;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Callable;

import javafx.application.Platform;

/**
 * Starts the JavaFX toolkit outside {@code Application.launch} (bench, screenshots), headless through
 * Monocle when there is no display, and runs work on the FX thread synchronously.
 */
public final class FxToolkit {
    private static boolean started;

    private FxToolkit() {}

    /** Starts the toolkit once; with no display it selects Monocle's headless platform and software rendering. */
    public static synchronized void start() throws InterruptedException {
        if (started) {
            return;
        }
        if (!Display.available() || Boolean.getBoolean("arenascope.headless")) {
            System.setProperty("glass.platform", "Monocle");
            System.setProperty("monocle.platform", "Headless");
            System.setProperty("prism.order", "sw");
            System.setProperty("prism.text", "t2k");
        }
        CountDownLatch latch = new CountDownLatch(1);
        try {
            Platform.startup(latch::countDown);
        } catch (IllegalStateException alreadyRunning) {
            latch.countDown();
        }
        Platform.setImplicitExit(false);
        if (!latch.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the JavaFX toolkit did not start within 30 s");
        }
        started = true;
    }

    /** Runs {@code work} on the FX thread and returns its result. */
    public static <T> T call(Callable<T> work) throws Exception {
        if (Platform.isFxApplicationThread()) {
            return work.call();
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        Platform.runLater(() -> {
            try {
                f.complete(work.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        try {
            return f.get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new IllegalStateException("the FX thread did not answer within 120 s", e);
        }
    }
}
