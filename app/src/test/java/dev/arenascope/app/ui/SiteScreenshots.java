package dev.arenascope.app.ui;

import java.nio.file.Path;

import javafx.scene.control.SplitPane;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.sites.SiteRequest;
import dev.arenascope.testsupport.Fixtures;

/**
 * A tool, not a test (like {@link Screenshots}, and run by {@code docs/screenshots/make.sh} beside it):
 * renders the Site view's flame graph and tree table on the magma27 PyTorch snapshot at its peak, in the
 * light and the dark theme, and its compare mode against the bcrafton snapshot.
 */
class SiteScreenshots extends ScreenshotTool {

    private void answered(SiteRequest.Question q, SiteRequest.Shape s) {
        fxRun(() -> {
            window.sites().questionChooser().setValue(q);
            window.sites().shapeChooser().setValue(s);
        });
        waitFor(60, "the answer", () -> window.sites().answerProperty().get() != null
                && window.sites().answerProperty().get().request().question() == q
                && window.sites().answerProperty().get().request().shape() == s
                && window.sites().answerProperty().get().request().trace() == window.model().trace()
                && window.sites().answerProperty().get().comparing() == (window.model().baselineProperty().get() != null));
    }

    @Test
    void siteView() throws Exception {
        Path dir = start(1280, 860);
        openAndWait(Fixtures.torch("cs336-a2-magma27.pickle"));
        fxRun(() -> {
            window.tabs().getSelectionModel().select(window.sitesTab());
            // the timeline short, the site view tall: its flame graph is the subject here
            ((SplitPane) window.scene().lookup(".split-pane")).setDividerPositions(0.3);
        });
        answered(SiteRequest.Question.PEAK, SiteRequest.Shape.TOP_DOWN);
        fxRun(() -> {
            var t = window.sites().table();
            var first = t.getRoot().getChildren().getFirst();
            first.setExpanded(true);
            var deeper = first;
            for (int d = 0; d < 6 && !deeper.getChildren().isEmpty(); d++) {
                deeper = deeper.getChildren().getFirst();
                deeper.setExpanded(true);
            }
            t.getSelectionModel().select(deeper);
        });
        waitFor(20, "the selection", () -> window.model().selectedSiteProperty().get() != null);
        shoot(dir, "sites-flame.png");
        fxRun(() -> window.applyTheme(true));
        shoot(dir, "sites-flame-dark.png");
        fxRun(() -> window.applyTheme(false));

        fxRun(() -> window.compareWith(Fixtures.torch("cs336-a2-bcrafton.pickle")));
        waitFor(60, "the baseline", () -> window.model().baselineProperty().get() != null);
        answered(SiteRequest.Question.PEAK, SiteRequest.Shape.SITES);
        shoot(dir, "sites-compare.png");
    }
}
