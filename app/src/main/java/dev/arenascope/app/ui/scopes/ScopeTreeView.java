package dev.arenascope.app.ui.scopes;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.scene.control.Label;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeTableColumn;
import javafx.scene.control.TreeTableView;
import javafx.scene.layout.BorderPane;

import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.analysis.ScopeExecutions;
import dev.arenascope.core.analysis.ScopeModel;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.util.Progress;

/**
 * The recorded scope tree: one row per scope path (nested as recorded), grouped by memory, with calls,
 * allocations, forward and backward bytes, peak, time, the last parameters and the calibrated memory
 * model with its error. Selecting a row highlights that scope's executions on the timeline. The models
 * are fitted on a worker after each digest (exact fits in rational arithmetic, too slow for the FX thread
 * on a session of many scopes) and shown when done; until then their column says {@value #FITTING}.
 */
public final class ScopeTreeView extends BorderPane {
    private final SessionModel model;
    private final TreeTableView<ScopeAnalysis> tree = new TreeTableView<>();
    /** What the Model and Error columns say of a scope while its fit is being computed. */
    public static final String FITTING = "fitting…";
    /**
     * Each scope name's model for {@link #digest}, fitted off the FX thread (exact rational fits, BigInteger
     * arithmetic, cost with the samples) and applied here when all are done; a name without a model is absent.
     */
    private Map<String, ScopeModel> models = Map.of();
    private boolean fitted = true;
    private TaskRunner.Handle fitting;
    private TraceAggregate.Snapshot digest = TraceAggregate.Snapshot.EMPTY;
    private boolean syncing;

    public ScopeTreeView(SessionModel model) {
        this.model = model;
        createView();
        initListeners();
    }

    private void createView() {
        setId("scope-view");
        tree.setId("scope-tree");
        tree.setShowRoot(false);
        tree.setPlaceholder(new Label("No scopes recorded (arenas record them inside scope(...) blocks)"));
        tree.setColumnResizePolicy(TreeTableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        TreeTableColumn<ScopeAnalysis, String> name = column("Scope", 220, s -> group(s) ? s.memoryName() : s.name());
        tree.getColumns().setAll(List.of(name,
                column("Calls", 70, s -> group(s) ? "" : String.format("%,d", s.executions())),
                column("Allocations", 90, s -> group(s) ? "" : String.format("%,d", s.allocations())),
                column("Forward", 90, s -> group(s) ? "" : Bytes.format(s.forwardBytes())),
                column("Backward", 90, s -> group(s) ? "" : Bytes.format(s.backwardBytes())),
                column("Peak", 90, s -> group(s) ? "" : Bytes.format(s.peakUsedBytes())),
                column("Time", 90, s -> group(s) ? "" : TimeRange.formatDuration(s.totalNs())),
                column("Params", 140, s -> s.params().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(", "))),
                column("Model (bytes)", 200, s -> {
                    if (!group(s) && !fitted) {
                        return FITTING;
                    }
                    ScopeModel m = modelOf(s);
                    return m == null ? "" : m.formula();
                }),
                column("Error", 70, s -> {
                    if (!group(s) && !fitted) {
                        return "";
                    }
                    ScopeModel m = modelOf(s);
                    return m == null ? "" : m.exact() ? "exact" : String.format(Locale.ROOT, "%.2f%%", 100 * m.worstRelative());
                })));
        for (int i = 1; i < 7; i++) {
            tree.getColumns().get(i).getStyleClass().add(Styles.NUMERIC);
        }
        tree.setRoot(new TreeItem<>());
        setCenter(tree);
    }

    private static boolean group(ScopeAnalysis s) {
        return s.depth() < 0;
    }

    private ScopeModel modelOf(ScopeAnalysis s) {
        return group(s) ? null : models.get(s.name());
    }

    /**
     * Every scope name's model in {@code d} (one fit a name, as the report makes them), on the calling
     * thread; checks {@code progress} for a cancel between names. What the background fit runs.
     */
    static Map<String, ScopeModel> fitAll(TraceAggregate.Snapshot d, Progress progress) {
        Map<String, ScopeModel> out = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (ScopeAnalysis s : d.scopes()) {
            if (seen.add(s.name())) {
                progress.checkCancelled();
                ScopeModel m = d.model(s);
                if (m != null) {
                    out.put(s.name(), m);
                }
            }
        }
        return out;
    }

    /** Whether the models of the digest shown are fitted and applied (the Model column says {@link #FITTING} until then). */
    public boolean fitted() {
        return fitted;
    }

    /** Fits the models of {@code d} on a worker and applies them here (FX thread) if {@code d} is still the one shown. */
    private void fit(TraceAggregate.Snapshot d) {
        if (fitting != null) {
            fitting.cancel();
        }
        if (d.scopes().isEmpty()) {
            models = Map.of();
            fitted = true;
            fitting = null;
            return;
        }
        fitted = false;
        fitting = model.tasks().submit(BackgroundTask.of("fitting scope models", p -> fitAll(d, p))
                .onSuccess(m -> applyFit(d, m))
                .onFailure(e -> applyFit(d, Map.of()))); // no models rather than "fitting…" for ever
    }

