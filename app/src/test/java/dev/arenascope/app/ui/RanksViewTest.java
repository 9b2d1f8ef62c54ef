package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import javafx.scene.control.TableCell;
import javafx.scene.control.TableRow;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.app.ui.job.Job;
import dev.arenascope.app.ui.sites.SiteAnswer;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.torch.SyntheticJob;

/**
 * The Ranks view: a generated job (one snapshot per pipeline stage) opens as one session whose rank table
 * shows the generator's own figures, marks the worst rank, keeps a bad member as a row with its reason,
 * shows a clicked rank's lanes and compares two ranks site by site; a listened job of several processes
 * fills the same table as they arrive.
 */
class RanksViewTest extends WindowTestBase {
    @TempDir
    Path dir;

    private Job openJob(List<Path> paths) {
        fxRun(() -> window.openJob(paths));
        waitForSettled(120, "the job open with its worst rank shown", () -> window.ranks().jobProperty().get() != null
                && window.model().trace() != null && window.model().digestProperty().get().events() == window.model().trace().eventCount(),
                () -> window.statusBar().getText());
        return fx(() -> window.ranks().jobProperty().get());
    }

    /** The text a cell of the Ranks table shows for {@code rank} in column {@code title} (scrolled into view first). */
    private String cell(String rank, String title) {
        return cellPart(rank, title, false);
    }

    /** The cell's tooltip (what hovering it shows), or empty when it has none. */
    private String cellTip(String rank, String title) {
        return cellPart(rank, title, true);
    }

