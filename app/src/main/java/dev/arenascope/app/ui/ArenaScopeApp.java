package dev.arenascope.app.ui;

import java.nio.file.Path;
import java.util.List;

import javafx.application.Application;
import javafx.stage.Stage;
import javafx.util.Duration;

/**
 * The JavaFX application: one {@link MainWindow}, opened on a file or on the live demo session.
 * Started by {@link #launchWindow(List)} from {@code Main}; the class path carries JavaFX.
 */
public final class ArenaScopeApp extends Application {
    private static volatile List<Path> initialFiles = List.of();
    /**
     * The longest the live demo's window waits for the timeline to draw the demo's first memory before it
     * shows anyway (a CUDA driver slow to answer); the demo's memory is drawn well within it on a laptop.
     */
    private static final Duration FIRST_FRAME_WAIT = Duration.seconds(3);

    /** Opens the window and blocks until it is closed. {@code file} null starts the live demo. */
    public static void launchWindow(Path file) {
        launchWindow(file == null ? List.of() : List.of(file));
    }

    /** Opens the window on a trace, or on a job of several (files or folders); none starts the live demo. Blocks until closed. */
    public static void launchWindow(List<Path> files) {
        initialFiles = List.copyOf(files);
        Application.launch(ArenaScopeApp.class);
    }

    @Override
    public void start(Stage stage) {
        WindowPrefs prefs = new WindowPrefs();
        MainWindow window = new MainWindow(stage, prefs);
        prefs.restore(stage);
        window.showFirst(initialFiles, FIRST_FRAME_WAIT);
    }
}
