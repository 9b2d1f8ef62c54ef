package dev.arenascope.app.ui.task;

import java.util.concurrent.Executor;

import javafx.application.Platform;

/**
 * Where background work's callbacks run: on the FX application thread in the window, or directly on
 * the calling thread in tests that drive view models without a toolkit.
 */
public interface UiExecutor extends Executor {

    /** Runs callbacks on the FX application thread (directly when already on it). */
    UiExecutor FX = command -> {
        if (Platform.isFxApplicationThread()) {
            command.run();
        } else {
            Platform.runLater(command);
        }
    };

    /** Runs callbacks on whichever thread completes the work: deterministic tests. */
    UiExecutor DIRECT = Runnable::run;
}
