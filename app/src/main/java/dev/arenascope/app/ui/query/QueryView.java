package dev.arenascope.app.ui.query;

import java.util.List;
import java.util.Locale;

import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.sql.QueryException;
import dev.arenascope.core.sql.QueryResult;
import dev.arenascope.core.sql.SqlExamples;
import dev.arenascope.core.sql.SqlSchema;

/**
 * SQL over the open trace: an editor with the shipped example questions ({@link SqlExamples}), the
 * schema beside it ({@link SqlSchema}), and the answer as a table. A result with time columns
 * ({@code _ns}) can select its time range on the timeline. Queries run off the FX thread, one at a time
 * ({@link QuerySession}); a refused query shows the engine's message under the editor.
 */
public final class QueryView extends BorderPane {
    private final SessionModel model;
    private final TaskRunner runner;
    private final QuerySession session = new QuerySession();
    private final TextArea editor = new TextArea();
    private final ComboBox<SqlExamples.Example> examples = new ComboBox<>();
    private final Button run = new Button("Run");
    private final Button select = new Button("Select on timeline");
    private final Label status = new Label("Ctrl+Enter runs the query");
    private final TableView<List<Object>> table = new TableView<>();
    private final ListView<String> schema = new ListView<>();
    private QueryResult last;

    public QueryView(SessionModel model, TaskRunner runner) {
        this.model = model;
        this.runner = runner;
        createView();
        initListeners();
    }

    private void createView() {
        setId("query-view");
        editor.setId("query-editor");
        editor.setPrefRowCount(8);
        editor.setStyle("-fx-font-family: monospace;");
        examples.setId("query-examples");
        examples.setPromptText("Example questions");
        examples.getItems().setAll(SqlExamples.all());
        examples.setConverter(new StringConverter<>() {
            @Override
            public String toString(SqlExamples.Example e) {
                return e == null ? "" : e.question();
            }

            @Override
            public SqlExamples.Example fromString(String s) {
                return null;
            }
        });
        run.setId("query-run");
        run.setDefaultButton(false);
        select.setId("query-select");
        select.setDisable(true);
        select.setTooltip(new Tooltip("Select the result's time range (its _ns columns) on the timeline"));
        status.setId("query-status");
        status.setWrapText(true);
        table.setId("query-result");
        table.setPlaceholder(new Label("Run a query over the open trace's tables (docs/guide/sql.md)"));
        schema.setId("query-schema");
        for (SqlSchema.Table t : SqlSchema.TABLES) {
            schema.getItems().add(t.name());
            for (SqlSchema.Column c : t.columns()) {
                schema.getItems().add("    " + c.name() + "  " + c.type().sql().toLowerCase(Locale.ROOT)
                        + (c.unit().isEmpty() || c.unit().equals("id") ? "" : "  (" + c.unit() + ")"));
            }
        }
        schema.getItems().add("macros: live_at(t), peak_of('memory')");
        HBox bar = new HBox(8, examples, run, select);
        HBox.setHgrow(examples, Priority.ALWAYS);
        examples.setMaxWidth(Double.MAX_VALUE);
        VBox top = new VBox(6, bar, editor, status);
        top.setPadding(new Insets(6));
        SplitPane right = new SplitPane(top, table);
        right.setOrientation(Orientation.VERTICAL);
        right.setDividerPositions(0.35);
        SplitPane main = new SplitPane(schema, right);
        main.setDividerPositions(0.22);
        setCenter(main);
    }

    private void initListeners() {
        examples.valueProperty().addListener((o, a, e) -> {
            if (e != null) {
                editor.setText(e.sql());
            }
        });
        run.setOnAction(e -> runQuery());
        editor.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ENTER && e.isShortcutDown()) {
                runQuery();
                e.consume();
            }
        });
        select.setOnAction(e -> selectOnTimeline());
        model.traceProperty().addListener((o, a, b) -> runner.submit(BackgroundTask.of("close the query engine", p -> {
            session.close();
            return null;
        })));
    }

    /** Runs the editor's query over the open trace. */
    public void runQuery() {
        String sql = editor.getText();
        var trace = model.trace();
        if (trace == null) {
            status.setText("Open a trace first");
            return;
        }
        String name = model.titleProperty().get();
        run.setDisable(true);
        status.setText("Running…");
        long t0 = System.nanoTime();
        runner.submit(BackgroundTask.of("query", p -> session.run(trace, name, sql, p)).onProgress((f, phase, title) -> {
            if (run.isDisabled()) { // still this query's
                status.setText(phase + "…");
            }
        }).onSuccess(r -> {
            run.setDisable(false);
            show(r);
            status.setText(r.rows().size() + (r.rows().size() == 1 ? " row" : " rows") + (r.truncated() ? " (the first "
                    + QuerySession.MAX_ROWS + ")" : "") + " in " + TimeRange.formatDuration(System.nanoTime() - t0));
        }).onFailure(err -> {
            run.setDisable(false);
            status.setText(err instanceof QueryException q ? q.getMessage() : String.valueOf(err.getMessage()));
        }));
    }

    private void show(QueryResult r) {
        last = r;
        table.getColumns().clear();
        for (int c = 0; c < r.columns().size(); c++) {
            int col = c;
            TableColumn<List<Object>, Object> tc = new TableColumn<>(r.columns().get(c));
            tc.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(cell.getValue().get(col)));
            table.getColumns().add(tc);
        }
        table.getItems().setAll(r.rows());
        select.setDisable(QuerySession.timeRange(r) == null);
    }

    private void selectOnTimeline() {
        long[] range = last == null ? null : QuerySession.timeRange(last);
        if (range != null) {
            TimeRange r = new TimeRange(range[0], Math.max(range[0] + 1, range[1]));
            model.selectionProperty().set(r);
        }
    }

    /** The result shown, for tests. */
    public QueryResult result() {
        return last;
    }

    /** The editor, for tests. */
    public TextArea editor() {
        return editor;
    }

    /** The status line's text, for tests. */
    public String statusText() {
        return status.getText();
    }

    /** Frees the engine (the window is closing). */
    public void dispose() {
        session.close();
    }
}
