package dev.arenascope.app.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.scene.control.Button;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.query.QueryView;
import dev.arenascope.core.sql.SqlExamples;
import dev.arenascope.testsupport.Fixtures;

/** The Query view over an opened PyTorch snapshot: an example question answered, a bad query's message, a time range selected. */
class QueryViewTest extends WindowTestBase {

    @Test
    void anExampleQuestionIsAnsweredAndItsTimesSelectARange() {
        openUntilLoaded(Fixtures.torch("cs336-a2-magma27.pickle"));
        // the Query tab shown (only the shown tab's view is in the window), its view looked up in this test's
        // window: a lookup of the robot's own searches every window showing
        fxRun(() -> window.tabs().getSelectionModel().select(window.tabs().getTabs().stream().filter(t -> t.getId().equals("tab-query"))
                .findFirst().orElseThrow()));
        QueryView view = (QueryView) robot.from(window.scene().getRoot()).lookup("#query-view").query();
        fxRun(() -> {
            window.model().selectionProperty().set(null);
            view.editor().setText(SqlExamples.all().stream().filter(e -> e.name().equals("peak-allocation")).findFirst().orElseThrow().sql());
            view.runQuery();
        });
        waitFor(120, "the peak allocation's row", () -> view.result() != null, view::statusText);
        assertEquals(1, fx(() -> view.result().rows().size()));
        assertTrue(fx(() -> view.result().columns().contains("alloc_ns")));
        fxRun(() -> ((Button) robot.from(window.scene().getRoot()).lookup("#query-select").query()).fire());
        long at = ((Number) fx(() -> view.result().rows().getFirst().get(view.result().columns().indexOf("alloc_ns")))).longValue();
        assertEquals(at, fx(() -> window.model().selectionProperty().get().fromNs()));
        fxRun(() -> {
            view.editor().setText("SELEC 1");
            view.runQuery();
        });
        waitFor(60, "the engine's message", () -> view.statusText().contains("syntax error"), view::statusText);
        assertFalse(fx(() -> view.statusText().contains("\n")));
    }
}
