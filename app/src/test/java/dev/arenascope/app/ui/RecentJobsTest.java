package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.job.Job;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.trace.torch.SyntheticJob;

/**
 * File ▸ Open Recent keeps a job (a folder, or several files) as one entry and reopens it as that job:
 * the same ranks from the same files, not its first file as one trace.
 */
class RecentJobsTest extends WindowTestBase {
    @TempDir
    Path dir;

    private Menu recentMenu() {
        return fx(() -> window.scene().getRoot().lookupAll(".menu-bar").stream().map(MenuBar.class::cast)
                .flatMap(b -> b.getMenus().stream()).flatMap(m -> m.getItems().stream())
                .filter(m -> "menu-recent".equals(m.getId())).map(Menu.class::cast).findFirst().orElseThrow());
    }

    private List<String> recentLabels() {
        return fx(() -> recentMenu().getItems().stream().map(MenuItem::getText).toList());
    }

    private void fireRecent(String startsWith) {
        fxRun(() -> recentMenu().getItems().stream().filter(m -> m.getText().startsWith(startsWith)).findFirst()
                .orElseThrow(() -> new AssertionError("no recent entry " + startsWith + " in " + recentMenu().getItems().stream().map(MenuItem::getText).toList()))
                .fire());
    }

    private Job waitForJob(String title, int ranks) {
        waitForSettled(120, "the job " + title + " open", () -> {
            Job j = window.ranks().jobProperty().get();
            return j != null && j.title().equals(title) && j.summary().ranks().size() == ranks && window.model().trace() != null
                    && window.model().digestProperty().get().events() == window.model().trace().eventCount();
        }, () -> String.valueOf(window.ranks().jobProperty().get() == null ? null : window.ranks().jobProperty().get().title()));
        return fx(() -> window.ranks().jobProperty().get());
    }

    @Test
    void aJobIsOneRecentEntryAndReopensAsTheJob() throws Exception {
        Path folder = dir.resolve("step-40");
        java.nio.file.Files.createDirectories(folder);
        SyntheticJob.Truth truth = SyntheticJob.write(folder, new SyntheticJob.Spec(5, 3, 3, 4, 3, 2, 2, true));

        // a folder opened as a job: one entry, named for the folder
        fxRun(() -> window.openJob(List.of(folder)));
        Job first = waitForJob(Job.title(List.of(folder), 3), 3);
        assertEquals("Job: step-40 (folder)   —   " + dir.toAbsolutePath().normalize(), recentLabels().getFirst());
        assertEquals(1, recentLabels().size(), "the job is one entry, not one per rank: " + recentLabels());

        // two of its files opened together: another job entry, listed first
        Path r0 = folder.resolve(SyntheticJob.fileName(0));
        Path r2 = folder.resolve(SyntheticJob.fileName(2));
        fxRun(() -> window.openJob(List.of(r0, r2)));
        waitForJob(Job.title(List.of(r0, r2), 2), 2);
        assertTrue(recentLabels().getFirst().startsWith("Job of 2 files: " + r0.getFileName() + ", " + r2.getFileName()), recentLabels().toString());

        // one trace afterwards: the job leaves the window, and is a third entry
        openUntilLoaded(r2);
        waitForSettled(20, "the job gone", () -> window.ranks().jobProperty().get() == null);
        List<String> labels = recentLabels();
        assertEquals(3, labels.size(), labels.toString());
        assertTrue(labels.getFirst().startsWith(r2.getFileName().toString()), labels.toString());

        // Open Recent on the folder's entry reopens the job: every rank, from the files it had
        fireRecent("Job: step-40");
        Job again = waitForJob(first.title(), 3);
        assertEquals(first.summary().ranks().stream().map(RankSummary::rank).toList(), again.summary().ranks().stream().map(RankSummary::rank).toList());
        for (int r = 0; r < 3; r++) {
            assertEquals(truth.rank(r).peakBytes(), again.row("rank" + r).peakLiveBytes(), "rank " + r);
        }
        assertTrue(fx(() -> window.ranksTab().isSelected()), "the Ranks view comes up");
        assertTrue(recentLabels().getFirst().startsWith("Job: step-40"), "reopened: first again, " + recentLabels());
        assertEquals(3, recentLabels().size(), "not listed twice: " + recentLabels());

        // the two-file entry reopens those two ranks alone
        fireRecent("Job of 2 files");
        Job two = waitForJob(Job.title(List.of(r0, r2), 2), 2);
        assertEquals(List.of("rank0", "rank2"), two.summary().ranks().stream().map(RankSummary::rank).toList());
        assertFalse(recentLabels().stream().anyMatch(l -> l.startsWith(r0.getFileName().toString())), "no rank's file listed as a trace of its own");
    }
}
