package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.concurrent.TimeUnit;

import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.stage.Stage;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.util.WaitForAsyncUtils;

import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.task.UiExecutor;

/**
 * The timeline's canvas is drawn once a frame: the scroll pane around it does not cache its viewport as an
 * image (JavaFX's skin does by default, and the canvas, redrawn whole each frame, was drawn into the cache and
 * the cache onto the window), neither when made nor once styled and shown.
 */
class TimelineViewportTest {
    @BeforeAll
    static void toolkit() throws Exception {
        org.testfx.api.FxToolkit.registerPrimaryStage();
    }

    @Test
    void theCanvasViewportIsNotCached() throws Exception {
        boolean[] cached = WaitForAsyncUtils.asyncFx(() -> {
            TaskRunner tasks = new TaskRunner(UiExecutor.FX, 1);
            TimelineView view = new TimelineView(new SessionModel(tasks), tasks);
            Node viewport = view.scrollPane().lookup(".viewport");
            assertNotNull(viewport, "the scroll pane's viewport");
            boolean made = viewport.isCache();
            Stage stage = new Stage();
            stage.setScene(new Scene(view, 640, 400));
            stage.show();
            view.applyCss();
            view.layout();
            boolean shown = view.scrollPane().lookup(".viewport").isCache();
            stage.hide();
            tasks.shutdown();
            return new boolean[] {made, shown};
        }).get(30, TimeUnit.SECONDS);
        assertFalse(cached[0], "cached as made");
        assertFalse(cached[1], "cached once styled and shown");
    }
}
