package dev.arenascope.app.ui;

import java.nio.file.Path;

import javafx.application.Application;
import javafx.stage.Stage;

/**
 * The JavaFX application: one {@link MainWindow}, opened on a file or on the live demo session.
 * Started by {@link #launchWindow(Path)} from {@code Main}; the class path carries JavaFX.
 */
public final class ArenaScopeApp extends Application {
    private static volatile Path initialFile;

    /** Opens the window and blocks until it is closed. {@code file} null starts the live demo. */
    public static void launchWindow(Path file) {
        initialFile = file;
        Application.launch(ArenaScopeApp.class);
    }

    @Override
    public void start(Stage stage) {
        WindowPrefs prefs = new WindowPrefs();
        MainWindow window = new MainWindow(stage, prefs);
        prefs.restore(stage);
        stage.show();
        window.startWith(initialFile);
    }
}
