package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.prefs.Preferences;

import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;
import javafx.util.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testfx.util.WaitForAsyncUtils;

import dev.arenascope.app.ui.live.LiveSession;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.testsupport.Fixtures;

/**
 * Item 15 of issue 28: the first seconds of the live demo were a white window (its first pulse styling
 * every view) and then an empty timeline. Started as the app starts ({@link MainWindow#showFirst}), the
 * window's first shown state is the session: the demo's lane drawn, the LIVE badge, the live status line.
 */
class FirstFrameTest extends WindowTestBase {

    /** What the window showed at the moment it became visible. */
    private record Shown(DrawList frame, String badgeOutOfSight, String badgeText, String status, String note, double canvasWidth,
                         double viewportWidth) {
    }

    @ParameterizedTest(name = "{0}x{1}")
    @CsvSource({"1920, 1080", "720, 480"})
    void theLiveDemoShowsItsSessionInItsFirstFrame(double asked, double askedHeight) throws Exception {
        // Monocle's headless screen is 1280x800 here: a window shown larger than it overflows the screen's
        // buffer, so the large case is the whole screen (1920x1080 on a screen that has it)
        javafx.geometry.Rectangle2D screen = fx(() -> javafx.stage.Screen.getPrimary().getBounds());
        double width = Math.min(asked, screen.getWidth());
        double height = Math.min(askedHeight, screen.getHeight());
        Preferences node = Preferences.userRoot().node("dev/arenascope/app-test/FirstFrameTest-demo");
        node.clear();
        AtomicReference<Shown> shown = new AtomicReference<>();
        AtomicReference<Stage> demoStage = new AtomicReference<>();
        AtomicReference<MainWindow> demo = new AtomicReference<>();
        try {
            fxRun(() -> {
                Stage s = new Stage();
                MainWindow w = new MainWindow(s, new WindowPrefs(node));
                s.setX(0);
                s.setY(0);
                s.setWidth(width);
                s.setHeight(height);
                s.addEventHandler(WindowEvent.WINDOW_SHOWING, e -> {
                    Label badge = (Label) s.getScene().lookup("#live-badge");
                    shown.set(new Shown(w.timeline().drawListProperty().get(), badgeOutOfSight(s),
                            badge == null ? "" : badge.getText(),
                            w.statusBar().getText(), w.timeline().emptyNoteText(),
                            w.timeline().lookup("#timeline-canvas").getLayoutBounds().getWidth(),
                            w.timeline().getWidth()));
                });
                demoStage.set(s);
                demo.set(w);
                // a wait no machine reaches: the window must show because the lane is drawn, not because time passed
                w.showFirst(List.of(), Duration.minutes(10));
                assertFalse(s.isShowing(), "the demo's window waits for its first memory");
            });
            waitFor(120, "the demo's window shown", () -> demoStage.get().isShowing(),
                    () -> "live " + demo.get().live().stateProperty().get() + ", frame " + demo.get().timeline().drawListProperty().get());
            Shown first = shown.get();
            assertNotNull(first.frame(), "a frame was drawn before the window showed");
            assertFalse(first.frame().lanes().isEmpty(), "the first frame has the demo's lane");
            assertEquals("render.arena", first.frame().lanes().getFirst().memory().name());
            // at every size, the least included: the badge stood at the toolbar's end and went into its overflow menu at 720 px
            assertNull(first.badgeOutOfSight(), "the LIVE badge shows from the first frame at " + width + " px");
            assertEquals("LIVE", first.badgeText());
            WaitForAsyncUtils.waitForFxEvents();
            assertNull(fx(() -> badgeOutOfSight(demoStage.get())), "the LIVE badge stays in sight at " + width + " px");
            assertTrue(first.status().startsWith("live: render on "), "the status line says the session is live: " + first.status());
            assertEquals("", first.note(), "with its lane drawn, no 'Starting…' note over it");
            // built at the width the window lays the timeline out at, not at a default 800 px
            assertTrue(Math.abs(first.canvasWidth() - first.frame().width()) < 1 && first.frame().width() > 0.8 * first.viewportWidth(),
                    "frame " + first.frame().width() + " px, canvas " + first.canvasWidth() + ", timeline " + first.viewportWidth());
            assertEquals(LiveSession.State.RUNNING, fx(() -> demo.get().live().stateProperty().get()));
            // closed, the window stays closed when its session then ends (its end once showed a disposed window
            // again, which a later test's lookup found)
            LiveSession session = fx(() -> demo.get().live());
            close(demo, demoStage);
            waitFor(120, "the demo's session ended", () -> !session.isActive(), () -> "live " + session.stateProperty().get());
            WaitForAsyncUtils.waitForFxEvents();
            assertFalse(fx(() -> demoStage.get().isShowing()), "a closed window is not shown again");
        } finally {
            close(demo, demoStage);
        }
    }

    @Test
    void aFileShowsTheWindowAtOnce() throws Exception {
        Preferences node = Preferences.userRoot().node("dev/arenascope/app-test/FirstFrameTest-file");
        node.clear();
        AtomicReference<Stage> fileStage = new AtomicReference<>();
        AtomicReference<MainWindow> w = new AtomicReference<>();
        try {
            boolean showing = fx(() -> {
                Stage s = new Stage();
                w.set(new MainWindow(s, new WindowPrefs(node)));
                fileStage.set(s);
                s.setWidth(1200);
                s.setHeight(760);
                w.get().showFirst(List.of(Fixtures.torch("cs336-a2-magma27.pickle")), Duration.minutes(10));
                return s.isShowing();
            });
            assertTrue(showing, "a file's window shows at once, its progress in the status bar");
            assertTrue(fx(() -> w.get().live() == null), "no live demo behind a file");
        } finally {
            close(w, fileStage);
        }
    }

    /**
     * Why the LIVE badge of {@code s}'s window is out of sight (hidden, not in the window's scene as in the toolbar's
     * overflow menu, outside the window or cut), null when it is whole in view.
     */
    private static String badgeOutOfSight(Stage s) {
        Node badge = s.getScene().lookup("#live-badge");
        if (badge == null) {
            return "not in the window's scene (the toolbar's overflow menu holds it)";
        }
        for (Node n = badge; n != null; n = n.getParent()) {
            if (!n.isVisible()) {
                return "hidden with " + n;
            }
        }
        Bounds b = badge.localToScene(badge.getLayoutBounds());
        double w = s.getScene().getRoot().getLayoutBounds().getWidth(); // laid out before it shows, at the stage's width
        if (b.getMinX() < -0.5 || b.getMaxX() > w + 0.5 || b.getMinY() < -0.5 || b.getWidth() + 0.5 < badge.prefWidth(-1)) {
            return "at " + b + " in a " + w + " px wide window whose content asks for at least "
                    + s.getScene().getRoot().minWidth(-1) + " px";
        }
        return null;
    }

    /** Disposes a test's window and closes its stage, whichever of them was made. */
    private static void close(AtomicReference<MainWindow> window, AtomicReference<Stage> stage) {
        fxRun(() -> {
            if (window.get() != null) {
                window.get().dispose();
            }
            if (stage.get() != null) {
                stage.get().close();
            }
        });
    }
}