    private String cellPart(String rank, String title, boolean tip) {
        int row = fx(() -> {
            var items = window.ranks().table().getItems();
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i).rank().equals(rank)) {
                    window.ranks().table().scrollTo(i);
                    return i;
                }
            }
            throw new AssertionError("no row " + rank);
        });
        waitForSettled(10, "row " + rank + " laid out", () -> cells().stream().anyMatch(c -> c.getIndex() == row));
        return fx(() -> cells().stream().filter(c -> c.getIndex() == row && c.getTableColumn().getText().equals(title))
                .findFirst().map(c -> tip ? (c.getTooltip() == null ? "" : c.getTooltip().getText()) : c.getText() == null ? "" : c.getText())
                .orElseThrow(() -> new AssertionError("no cell " + title)));
    }

    private List<TableCell<?, ?>> cells() {
        List<TableCell<?, ?>> out = new ArrayList<>();
        for (var n : window.ranks().table().lookupAll(".table-cell")) {
            if (n instanceof TableCell<?, ?> c && !c.isEmpty() && c.getTableColumn() != null) {
                out.add(c);
            }
        }
        return out;
    }

    @Test
    void aGeneratedJobShowsTheGeneratorsFiguresItsWorstRankABadMemberAndComparesTwoRanks() throws Exception {
        SyntheticJob.Spec spec = new SyntheticJob.Spec(11, 4, 3, 5, 4, 3, 2, true);
        SyntheticJob.Truth truth = SyntheticJob.write(dir, spec);
        Files.writeString(dir.resolve("snapshot_rank7.pickle"), "not a pickle at all\n");
        Job job = openJob(List.of(dir));

        assertTrue(fx(() -> window.ranksTab().isSelected()), "the Ranks view comes up");
        assertEquals(5, fx(() -> window.ranks().table().getItems().size()), "four ranks and the bad member");
        for (int r = 0; r < spec.ranks(); r++) {
            SyntheticJob.RankTruth t = truth.rank(r);
            RankSummary row = job.row("rank" + r);
            assertEquals(t.peakBytes(), row.peakLiveBytes(), "rank " + r + " peak live");
            assertEquals(t.reservedPeak(), row.peakReservedBytes(), "rank " + r + " peak reserved");
            assertEquals("ProfilerStep#" + t.peakStep(), row.step(), "rank " + r + " step of the peak");
            assertEquals(t.outOfMemory(), row.outOfMemory(), "rank " + r + " out of memory");
            assertEquals(t.allocations() + t.initialBlocks(), row.allocations(), "rank " + r + " allocations");
            // what the table shows is that row
            assertEquals(Bytes.format(t.peakBytes()), cell("rank" + r, "Peak live"));
            assertEquals("ProfilerStep#" + t.peakStep(), cell("rank" + r, "Step"));
            assertEquals(String.valueOf(t.outOfMemory()), cell("rank" + r, "OOM"));
            assertEquals("ok", cell("rank" + r, "Status"));
        }
        String worst = "rank" + truth.worstRank();
        assertEquals(worst, job.summary().worst());
        assertTrue(cell(worst, "Role").contains("worst"), cell(worst, "Role"));
        assertTrue(cell("rank" + truth.medianRank(), "Role").contains("median"));
        assertTrue(fx(() -> window.ranks().figures().getText()).contains("worst " + worst + " " + Bytes.format(truth.rank(truth.worstRank()).peakBytes())),
                fx(() -> window.ranks().figures().getText()));
        assertTrue(cell(worst, "Top site at the peak").length() > 0);
        assertSame(job.store(worst), fx(() -> window.model().trace()), "the window shows the worst rank");
        assertTrue(fx(() -> window.model().titleProperty().get()).endsWith(" · " + worst));

        // the bad member is a row with its reason; the others opened
        assertEquals("failed", cell("rank7", "Status"));
        // in words what the file is and was expected to be, the reader's exact detail (file, byte, opcode) on hover
        assertEquals("not a PyTorch snapshot or ArenaScope trace: it is text (details on hover)", cell("rank7", "Reason"));
        assertEquals(dir.resolve("snapshot_rank7.pickle") + ": not a PyTorch snapshot or ArenaScope trace: it is text;"
                + " the reader stopped at byte 0: unknown opcode 0x6e", cellTip("rank7", "Reason"));
        assertNull(job.store("rank7"));

        // a click on a rank shows its lanes
        TableRow<?> rank1 = fx(() -> window.ranks().table().lookupAll(".table-row-cell").stream().map(n -> (TableRow<?>) n)
                .filter(r -> r.getItem() instanceof RankSummary s && s.rank().equals("rank1")).findFirst().orElseThrow());
        robot.clickOn(rank1);
        waitForSettled(60, "rank1 shown", () -> window.model().trace() == job.store("rank1") && window.timeline().drawListProperty().get() != null
                && window.timeline().drawListProperty().get().lanes().size() > 0);
        assertTrue(fx(() -> window.model().titleProperty().get()).endsWith(" · rank1"));

        // a second rank added to the selection (what a Ctrl-click does; the headless robot's modifier does not
        // reach the table's behaviour): the two compare in the Sites view, the higher shown, the other its baseline
        fxRun(() -> {
            var items = window.ranks().table().getItems();
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i).rank().equals("rank0")) {
                    window.ranks().table().getSelectionModel().select(i);
                }
            }
        });
        waitForSettled(20, "two ranks selected", () -> !window.ranks().compareButton().isDisabled());
        robot.clickOn(fx(() -> window.ranks().compareButton()));
        waitForSettled(120, "the comparison answered", () -> window.sitesTab().isSelected() && window.sites().answerProperty().get() != null
                && window.sites().answerProperty().get().comparing(), () -> window.sites().summary().getText());
        assertSame(job.store("rank0"), fx(() -> window.model().trace()), "the higher rank is shown");
        assertSame(job.store("rank1"), fx(() -> window.model().baselineProperty().get()), "the other is its baseline");
        SiteAnswer a = fx(() -> window.sites().answerProperty().get());
        assertEquals(truth.rank(0).peakBytes(), a.sites().totalBytes(), "rank0 at its own peak");
        assertEquals(truth.rank(1).peakBytes(), a.baseline().totalBytes(), "rank1 at its own peak");
        SiteDiff.Entry top = a.diff().entries().stream().max((x, y) -> Long.compare(Math.abs(x.deltaBytes()), Math.abs(y.deltaBytes()))).orElseThrow();
        assertEquals("embedding_lookup", top.frames().getFirst().function(), "rank0's own site tells it apart: " + top.label());
        assertEquals(2, fx(() -> window.ranks().table().getSelectionModel().getSelectedItems().size()), "both ranks stay selected");

        // back on the Ranks tab, worst against median in one click
        fxRun(() -> window.tabs().getSelectionModel().select(window.ranksTab()));
        waitForSettled(10, "the Ranks tab shown", () -> window.ranks().worstVsMedianButton().isVisible()
                && window.ranks().worstVsMedianButton().getScene() != null && window.ranksTab().isSelected());
        robot.clickOn(fx(() -> window.ranks().worstVsMedianButton()));
        waitForSettled(120, "worst against median", () -> window.model().baselineProperty().get() == job.store("rank" + truth.medianRank())
                && window.sites().answerProperty().get() != null && window.sites().answerProperty().get().comparing()
                && window.sites().answerProperty().get().request().baseline() == job.store("rank" + truth.medianRank()));
        assertSame(job.store(worst), fx(() -> window.model().trace()));

        // sorting by peak live, descending, puts the worst rank first and the bad member last
        fxRun(() -> {
            var col = window.ranks().table().getColumns().stream().filter(c -> c.getText().equals("Peak live")).findFirst().orElseThrow();
            col.setSortType(javafx.scene.control.TableColumn.SortType.DESCENDING);
            window.ranks().table().getSortOrder().setAll(List.of(col));
        });
        assertEquals(worst, fx(() -> window.ranks().table().getItems().getFirst().rank()));
        assertEquals("rank7", fx(() -> window.ranks().table().getItems().getLast().rank()));

        // opening one trace afterwards leaves the job
        Path single = dir.resolve(SyntheticJob.fileName(1));
        openUntilLoaded(single);
        waitForSettled(20, "the job gone from the Ranks view", () -> window.ranks().jobProperty().get() == null
                && window.ranks().table().getItems().isEmpty());
    }

    @Test
    void aListenedJobFillsTheRanksViewAsProcessesArrive() throws Exception {
        int port = listenOnAnyPort();

        Map<String, Long> sent = new ConcurrentHashMap<>();
        sent.put("rank0", streamParticles(port, "train rank0", 40));
        waitFor(60, "the first process a rank of the Ranks view", () -> window.ranks().jobProperty().get() != null
                && window.ranks().jobProperty().get().live() && window.ranks().table().getItems().size() == 1
                && window.ranks().table().getItems().getFirst().rank().equals("rank0")
                && window.ranks().table().getItems().getFirst().events() == sent.get("rank0"),
                () -> String.valueOf(window.ranks().table().getItems()));

        // three more Java senders and the Python client stream at once
        Process python = pythonClient(port, "train rank4");
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> senders = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int k = 1; k <= 3; k++) {
            int rank = k;
            Thread t = Thread.ofPlatform().name("sender-" + k).start(() -> {
                try {
                    go.await();
                    sent.put("rank" + rank, streamParticles(port, "train rank" + rank, 30 + 20 * rank));
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            senders.add(t);
        }
        go.countDown();
        for (Thread t : senders) {
            t.join();
        }
        assertTrue(failures.isEmpty(), String.valueOf(failures));
        String pythonOut = new String(python.getInputStream().readAllBytes());
        assertEquals(0, python.waitFor(), "the Python client: " + pythonOut);
        waitFor(60, "the Python client's connection closed", () -> window.listenView().table().getItems().stream()
                .anyMatch(c -> c.state() == ConnectionStats.State.CLOSED && ListenViewNames.session(c).equals("train rank4")));
        // what arrived from it (its goodbye says everything it sent did)
        sent.put("rank4", fx(() -> window.listenView().table().getItems().stream()
                .filter(c -> ListenViewNames.session(c).equals("train rank4")).findFirst().orElseThrow().events()));
        waitFor(60, "every process a rank with every event it sent", () -> {
            Job j = window.ranks().jobProperty().get();
            if (j == null || j.summary().ranks().size() != 5) {
                return false;
            }
            for (var e : sent.entrySet()) {
                RankSummary r = j.row(e.getKey());
                if (r == null || r.events() != e.getValue()) {
                    return false;
                }
            }
            return window.ranks().table().getItems().size() == 5;
        }, () -> String.valueOf(window.ranks().jobProperty().get() == null ? null : window.ranks().jobProperty().get().summary().ranks()));
        waitFor(30, "every connection closed", () -> window.listenView().table().getItems().stream().filter(c -> c.state() == ConnectionStats.State.CLOSED).count() == 5);
        waitForSettled(60, "the table settled on the ended processes", () -> window.ranks().jobProperty().get().summary().ranks().stream()
                .allMatch(r -> r.events() == sent.get(r.rank())));
        Job j = fx(() -> window.ranks().jobProperty().get());
        assertTrue(fx(() -> window.ranks().liveUpdates()) >= 2, "refreshed as processes arrived");
        for (RankSummary r : j.summary().ranks()) {
            TraceView store = j.store(r.rank());
            assertNotNull(store, r.rank());
            long peak = store.memories().stream().mapToLong(m -> ((dev.arenascope.core.trace.store.EventStore) store).peakUsed(m.id())).max().orElseThrow();
            assertEquals(peak, r.peakLiveBytes(), r.rank() + ": the peak of its largest memory");
        }
        assertEquals(List.of("rank0", "rank1", "rank2", "rank3", "rank4"), j.summary().ranks().stream().map(RankSummary::rank).toList());
        // the Ranks tab not shown (the window shows the Events tab as it listens): its table is out of the scene, not
        // laid out with the hidden tab, and holds the job's rows all the same; shown, the table is back with them
        fxRun(() -> window.tabs().getSelectionModel().select(0));
        assertFalse(fx(() -> window.ranksTab().isSelected()));
        assertNull(fx(() -> window.ranks().table().getScene()), "a hidden Ranks view's table is out of the scene");
        assertEquals(j.summary().ranks().stream().map(RankSummary::rank).toList(),
                fx(() -> window.ranks().table().getItems().stream().map(RankSummary::rank).toList()), "its rows current while hidden");
        fxRun(() -> window.tabs().getSelectionModel().select(window.ranksTab()));
        waitForSettled(10, "the Ranks table back in the window", () -> window.ranks().table().getScene() == window.stage().getScene()
                && !window.ranks().table().lookupAll(".table-row-cell").isEmpty());
        // a click on a listened rank shows that process
        fxRun(() -> window.ranks().table().getSelectionModel().clearAndSelect(2));
        String picked = fx(() -> window.ranks().table().getItems().get(2).rank());
        waitForSettled(30, picked + " shown", () -> window.model().trace() == j.store(picked));
    }

    @Test
    void aConnectionThatHasNotSaidHelloIsNoRankAndARefreshShowsNoEmptyJob() throws Exception {
        int port = listenOnAnyPort();
        try (java.net.Socket quiet = new java.net.Socket("127.0.0.1", port)) {
            // accepted, its hello not sent: the receiver lists it in its handshake
            waitFor(30, "the quiet connection listed", () -> fx(() -> window.listenView().connections().stream()
                    .anyMatch(c -> c.stats().state() == ConnectionStats.State.HANDSHAKE)));
            boolean refreshed = fx(() -> {
                boolean handshaking = window.listenView().connections().stream()
                        .allMatch(c -> c.stats().state() == ConnectionStats.State.HANDSHAKE && c.stats().peer() == null);
                window.ranks().refreshLive(); // what the 500 ms ticker runs
                return handshaking;
            });
            assertTrue(refreshed, "the refresh ran while the only connection was in its handshake");
            waitForSettled(30, "the refresh done", () -> window.ranks().settled());
            assertNull(fx(() -> window.ranks().jobProperty().get()), "no job of 0 ranks");
            assertTrue(fx(() -> window.ranks().table().getItems().isEmpty()));
            assertEquals(0L, fx(() -> window.ranks().liveUpdates()), "nothing applied");
        }
    }

    /** The Python client running the render workload's twin on an algan-style arena, streaming to {@code port}. */
    private static Process pythonClient(int port, String name) throws Exception {
        Path py = Path.of("..", "python").toAbsolutePath().normalize();
        if (!Files.isDirectory(py)) {
            py = Path.of("python").toAbsolutePath();
        }
        assertTrue(Files.isDirectory(py.resolve("arenascope")), "the Python client at " + py);
        String exe = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        ProcessBuilder pb = new ProcessBuilder(exe, "-m", "arenascope", "run", "--live", "127.0.0.1:" + port, "--name", name,
                py.resolve("tests/render_equivalent.py").toString(), "64", "48", "40", "2", "3", "2");
        pb.environment().put("PYTHONPATH", String.join(java.io.File.pathSeparator, py.toString(), py.resolve("tests").toString(),
                py.resolve("tests/standin_libs").toString()));
        pb.redirectErrorStream(true);
        return pb.start();
    }

    /** The session name a connection's hello gave. */
    private static final class ListenViewNames {
        static String session(ConnectionStats c) {
            return c.peer() == null || c.peer().session() == null ? "" : c.peer().session().name();
        }
    }
}
