package dev.arenascope.app.bench;

import java.nio.file.Path;
import java.util.Locale;
import java.util.prefs.Preferences;

import javafx.stage.Stage;

import dev.arenascope.app.ui.FxToolkit;
import dev.arenascope.app.ui.MainWindow;
import dev.arenascope.app.ui.WindowPrefs;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.timeline.DrawList;

/**
 * The window half of the torch bench, run by {@link TorchBench} in a child JVM whose heap the bench
 * sets ({@code -Xmx2g}): starts the JavaFX toolkit (headless through Monocle when there is no
 * display), shows a {@link MainWindow}, opens {@code FILE} as File → Open does, and waits until the
 * timeline has drawn a frame of every event of the file. Prints one line,
 * {@code open_s=S window_s=W events=N peak_used=B max_heap_mb=M}: S the seconds from the open request
 * to that frame, W the seconds to start the toolkit and show the window, B the highest lane peak of
 * {@code used} (the bench checks it against the generator's). Exit 0; 3 when the open failed or no
 * frame came within {@code ARGS[1]} seconds (120 by default), with the window's status line on stderr.
 * Throwaway window preferences (a node removed on exit), so a user's are never touched.
 */
public final class WindowOpenProbe {
    private WindowOpenProbe() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        double limitS = args.length > 1 ? Double.parseDouble(args[1]) : 120;
        long t0 = System.nanoTime();
        FxToolkit.start();
        Preferences node = Preferences.userRoot().node("dev/arenascope/bench-window-open-" + ProcessHandle.current().pid());
        MainWindow window = FxToolkit.call(() -> {
            Stage stage = new Stage();
            MainWindow w = new MainWindow(stage, new WindowPrefs(node));
            stage.setWidth(1200); // within Monocle's headless screen (1280 x 800)
            stage.setHeight(760);
            stage.show();
            return w;
        });
        long t1 = System.nanoTime();
        TaskRunner.Handle open = FxToolkit.call(() -> window.open(file));
        String name = file.getFileName().toString();
        DrawList shown = null;
        long doneAt = 0;
        while (shown == null) {
            shown = FxToolkit.call(() -> {
                DrawList d = window.timeline().drawListProperty().get();
                long events = window.model().eventCountProperty().get();
                return name.equals(window.model().titleProperty().get()) && d != null && events > 0 && d.events() == events ? d : null;
            });
            if (shown != null) {
                break;
            }
            long now = System.nanoTime();
            if (open.isDone() && doneAt == 0) {
                doneAt = now;
            }
            // a finished load draws within moments; a failed one never does
            if ((now - t1) / 1e9 > limitS || (doneAt != 0 && (now - doneAt) / 1e9 > 30)) {
                String status = FxToolkit.call(() -> window.statusBar().getText());
                System.err.println("window open: no frame of " + name + " after " + String.format(Locale.ROOT, "%.1f", (now - t1) / 1e9)
                        + " s; status: " + status);
                node.removeNode();
                System.exit(3);
            }
            Thread.sleep(10);
        }
        long t2 = System.nanoTime();
        long peak = shown.lanes().stream().mapToLong(DrawList.Lane::peakUsed).max().orElse(0);
        System.out.printf(Locale.ROOT, "open_s=%.3f window_s=%.3f events=%d peak_used=%d max_heap_mb=%d%n", (t2 - t1) / 1e9, (t1 - t0) / 1e9,
                shown.events(), peak, Runtime.getRuntime().maxMemory() >> 20);
        System.out.flush();
        node.removeNode();
        System.exit(0);
    }
}