    /** Shows {@code fitted} as the models of {@code d} if {@code d} is still the digest shown (FX thread). */
    private void applyFit(TraceAggregate.Snapshot d, Map<String, ScopeModel> fitted) {
        if (digest == d) {
            models = fitted;
            this.fitted = true;
            fitting = null;
            tree.refresh();
        }
    }

    /** The row that groups one memory's scopes (depth -1, no figures). */
    private static ScopeAnalysis groupRow(int memory, String name) {
        return new ScopeAnalysis(memory, name, "", -1, 0, 0, 0, 0, 0, 0, Map.of(), null, Double.NaN, 0, 0, 0, 0,
                ScopeExecutions.NONE);
    }

    private static TreeTableColumn<ScopeAnalysis, String> column(String title, double width, Function<ScopeAnalysis, String> f) {
        TreeTableColumn<ScopeAnalysis, String> c = new TreeTableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(cd -> new ReadOnlyStringWrapper(cd.getValue().getValue() == null ? "" : f.apply(cd.getValue().getValue())));
        return c;
    }

    private void initListeners() {
        model.digestProperty().addListener((o, a, b) -> show(b));
        tree.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (syncing) {
                return;
            }
            ScopeAnalysis s = b == null ? null : b.getValue();
            model.selectedScopeProperty().set(s == null || group(s) ? null : s);
        });
    }

    /**
     * Shows the scopes of {@code d} (FX thread): the tree at once, the models when their fit, started here on
     * a worker, is done.
     */
    public void show(TraceAggregate.Snapshot d) {
        rebuild(d);
        fit(d);
    }

    private void rebuild(TraceAggregate.Snapshot d) {
        TraceView t = model.trace();
        models = Map.of();
        digest = d;
        Set<String> expanded = new HashSet<>();
        collectExpanded(tree.getRoot(), expanded);
        ScopeAnalysis selected = model.selectedScopeProperty().get();
        TreeItem<ScopeAnalysis> root = new TreeItem<>();
        Map<String, TreeItem<ScopeAnalysis>> byKey = new HashMap<>();
        TreeItem<ScopeAnalysis> toSelect = null;
        for (ScopeAnalysis s : d.scopes()) {
            TreeItem<ScopeAnalysis> parent = byKey.get(s.memory() + ":" + parentPath(s.path()));
            if (parent == null) {
                String groupKey = s.memory() + ":";
                parent = byKey.get(groupKey);
                if (parent == null) {
                    MemoryInfo m = t != null && s.memory() >= 0 && s.memory() < t.memories().size() ? t.memories().get(s.memory()) : null;
                    parent = new TreeItem<>(groupRow(s.memory(), m == null ? "memory " + s.memory() : m.name()));
                    parent.setExpanded(true);
                    byKey.put(groupKey, parent);
                    root.getChildren().add(parent);
                }
            }
            TreeItem<ScopeAnalysis> item = new TreeItem<>(s);
            String key = s.memory() + ":" + s.path();
            item.setExpanded(expanded.isEmpty() ? s.depth() < 2 : expanded.contains(key));
            byKey.put(key, item);
            parent.getChildren().add(item);
            if (selected != null && selected.memory() == s.memory() && selected.path().equals(s.path())) {
                toSelect = item;
            }
        }
        syncing = true;
        tree.setRoot(root);
        if (toSelect != null) {
            tree.getSelectionModel().select(toSelect);
            model.selectedScopeProperty().set(toSelect.getValue());
        }
        syncing = false;
    }

    private static String parentPath(String path) {
        int i = path.lastIndexOf('/');
        return i < 0 ? "" : path.substring(0, i);
    }

    private static void collectExpanded(TreeItem<ScopeAnalysis> item, Set<String> out) {
        if (item == null) {
            return;
        }
        for (TreeItem<ScopeAnalysis> c : item.getChildren()) {
            if (c.isExpanded() && c.getValue() != null) {
                out.add(c.getValue().memory() + ":" + c.getValue().path());
            }
            collectExpanded(c, out);
        }
    }

    /** Selects the row of {@code path} on {@code memory}; returns whether it exists. */
    public boolean select(int memory, String path) {
        return selectIn(tree.getRoot(), memory, path);
    }

    private boolean selectIn(TreeItem<ScopeAnalysis> item, int memory, String path) {
        for (TreeItem<ScopeAnalysis> c : item.getChildren()) {
            ScopeAnalysis s = c.getValue();
            if (s != null && s.depth() >= 0 && s.memory() == memory && s.path().equals(path)) {
                for (TreeItem<ScopeAnalysis> p = c.getParent(); p != null; p = p.getParent()) {
                    p.setExpanded(true);
                }
                tree.getSelectionModel().select(c);
                tree.scrollTo(tree.getRow(c));
                return true;
            }
            if (selectIn(c, memory, path)) {
                return true;
            }
        }
        return false;
    }

    public TreeTableView<ScopeAnalysis> tree() {
        return tree;
    }
}
