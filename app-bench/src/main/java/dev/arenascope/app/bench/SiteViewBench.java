package dev.arenascope.app.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javafx.beans.value.ChangeListener;

import dev.arenascope.app.ui.FxToolkit;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.sites.SiteAnswer;
import dev.arenascope.app.ui.sites.SiteRequest;
import dev.arenascope.app.ui.sites.SiteView;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.core.trace.file.LoadedTrace;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;

/**
 * {@code ui} (the Site view): on the PyTorch snapshot the torch bench generates ({@link SyntheticSnapshot},
 * seed {@value TorchBench#SEED}, {@value TorchBench#ALLOCATIONS} allocations; {@value TorchBench#QUICK_ALLOCATIONS}
 * with {@code --quick}), imported once in this process, the time from a click to the answer shown in the
 * window's {@link SiteView} (headless through Monocle when there is no display), medians of rounds:
 * <ul>
 *   <li>{@code ui.siteview_peak_ms}: a click on the Sites tab of an opened session (its digest done, and
 *       with it the site analysis the view builds ahead), whose default question is "at the peak": the
 *       question, the tree, the flame graph's layout and the table, until the answer is on screen
 *       (target ≤ 500);</li>
 *   <li>{@code ui.siteview_peak_cold_ms}: the same click on a view that did not build ahead: the one
 *       replay of the trace into the site analysis included (what the first question about another
 *       memory costs);</li>
 *   <li>{@code ui.siteview_peak_warm_ms}: choosing "at the peak" again after another question (the
 *       analysis kept): the question, tree, layout and table;</li>
 *   <li>{@code ui.siteview_select_ms}: a click on the top site until its allocations are published for
 *       the timeline and the events table.</li>
 * </ul>
 * The click's 60 ms coalescing of the view's requests is included, as a user waits for it. The answer's
 * total must equal the generator's peak, or the bench fails.
 */
final class SiteViewBench implements BenchSuite {

    @Override
    public String group() {
        return "ui";
    }

    @Override
    public Map<String, Double> run(boolean quick) throws Exception {
        int allocations = quick ? TorchBench.QUICK_ALLOCATIONS : TorchBench.ALLOCATIONS;
        BenchFixtures.Generated g = BenchFixtures.generatedSnapshot(quick);
        SyntheticSnapshot.Summary sum = g.summary();
        LoadedTrace t = TraceFormats.load(g.file());
        FxToolkit.start();
        int rounds = quick ? 2 : 5;
        double[] ready = new double[rounds];
        double[] cold = new double[rounds];
        double[] warm = new double[rounds];
        double[] select = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            TaskRunner tasks = new TaskRunner(UiExecutor.FX, 2);
            try {
                SessionModel model = FxToolkit.call(() -> new SessionModel(tasks));
                SiteView view = FxToolkit.call(() -> new SiteView(model));
                // a second session of the same trace whose view does not build ahead: its click pays for the index
                SessionModel coldModel = FxToolkit.call(() -> new SessionModel(tasks));
                SiteView coldView = FxToolkit.call(() -> {
                    SiteView v = new SiteView(coldModel);
                    v.setPrebuild(false);
                    return v;
                });
                FxToolkit.call(() -> {
                    model.show(t.store(), "bench", "cuda:0");
                    return null;
                });
                waitUntil(() -> model.digestProperty().get().events() == t.store().eventCount(), "the session's digest");
                waitUntil(view::analysisReady, "the site analysis built ahead");
                ready[i] = answerMs(view, () -> view.activeProperty().set(true), SiteRequest.Question.PEAK);
                FxToolkit.call(() -> {
                    coldModel.show(t.store(), "bench", "cuda:0");
                    return null;
                });
                waitUntil(() -> coldModel.digestProperty().get().events() == t.store().eventCount(), "the second session's digest");
                cold[i] = answerMs(coldView, () -> coldView.activeProperty().set(true), SiteRequest.Question.PEAK);
                SiteAnswer a = FxToolkit.call(() -> coldView.answerProperty().get());
                if (a.sites().totalBytes() != sum.peakDefault()) {
                    throw new IllegalStateException("bench: the site view's peak is " + a.sites().totalBytes() + " bytes, the generator's "
                            + sum.peakDefault());
                }
                answerMs(view, () -> view.questionChooser().setValue(SiteRequest.Question.LEAKS), SiteRequest.Question.LEAKS);
                warm[i] = answerMs(view, () -> view.questionChooser().setValue(SiteRequest.Question.PEAK), SiteRequest.Question.PEAK);
                select[i] = selectMs(view, model);
            } finally {
                tasks.shutdown();
            }
        }
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("ui.siteview_peak_ms", Medians.median(ready));
        f.put("ui.siteview_peak_cold_ms", Medians.median(cold));
        f.put("ui.siteview_peak_warm_ms", Medians.median(warm));
        f.put("ui.siteview_select_ms", Medians.median(select));
        f.put("ui.siteview_allocations", (double) allocations);
        return f;
    }

    /** Milliseconds from {@code click} (run on the FX thread) until the view shows an answer to {@code q}. */
    private static double answerMs(SiteView view, Runnable click, SiteRequest.Question q) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        ChangeListener<SiteAnswer> l = (o, a, b) -> {
            if (b != null && b.request().question() == q) {
                done.countDown();
            }
        };
        long[] t0 = new long[1];
        FxToolkit.call(() -> {
            view.answerProperty().addListener(l);
            t0[0] = System.nanoTime();
            click.run();
            return null;
        });
        if (!done.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("bench: the site view did not answer " + q + " within 120 s");
        }
        long t1 = System.nanoTime();
        FxToolkit.call(() -> {
            view.answerProperty().removeListener(l);
            return null;
        });
        return (t1 - t0[0]) / 1e6;
    }

    /** Milliseconds from selecting the table's first line until the selection is published. */
    private static double selectMs(SiteView view, SessionModel model) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        ChangeListener<Object> l = (o, a, b) -> {
            if (b != null) {
                done.countDown();
            }
        };
        long[] t0 = new long[1];
        FxToolkit.call(() -> {
            model.selectedSiteProperty().set(null);
            view.table().getSelectionModel().clearSelection();
            model.selectedSiteProperty().addListener(l);
            t0[0] = System.nanoTime();
            view.table().getSelectionModel().select(0);
            return null;
        });
        if (!done.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("bench: the top site's selection was not published within 120 s");
        }
        long t1 = System.nanoTime();
        FxToolkit.call(() -> {
            model.selectedSiteProperty().removeListener(l);
            return null;
        });
        return (t1 - t0[0]) / 1e6;
    }

    private static void waitUntil(Callable<Boolean> c, String what) throws Exception {
        long end = System.nanoTime() + 300_000_000_000L;
        while (!FxToolkit.call(c)) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("bench: " + what + " did not finish within 300 s");
            }
            Thread.sleep(20);
        }
    }
}
