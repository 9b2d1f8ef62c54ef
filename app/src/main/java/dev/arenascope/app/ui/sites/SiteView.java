package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import javafx.animation.Animation;
import javafx.animation.PauseTransition;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.FXCollections;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeTableView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.Duration;

import dev.arenascope.app.ui.common.ShownAs;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteSource;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * The Site view: who holds the memory. For the question the user picks — live at the cursor, at the peak,
 * allocated in the selected range, leaks, temporaries — about one memory, a flame graph (icicle) above a
 * tree table, as a table of sites with their callers, a top-down or bottom-up call tree, or by category;
 * bytes, counts and shares; a search by function or file. Selecting a line or a box publishes its
 * allocations in {@link SessionModel#selectedSiteProperty()} (the timeline highlights them, the events
 * table lists them). With a baseline open, each line also shows the baseline's bytes and the change,
 * and the flame graph is coloured by it (growth red, shrink green).
 *
 * <p>Answers come from profiler-core's {@link SiteAnalysis} (the {@code arenascope sites} code) on the
 * session's {@link TaskRunner}, never on the FX thread; the view only asks while {@link #activeProperty()}
 * is set (its tab is showing) and catches up when it is set again. FX thread only.
 */
public final class SiteView extends BorderPane {
    private final SessionModel model;
    private final SiteAnswerBuilder answers;
    private final ComboBox<MemoryInfo> memory = new ComboBox<>();
    private final ComboBox<SiteRequest.Question> question = new ComboBox<>(FXCollections.observableArrayList(SiteRequest.Question.values()));
    private final ComboBox<SiteRequest.Shape> shape = new ComboBox<>(FXCollections.observableArrayList(SiteRequest.Shape.values()));
    private final TextField threshold = new TextField("1ms");
    private final CheckBox internal = new CheckBox("Internal frames");
    private final TextField search = new TextField();
    private final Label summary = new Label();
    private final Label source = new Label();
    private final Label hover = new Label();
    private final FlameGraph flame = new FlameGraph();
    private final SiteTreeTable table = new SiteTreeTable();
    private final BooleanProperty active = new SimpleBooleanProperty(this, "active", false);
    private final ReadOnlyObjectWrapper<SiteAnswer> answer = new ReadOnlyObjectWrapper<>(this, "answer");
    private final PauseTransition debounce = new PauseTransition(Duration.millis(60));
    private final PauseTransition liveThrottle = new PauseTransition(Duration.seconds(1));
    private final SiteViewModel state = new SiteViewModel();
    private boolean syncing;
    private SiteRow wanted; // the line to select again when a new answer arrives
    private boolean prebuild = true;
    private SiteSelection published; // the last selection this view published (others come from the timeline)
    private TraceView prebuilt;

    public SiteView(SessionModel model) {
        this.model = model;
        this.answers = new SiteAnswerBuilder(model.sites());
        createView();
        initListeners();
    }

