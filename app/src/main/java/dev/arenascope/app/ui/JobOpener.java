package dev.arenascope.app.ui;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import javafx.stage.DirectoryChooser;
import javafx.stage.Stage;

import dev.arenascope.app.ui.common.Placement;
import dev.arenascope.app.ui.io.TraceFiles;
import dev.arenascope.app.ui.job.Job;
import dev.arenascope.app.ui.job.RanksView;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;

/**
 * Opens a job in the window: several traces or a folder (File ▸ Open… with many files, File ▸ Open
 * Folder…, a drop of many files or a folder, {@code arenascope open a b c}). The ranks are imported in
 * the background, in parallel, with the ranks done as progress in the status line (cancellable); the job
 * then fills the {@link RanksView} and the worst rank is shown. A member that cannot be read is a row with
 * its reason, the others open. FX thread only.
 */
final class JobOpener {
    private final Stage stage;
    private final TaskRunner tasks;
    private final StatusLine status;
    private final LiveControls live;
    private final WindowDialogs dialogs;
    private final SessionGuard guard;
    private final RanksView ranks;
    private final Runnable showRanks;
    private final Consumer<List<Path>> remember;

    /** @param remember told the paths of each job that opened (File ▸ Open Recent keeps it as one entry) */
    JobOpener(Stage stage, TaskRunner tasks, StatusLine status, LiveControls live, WindowDialogs dialogs, SessionGuard guard,
              RanksView ranks, Runnable showRanks, Consumer<List<Path>> remember) {
        this.stage = stage;
        this.tasks = tasks;
        this.status = status;
        this.live = live;
        this.dialogs = dialogs;
        this.guard = guard;
        this.ranks = ranks;
        this.showRanks = showRanks;
        this.remember = remember;
    }

    /** File ▸ Open Folder…: a folder of traces, one rank each. */
    void openFolderDialog() {
        DirectoryChooser dc = new DirectoryChooser();
        dc.setTitle("Open a job: a folder of traces, one per rank");
        File d = Placement.keepingOwner(stage, () -> dc.showDialog(stage)); // the main window left as it was
        if (d != null) {
            openAsked(List.of(d.toPath()));
        }
    }

    /** Opens the job of {@code paths} once what it replaces may go ({@link SessionGuard}). */
    void openAsked(List<Path> paths) {
        guard.then(SessionGuard.Action.OPEN_FILE, "Open " + Job.title(paths, paths.size()), () -> open(paths));
    }

    /** Loads the job of {@code paths} (files and folders) in the background and shows it. */
    TaskRunner.Handle open(List<Path> paths) {
        String what = paths.size() == 1 ? String.valueOf(paths.getFirst().getFileName()) : Counts.of(paths.size(), "file");
        status.message("Opening the job of " + what + " …");
        status.progress(-1);
        Consumer<Job> shown = job -> {
            show(job);
            remember.accept(paths);
        };
        status.fileTask(tasks.submit(BackgroundTask.of("Opening the job of " + what, p -> Job.load(paths, p))
                .onProgress((fraction, msg, title) -> {
                    status.progress(fraction);
                    status.message(title + (msg.isEmpty() ? "" : " — " + msg));
                })
                .onSuccess(job -> {
                    status.fileTask(null);
                    shown.accept(job);
                })
                .onFailure(e -> {
                    status.fileTask(null);
                    status.message("Could not open the job of " + what);
                    dialogs.error("Open the job of " + what, TraceFiles.describe(e));
                })
                .onCancelled(() -> {
                    status.fileTask(null);
                    status.message("Opening the job of " + what + " cancelled");
                })));
        return status.fileTask();
    }

    private void show(Job job) {
        live.stopQuietly();
        live.detach();
        ranks.show(job);
        showRanks.run();
        JobSummary s = job.summary();
        int bad = (int) s.ranks().stream().filter(r -> !r.loaded() || r.problem() != null).count();
        RankSummary worst = s.worst() == null ? null : s.worstRank();
        status.message(String.format(Locale.ROOT, "Opened %s: %s%s%s", job.title(), Counts.of(s.ranks().size(), "rank"),
                worst == null ? ", none could be read" : ", worst " + worst.rank() + " at " + Bytes.format(worst.peakLiveBytes()),
                bad == 0 ? "" : "; " + bad + (bad == 1 ? " rank" : " ranks") + " could not be read whole — see the Ranks view"));
    }
}
