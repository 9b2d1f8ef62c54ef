package dev.arenascope.app.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.prefs.Preferences;

import javafx.stage.Stage;

import dev.arenascope.app.ui.FxToolkit;
import dev.arenascope.app.ui.MainWindow;
import dev.arenascope.app.ui.WindowPrefs;
import dev.arenascope.app.ui.job.Job;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.timeline.DrawList;

/**
 * The window half of the job bench, run by {@link JobBench} in a child JVM whose heap the bench sets
 * ({@code -Xmx2g}): shows a {@link MainWindow} (headless through Monocle when there is no display), opens
 * the folder {@code ARGS[0]} as a job as File ▸ Open Folder does, and waits until the Ranks view holds every
 * rank and the timeline has drawn a frame of every event of the worst rank, which the window shows. Prints one
 * line, {@code open_s=S ranks=N worst=RANK peak_used=B max_heap_mb=M}: S the seconds from the open request to
 * that frame, B the worst rank's highest lane peak (the bench checks both against the generator's). Exit 0;
 * 3 when the open failed or no frame came within {@code ARGS[1]} seconds (300 by default). Throwaway window
 * preferences.
 */
public final class JobWindowProbe {
    private JobWindowProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        double limitS = args.length > 1 ? Double.parseDouble(args[1]) : 300;
        FxToolkit.start();
        Preferences node = Preferences.userRoot().node("dev/arenascope/bench-job-open-" + ProcessHandle.current().pid());
        MainWindow window = FxToolkit.call(() -> {
            Stage stage = new Stage();
            MainWindow w = new MainWindow(stage, new WindowPrefs(node));
            stage.setWidth(1200);
            stage.setHeight(760);
            stage.show();
            return w;
        });
        long t1 = System.nanoTime();
        TaskRunner.Handle open = FxToolkit.call(() -> window.openJob(List.of(dir)));
        record Shown(Job job, DrawList frame) {}
        Shown shown = null;
        long doneAt = 0;
        while (shown == null) {
            shown = FxToolkit.call(() -> {
                Job j = window.ranks().jobProperty().get();
                DrawList d = window.timeline().drawListProperty().get();
                long events = window.model().eventCountProperty().get();
                return j != null && j.summary().worst() != null && window.model().trace() == j.store(j.summary().worst())
                        && d != null && events > 0 && d.events() == events ? new Shown(j, d) : null;
            });
            if (shown != null) {
                break;
            }
            long now = System.nanoTime();
            if (open.isDone() && doneAt == 0) {
                doneAt = now;
            }
            if ((now - t1) / 1e9 > limitS || (doneAt != 0 && (now - doneAt) / 1e9 > 60)) {
                String status = FxToolkit.call(() -> window.statusBar().getText());
                System.err.println("job window open: no frame of the worst rank of " + dir + " after "
                        + String.format(Locale.ROOT, "%.1f", (now - t1) / 1e9) + " s; status: " + status);
                node.removeNode();
                System.exit(3);
            }
            Thread.sleep(10);
        }
        long t2 = System.nanoTime();
        long peak = shown.frame().lanes().stream().mapToLong(DrawList.Lane::peakUsed).max().orElse(0);
        System.out.printf(Locale.ROOT, "open_s=%.3f ranks=%d worst=%s peak_used=%d max_heap_mb=%d%n", (t2 - t1) / 1e9,
                shown.job().summary().ranks().size(), shown.job().summary().worst(), peak, Runtime.getRuntime().maxMemory() >> 20);
        System.out.flush();
        node.removeNode();
        System.exit(0);
    }
}