    private void createView() {
        setId("site-view");
        memory.setId("site-memory");
        memory.setConverter(ShownAs.converter("", MemoryInfo::name));
        question.setId("site-question");
        question.setValue(SiteRequest.Question.PEAK);
        shape.setId("site-shape");
        shape.setValue(SiteRequest.Shape.SITES);
        threshold.setId("site-threshold");
        threshold.setPrefColumnCount(6);
        threshold.setTooltip(new Tooltip("Temporaries: allocations freed within this time (1ms, 250us, 2s)"));
        threshold.visibleProperty().bind(question.valueProperty().isEqualTo(SiteRequest.Question.TEMPORARIES));
        threshold.managedProperty().bind(threshold.visibleProperty());
        internal.setId("site-internal");
        internal.setTooltip(new Tooltip("Keep frames marked internal (PyTorch's C++ allocator and unwinder, JDK methods, Python's standard"
                + " library and installed packages): by default a site is named by the first frame of the program's own code"));
        search.setId("site-search");
        search.getStyleClass().add(Styles.SEARCH_FIELD);
        search.setPromptText("Search function or file");
        HBox.setHgrow(search, Priority.ALWAYS);
        summary.setId("site-summary");
        source.setId("site-source");
        source.getStyleClass().add(Styles.FIGURE_LABEL);
        hover.setId("site-hover");
        hover.getStyleClass().add(Styles.FIGURE_LABEL);
        hover.textProperty().bind(flame.hoverTextProperty());
        HBox bar = new HBox(6, memory, question, threshold, shape, internal, search);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(4, 6, 2, 6));
        VBox top = new VBox(2, bar, summary, source);
        top.setPadding(new Insets(0, 0, 4, 6));
        setTop(top);
        ScrollPane flameScroll = new ScrollPane(flame);
        flameScroll.setId("site-flame-scroll");
        flameScroll.setFitToWidth(true);
        flameScroll.setHbarPolicy(ScrollPane.ScrollBarPolicy.NEVER);
        flameScroll.viewportBoundsProperty().addListener((o, a, b) -> flame.setMinHeight(b.getHeight()));
        VBox flamePane = new VBox(flameScroll, hover);
        VBox.setVgrow(flameScroll, Priority.ALWAYS);
        SplitPane split = new SplitPane(flamePane, table.view());
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(0.42);
        setCenter(split);
    }

    private void initListeners() {
        debounce.setOnFinished(e -> ask());
        liveThrottle.setOnFinished(e -> request());
        model.traceProperty().addListener((o, a, b) -> {
            wanted = null;
            fillMemories(b, true);
            request();
        });
        model.revisionProperty().addListener((o, a, b) -> {
            // a live session's new events: at most one new answer a second, each on the analysis of the grown trace
            fillMemories(model.trace(), false);
            if (liveThrottle.getStatus() != Animation.Status.RUNNING) {
                liveThrottle.playFromStart();
            }
        });
        model.cursorProperty().addListener((o, a, b) -> {
            if (question.getValue() == SiteRequest.Question.CURSOR) {
                request();
            }
        });
        model.selectionProperty().addListener((o, a, b) -> {
            if (question.getValue() == SiteRequest.Question.RANGE || question.getValue() == SiteRequest.Question.TEMPORARIES) {
                request();
            }
        });
        model.digestProperty().addListener((o, a, b) -> prebuild());
        model.sites().revisionProperty().addListener((o, a, b) -> {
            // a shared analysis arrived: the one this view waits for, or a live session's fresher one
            MemoryInfo m = memory.getValue();
            SiteAnswer shown = answer.get();
            SiteAnalysis now = m == null ? null : model.sites().peek(m.id());
            if (state.sharedArrived(now != null && shown != null && shown.request().analysis() != null && shown.analysis() != now)) {
                request();
            }
        });
        model.baselineProperty().addListener((o, a, b) -> request());
        model.baselinePairingProperty().addListener((o, a, b) -> request());
        memory.valueProperty().addListener((o, a, b) -> {
            if (!syncing) {
                wanted = null;
                request();
            }
        });
        question.valueProperty().addListener((o, a, b) -> request());
        shape.valueProperty().addListener((o, a, b) -> request());
        internal.selectedProperty().addListener((o, a, b) -> request());
        threshold.textProperty().addListener((o, a, b) -> request());
        search.textProperty().addListener((o, a, b) -> {
            flame.search(b);
            SiteAnswer cur = answer.get();
            if (cur != null) {
                showTable(cur);
            }
        });
        active.addListener((o, a, b) -> {
            if (state.setActive(b)) {
                request();
            }
        });
        table.view().getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (syncing) {
                return;
            }
            SiteRow row = b == null ? null : b.getValue();
            wanted = row;
            syncFlame(row);
            publish(row);
        });
        flame.setOnPick(this::pickBox);
        model.selectedSiteProperty().addListener((o, a, b) -> {
            if (b != published) {
                follow(b);
            }
        });
    }

    /**
     * Another view (a stripe clicked on the timeline) selected {@code sel}: shows its site selected here
     * too, without publishing anything of its own; none when the site is not part of the shown answer.
     */
    private void follow(SiteSelection sel) {
        published = null;
        SiteAnswer a = answer.get();
        List<StackFrame> frames = sel == null || a == null ? null : SiteText.framesOf(sel, a, model.trace());
        TreeItem<SiteRow> item = null;
        if (frames != null) {
            item = switch (a.request().shape()) {
                case SITES -> table.find(r -> r.kind() == SiteRow.Kind.SITE && SiteText.sameLocations(r.siteFrames(), frames));
                case TOP_DOWN, BOTTOM_UP -> {
                    List<StackFrame> own = SiteText.ownFrames(a, frames);
                    if (own == null) {
                        yield null;
                    }
                    List<StackFrame> path = new ArrayList<>(own);
                    if (a.request().shape() == SiteRequest.Shape.TOP_DOWN) {
                        Collections.reverse(path);
                    }
                    yield path.isEmpty() ? null : table.findPath(path);
                }
                case CATEGORY -> null;
            };
        }
        syncing = true;
        if (item == null) {
            table.view().getSelectionModel().clearSelection();
            flame.select(-1);
            wanted = null;
        } else {
            table.view().getSelectionModel().select(item);
            table.view().scrollTo(Math.max(0, table.view().getRow(item) - 2));
            syncFlame(item.getValue());
            wanted = item.getValue();
        }
        syncing = false;
    }

    private void fillMemories(TraceView t, boolean reset) {
        List<MemoryInfo> ms = t == null ? List.of() : t.memories();
        if (!reset && ms.size() == memory.getItems().size()) {
            return;
        }
        syncing = true;
        MemoryInfo keep = memory.getValue();
        memory.getItems().setAll(ms);
        if (reset || keep == null || !ms.contains(keep)) {
            int d = t == null ? -1 : SiteAnswerBuilder.defaultMemory(t);
            memory.setValue(d < 0 ? null : ms.stream().filter(m -> m.id() == d).findFirst().orElse(null));
        } else {
            memory.setValue(keep);
        }
        syncing = false;
    }

    /**
     * Once a file's digest is done, has the default memory's site analysis built in the background (once
     * per trace, through the session's shared {@link dev.arenascope.app.ui.model.SiteAnalysisCache}, which the
     * timeline's stripes use too), so the first click on the view answers from it; left out when the
     * index would take more than a quarter of the free heap (about 40 bytes per event).
     */
    private void prebuild() {
        TraceView t = model.trace();
        MemoryInfo m = memory.getValue();
        if (!prebuild || t == null || m == null || t == prebuilt || model.digestProperty().get().events() != t.eventCount()) {
            return;
        }
        prebuilt = t;
        Runtime rt = Runtime.getRuntime();
        if (!SiteViewModel.worthPrebuilding(t.eventCount(), rt.maxMemory(), rt.totalMemory() - rt.freeMemory())) {
            return;
        }
        model.sites().get(m);
    }

    /**
     * Whether the view shows the answer to what was last asked of it: no request waits for its debounce,
     * for an answer being computed or for the shared analysis, and nothing asked while the view was
     * hidden waits for it to be shown. The selection it publishes is built through the session's tasks
     * ({@link dev.arenascope.app.ui.task.TaskRunner#settled()}). FX thread; tests wait on it.
     */
    public boolean settled() {
        return state.settled(debounce.getStatus() == Animation.Status.RUNNING);
    }

    /** Whether the view builds the site analysis ahead when a file is shown (the default); the bench turns it off to time a cold click. */
    public void setPrebuild(boolean on) {
        prebuild = on;
    }

    /** Whether the analysis for the shown memory is built (ahead of, or for, a question). */
    public boolean analysisReady() {
        TraceView t = model.trace();
        MemoryInfo m = memory.getValue();
        if (t == null || m == null) {
            return false;
        }
        return internal.isSelected() ? model.sites().ready(t, m.id(), true) : model.sites().peek(m.id()) != null;
    }

    /** Asks again soon (coalescing bursts of changes); only while the view is shown. */
    private void request() {
        if (state.changed()) {
            debounce.playFromStart();
        }
    }

    /**
     * Asks the current question now (off the FX thread); the newest request wins. While an answer is
     * being computed, a new request waits for it and then asks once (an analysis being built cannot be
     * stopped half-way, and requests must not pile up behind it).
     */
    public void ask() {
        debounce.stop();
        long my = state.begin();
        if (my < 0) {
            return; // asked again when the answer in flight lands
        }
        TraceView t = model.trace();
        MemoryInfo m = memory.getValue();
        if (t == null || m == null) {
            answer.set(null);
            flame.show(null);
            table.view().setRoot(new TreeItem<>());
            summary.setText(t == null ? "" : "This trace has no memories");
            source.setText("");
            return;
        }
        long shorter;
        try {
            shorter = SiteText.parseDuration(threshold.getText());
            threshold.getStyleClass().remove(Styles.ERROR_TEXT);
        } catch (IllegalArgumentException e) {
            threshold.getStyleClass().add(Styles.ERROR_TEXT);
            summary.setText(e.getMessage());
            return;
        }
        SiteAnalysis shared = null;
        if (!internal.isSelected()) { // the session's shared analysis (internal frames hidden), as the stripes use
            shared = model.sites().get(m);
            if (shared == null) {
                summary.setText("Indexing the allocations of " + m.name() + "…");
                state.waitForShared(); // asked again when it arrives
                return;
            }
        }
        TraceView base = model.baselineProperty().get();
        int baseMemory = base == null ? -1 : model.baselinePairingProperty().get().baselineOf(m.id());
        SiteRequest r = new SiteRequest(t, m.id(), question.getValue(), shape.getValue(), internal.isSelected(),
                model.cursorProperty().get(), model.selectionProperty().get(), shorter, base, baseMemory, shared);
        summary.setText("Answering…");
        state.submitted();
        model.tasks().submit(BackgroundTask.of("Sites: " + r.question(), p -> answers.answer(r))
                .onSuccess(a -> {
                    if (landed(my)) {
                        show(a);
                    }
                })
                .onCancelled(() -> landed(my))
                .onFailure(e -> {
                    if (landed(my)) {
                        answer.set(null);
                        flame.show(null);
                        table.view().setRoot(new TreeItem<>());
                        summary.setText(e instanceof SiteRequest.NotAskable || e instanceof IllegalArgumentException
                                ? e.getMessage() : "Could not answer: " + e);
                        source.setText("");
                    }
                }));
    }

    /**
     * The answer (or failure) of request {@code my} came back: asks again when requests arrived
     * meanwhile; returns whether to show it.
     */
    private boolean landed(long my) {
        SiteViewModel.Landing l = state.land(my);
        if (l == SiteViewModel.Landing.ASK_AGAIN) {
            ask();
        }
        return l == SiteViewModel.Landing.SHOW;
    }

    private void show(SiteAnswer a) {
        SiteBreakdown sb = a.sites();
        String s = SiteText.capitalise(sb.question()) + " — " + Bytes.format(sb.totalBytes()) + " ("
                + String.format(Locale.ROOT, "%,d", sb.totalBytes()) + " bytes) in " + String.format(Locale.ROOT, "%,d", sb.totalCount())
                + " allocations";
        if (a.comparing()) {
            s += "; baseline " + Bytes.format(a.baseline().totalBytes()) + " (" + model.baselineTitleProperty().get() + ")";
        } else if (a.request().baseline() != null) {
            s += "; the baseline has no memory paired with this one";
        }
        summary.setText(s);
        source.setText(SiteText.sourceLine(sb));
        SiteTree flameTree = a.tree() != null ? a.tree() : SiteText.categoryTree(sb);
        flame.show(FlameLayout.of(flameTree, a.comparing() ? new BaselineMatch(a.baseline(), a.baselineTree() != null ? a.baselineTree()
                : SiteText.categoryTree(a.baseline())) : null));
        flame.search(search.getText());
        answer.set(a);
        showTable(a);
    }

    private void showTable(SiteAnswer a) {
        syncing = true;
        table.show(a, search.getText());
        syncing = false;
        SiteRow want = wanted;
        TreeItem<SiteRow> again = want == null ? null : itemFor(want);
        if (again != null && published == null && model.selectedSiteProperty().get() != null) {
            // following another view's selection (a stripe's click): show it here again, publish nothing of ours
            follow(model.selectedSiteProperty().get());
        } else if (again != null) {
            table.view().getSelectionModel().select(again); // republishes with this answer's allocations
        } else if (want != null && want.kind() == SiteRow.Kind.NODE && a.request().shape() == SiteRequest.Shape.SITES) {
            syncFlame(want);
            publish(want);
        } else if (want != null) {
            wanted = null;
            published = null;
            model.selectedSiteProperty().set(null);
        } else if (model.selectedSiteProperty().get() != null && model.selectedSiteProperty().get() != published) {
            follow(model.selectedSiteProperty().get()); // a stripe's selection made before this answer came
        }
    }

    private TreeItem<SiteRow> itemFor(SiteRow want) {
        return switch (want.kind()) {
            case SITE, CALLER -> table.find(r -> r.kind() == SiteRow.Kind.SITE && r.siteFrames().equals(want.siteFrames())
                    && r.label().equals(want.kind() == SiteRow.Kind.SITE ? want.label() : r.label()));
            case CATEGORY -> table.find(r -> r.kind() == SiteRow.Kind.CATEGORY && r.label().equals(want.label()));
            case NODE -> table.findPath(want.path());
            case REMOVED -> null;
        };
    }

    // ---------------------------------------------------------------- selection

    /** The flame graph's box for a table line (the same node, the site's path, the category). */
    private void syncFlame(SiteRow row) {
        FlameLayout l = flame.layoutShown();
        if (l == null || row == null) {
            flame.select(-1);
            return;
        }
        List<StackFrame> path = switch (row.kind()) {
            case NODE -> row.path();
            case SITE, CALLER -> {
                if (row.siteFrames().isEmpty()) {
                    flame.select(l.unsited);
                    yield null;
                }
                SiteRequest.Shape sh = answer.get() == null ? SiteRequest.Shape.SITES : answer.get().request().shape();
                List<StackFrame> p = new ArrayList<>(row.siteFrames());
                if (sh != SiteRequest.Shape.BOTTOM_UP) {
                    Collections.reverse(p);
                }
                yield p;
            }
            case CATEGORY -> {
                int box = -1;
                for (int i = 1; i < l.size && box < 0; i++) {
                    if (l.node[i].frame().function().equals(row.label())) {
                        box = i;
                    }
                }
                flame.select(box);
                yield null;
            }
            case REMOVED -> List.of();
        };
        if (path != null) {
            flame.select(path.isEmpty() ? -1 : l.find(path));
        }
    }

    /** A click on box {@code i} of the flame graph: select the same line in the table, or publish the node. */
    private void pickBox(int i) {
        SiteAnswer a = answer.get();
        FlameLayout l = flame.layoutShown();
        if (a == null || l == null) {
            return;
        }
        SiteRequest.Shape sh = a.request().shape();
        TreeItem<SiteRow> item = null;
        if (i == l.unsited) {
            item = table.find(r -> r.kind() == SiteRow.Kind.SITE && r.siteFrames().isEmpty());
        } else if (sh == SiteRequest.Shape.CATEGORY) {
            String name = i == 0 ? null : l.node[i].frame().function();
            item = name == null ? null : table.find(r -> r.kind() == SiteRow.Kind.CATEGORY && r.label().equals(name));
        } else if (sh != SiteRequest.Shape.SITES) {
            item = table.findPath(l.path(i));
        }
        if (item != null) {
            table.view().getSelectionModel().select(item);
            table.view().scrollTo(Math.max(0, table.view().getRow(item) - 2));
            return;
        }
        // the flat table has no line for an inner node: publish the node itself
        SiteRow node = SiteRow.node(l.node[i], l.path(i), -1);
        syncing = true;
        table.view().getSelectionModel().clearSelection();
        syncing = false;
        wanted = node;
        publish(node);
    }

    /** Finds the allocations behind {@code row} (off the FX thread) and publishes them; null clears. */
    private void publish(SiteRow row) {
        long my = state.beginSelect();
        SiteAnswer a = answer.get();
        if (row == null || a == null || !row.selectable()) {
            published = null;
            model.selectedSiteProperty().set(null);
            return;
        }
        SiteAnalysis.RowMatcher match = row.matcher(a.tree()); // a flat table's answer has the top-down tree its flame graph draws
        if (match == null) {
            published = null;
            model.selectedSiteProperty().set(null);
            return;
        }
        String label = row.kind() == SiteRow.Kind.CALLER ? a.sites().rows().stream()
                .filter(r -> r.frames().equals(row.siteFrames())).map(SiteBreakdown.Row::label).findFirst().orElse(row.label()) : row.label();
        model.tasks().submit(BackgroundTask.of("Sites: allocations of " + label,
                        p -> a.analysis().members(a.question(), a.request().shape().by(), match))
                .onSuccess(ms -> {
                    if (state.selectCurrent(my) && answer.get() == a) {
                        published = new SiteSelection(a.request().memory(), label, a.sites().question(), ms);
                        model.selectedSiteProperty().set(published);
                    }
                }));
    }

    // ---------------------------------------------------------------- bits

    /** Set while the view is showing (its tab selected); it asks only then, and catches up when set. */
    public BooleanProperty activeProperty() {
        return active;
    }

    /** The answer shown, or null. */
    public ReadOnlyObjectProperty<SiteAnswer> answerProperty() {
        return answer.getReadOnlyProperty();
    }

    public BooleanProperty darkProperty() {
        return flame.darkProperty();
    }

    public TreeTableView<SiteRow> table() {
        return table.view();
    }

    FlameGraph flame() {
        return flame;
    }

    /** Boxes the flame graph draws (0 with no answer). */
    public int flameBoxes() {
        return flame.layoutShown() == null ? 0 : flame.layoutShown().size;
    }

    /** The flame graph's boxes whose function or file holds {@code text}. */
    public int flameMatches(String text) {
        return flame.matching(text).size();
    }

    /** The flame graph's selected box, -1 for none. */
    public int flameSelected() {
        return flame.selectedProperty().get();
    }

    /** The one-line description of flame box {@code i} (what hovering it shows). */
    public String flameDescribe(int i) {
        return flame.describe(i);
    }

    public ComboBox<SiteRequest.Question> questionChooser() {
        return question;
    }

    public ComboBox<SiteRequest.Shape> shapeChooser() {
        return shape;
    }

    public ComboBox<MemoryInfo> memoryChooser() {
        return memory;
    }

    public TextField searchField() {
        return search;
    }

    public TextField thresholdField() {
        return threshold;
    }

    public Label summary() {
        return summary;
    }
}
