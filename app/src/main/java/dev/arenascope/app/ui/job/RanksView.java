package dev.arenascope.app.ui.job;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.beans.InvalidationListener;
import javafx.beans.WeakInvalidationListener;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.Duration;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.io.TraceFiles;
import dev.arenascope.app.ui.live.ListenView;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.app.ui.timeline.RankLanes;
import dev.arenascope.core.analysis.JobSummary;
import dev.arenascope.core.analysis.RankSummary;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Durations;
import dev.arenascope.core.trace.TraceView;

/**
 * The Ranks view: a job's rank table, one row per rank (each from that rank's own trace): peak live and
 * reserved bytes, when and in which step the peak fell, out-of-memory events, allocations, the top site at
 * the peak, and a sparkline of live bytes over the rank's run, every rank on one byte axis. A rank that
 * could not be read is a row with its reason. Above the table the job's figures: worst and median rank,
 * imbalance, outliers. Sortable by any column.
 *
 * <p>A click on a rank shows that rank's trace in the window (its lanes in the timeline, every view on it);
 * two selected ranks compare: the one that peaks higher is shown and the other is its baseline, and the
 * Sites view answers "at the peak" for both, site by site ("why does rank 0 hold 9 GB more"). A listened
 * job ({@link #follow(ListenView)}) fills the table as processes connect and refreshes it every
 * {@value #LIVE_REFRESH_MS} ms while they stream. FX thread only.
 */
public final class RanksView extends BorderPane {
    /** How often a listened job's table is brought up to date, ms. */
    public static final long LIVE_REFRESH_MS = 500;

    private final SessionModel model;
    private final ReadOnlyObjectWrapper<Job> job = new ReadOnlyObjectWrapper<>(this, "job");
    private final TableView<RankSummary> table = new TableView<>();
    private final Label figures = new Label();
    private final Label notes = new Label();
    private final Button compare = new Button("Compare selected");
    private final Button worstVsMedian = new Button("Worst vs median");
    private final Button allRanksButton = new Button("All ranks in the timeline");
    /** Whether the window's timeline draws every rank of the job at once ({@link RankLanes}) instead of the shown rank. */
    private final BooleanProperty allRanks = new SimpleBooleanProperty(this, "allRanks", false);
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    /** Bumped when what cells draw from the job rather than their row changes (axis, roles, theme): they redraw. */
    private final LongProperty looks = new SimpleLongProperty(this, "looks");
    private final SimpleObjectProperty<Runnable> showSites = new SimpleObjectProperty<>(this, "showSites", () -> { });
    private final Timeline liveTicker = new Timeline(new KeyFrame(Duration.millis(LIVE_REFRESH_MS), e -> refreshLive()));
    private ListenView listen;
    private final LiveJob liveJob = new LiveJob();
    /**
     * The listened job's refreshes run on a worker of their own: on the window's shared workers they queued
     * behind the shown process's analyses (digest, site indexes, event lists), which a stream of 16 processes
     * keeps busy, and the table went seconds without a refresh.
     */
    private final TaskRunner liveWorker = new TaskRunner(UiExecutor.FX, 1);
    private boolean liveInFlight;
    /** A tick came while a refresh was being computed: the next one starts as that one is applied, not a tick later. */
    private boolean liveMissed;
    private long liveUpdates;
    private static final int MAX_TIMINGS = 1024;
    private final ArrayDeque<LiveTiming> liveTimings = new ArrayDeque<>();
    private String liveKey = "";
    private boolean syncing;

    public RanksView(SessionModel model) {
        this.model = model;
        liveTicker.setCycleCount(Animation.INDEFINITE);
        createView();
        initListeners();
    }

    private void createView() {
        setId("ranks-view");
        table.setId("ranks-table");
        table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        table.setPlaceholder(new Label("No job open. Open several traces or a folder (File ▸ Open…, File ▸ Open Folder…, or drop them"
                + " here), or listen for processes: each file or process is a rank."));
        table.getColumns().setAll(List.of(
                column("Rank", 90, RankSummary::rank, rankOrder()),
                text("Status", 70, RanksView::status),
                roleColumn(),
                bytes("Peak live", RankSummary::peakLiveBytes),
                bytes("Peak reserved", RankSummary::peakReservedBytes),
                column("Peak at", 80, r -> r.peakAtNs() < 0 ? "" : Durations.format(r.peakAtNs()), Comparator.comparingLong(RankSummary::peakAtNs),
                        Pos.CENTER_RIGHT),
                column("Step", 105, r -> r.step() == null ? "" : r.step(), stepOrder()),
                count("OOM", RankSummary::outOfMemory),
                count("Allocations", RankSummary::allocations),
                sparkColumn(),
                text("Top site at the peak", 220, RanksView::topSite),
                column("Reason", 200, RanksView::reason, Comparator.comparing(RanksView::reason), Pos.CENTER_LEFT, null, RanksView::reasonInFull)));
        // the last column (the reason) takes what the others leave: a bad member's reason is the long text
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.setRowFactory(tv -> {
            TableRow<RankSummary> row = new TableRow<>() {
                @Override
                protected void updateItem(RankSummary item, boolean empty) {
                    super.updateItem(item, empty);
                    getStyleClass().removeAll(Styles.ERROR_TEXT);
                    if (!empty && item != null && !item.loaded()) {
                        getStyleClass().add(Styles.ERROR_TEXT);
                    }
                }
            };
            return row;
        });
        figures.setId("ranks-figures");
        figures.getStyleClass().add(Styles.FIGURE_VALUE);
        figures.setMnemonicParsing(false);
        notes.setId("ranks-notes");
        notes.getStyleClass().add(Styles.FIGURE_LABEL);
        notes.setMnemonicParsing(false);
        notes.setWrapText(true);
        compare.setId("ranks-compare");
        compare.setTooltip(new Tooltip("Select two ranks (Ctrl-click): the higher is shown, the other is its baseline, and Sites compares them at each one's peak"));
        compare.setDisable(true);
        compare.setOnAction(e -> compareSelected());
        worstVsMedian.setId("ranks-worst-vs-median");
        worstVsMedian.setTooltip(new Tooltip("Compare the worst rank with the median one in the Sites view"));
        worstVsMedian.setDisable(true);
        worstVsMedian.setOnAction(e -> {
            Job j = job.get();
            if (j != null && j.summary().worst() != null && !j.summary().worst().equals(j.summary().median())) {
                compare(j.summary().worst(), j.summary().median());
            }
        });
        HBox.setHgrow(figures, Priority.ALWAYS);
        figures.setMaxWidth(Double.MAX_VALUE);
        allRanksButton.setId("ranks-all-in-timeline");
        allRanksButton.setTooltip(new Tooltip("Draw every rank's lanes in the timeline at once, on one byte axis, grouped by rank"
                + " and aligned by step (View ▸ All Ranks in the Timeline)"));
        allRanksButton.setDisable(true);
        allRanksButton.setOnAction(e -> allRanks.set(true));
        HBox bar = new HBox(8, figures, compare, worstVsMedian, allRanksButton);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(4, 6, 2, 6));
        VBox top = new VBox(2, bar, notes);
        top.setPadding(new Insets(0, 0, 4, 0));
        setTop(top);
        setCenter(table);
    }

    private void initListeners() {
        table.getSelectionModel().getSelectedItems().addListener((ListChangeListener<RankSummary>) c -> {
            List<RankSummary> sel = selected();
            compare.setDisable(sel.size() != 2 || sel.stream().anyMatch(r -> !r.loaded()));
            compare.setText(sel.size() == 2 ? "Compare " + sel.get(0).rank() + " with " + sel.get(1).rank() : "Compare selected");
            if (!syncing && sel.size() == 1) {
                allRanks.set(false); // a click shows that rank's lanes
                showRank(sel.getFirst().rank());
            }
        });
        model.traceProperty().addListener((o, a, b) -> {
            Job j = job.get();
            if (j == null) {
                return;
            }
            if (!j.stores().containsValue(b) && !(j.live() && listen != null && listen.holds(b))) {
                clear(); // another session took the window: this job is no longer what it shows
                return;
            }
            selectShown();
        });
        dark.addListener((o, a, b) -> looks.set(looks.get() + 1));
        job.addListener((o, a, b) -> {
            allRanksButton.setDisable(b == null);
            if (b == null) {
                allRanks.set(false);
            }
        });
    }

    // ---- columns --------------------------------------------------------------------------

    /** rank2 before rank10: numbered ranks by number, then named ones by name (the job's own order). */
    private static Comparator<RankSummary> rankOrder() {
        return Comparator.comparingInt((RankSummary r) -> r.number() < 0 ? 1 : 0).thenComparingInt(RankSummary::number)
                .thenComparing(RankSummary::rank);
    }

    /** ProfilerStep#9 before ProfilerStep#10; steps by their number, other text by itself, ranks without one first. */
    private static Comparator<RankSummary> stepOrder() {
        return Comparator.comparingLong((RankSummary r) -> stepNumber(r.step())).thenComparing(r -> r.step() == null ? "" : r.step());
    }

    private static long stepNumber(String step) {
        if (step == null) {
            return -1;
        }
        int hash = step.lastIndexOf('#');
        String n = hash < 0 ? "" : step.substring(hash + 1);
        return !n.isEmpty() && n.length() < 18 && n.chars().allMatch(Character::isDigit) ? Long.parseLong(n) : Long.MAX_VALUE;
    }

    /** A column whose cells are the row, drawn as {@code shown} says and sorted by {@code order} (a rank's number, a time, bytes). */
    private static TableColumn<RankSummary, RankSummary> column(String title, double width, Function<RankSummary, String> shown,
                                                                Comparator<RankSummary> order) {
        return column(title, width, shown, order, Pos.CENTER_LEFT);
    }

    private static TableColumn<RankSummary, RankSummary> column(String title, double width, Function<RankSummary, String> shown,
                                                                Comparator<RankSummary> order, Pos alignment) {
        return column(title, width, shown, order, alignment, null);
    }

    /**
     * A column as above whose cells also redraw their row when {@code redraw} changes (what they show
     * depends on the job as well as the row: the role).
     */
    private static TableColumn<RankSummary, RankSummary> column(String title, double width, Function<RankSummary, String> shown,
                                                                Comparator<RankSummary> order, Pos alignment, LongProperty redraw) {
        return column(title, width, shown, order, alignment, redraw, shown);
    }

    /** A column as above whose cells' tooltip is {@code hover} (the whole text behind a short one: a bad member's exact error). */
    private static TableColumn<RankSummary, RankSummary> column(String title, double width, Function<RankSummary, String> shown,
                                                                Comparator<RankSummary> order, Pos alignment, LongProperty redraw,
                                                                Function<RankSummary, String> hover) {
        TableColumn<RankSummary, RankSummary> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
        c.setComparator(order);
        c.setCellFactory(col -> {
            TableCell<RankSummary, RankSummary> cell = new TableCell<>() {
                private final InvalidationListener again = o -> show(getItem(), isEmpty());

                {
                    if (redraw != null) {
                        redraw.addListener(new WeakInvalidationListener(again));
                    }
                }

                @Override
                protected void updateItem(RankSummary r, boolean empty) {
                    super.updateItem(r, empty);
                    show(r, empty);
                }

                private void show(RankSummary r, boolean empty) {
                    String text = empty || r == null ? null : shown.apply(r);
                    String full = text == null ? null : hover.apply(r);
                    setText(text);
                    // the whole text on hover: a top site's frame and a bad member's reason are long
                    setTooltip(full == null || full.length() < 24 && full.equals(text) ? null : new Tooltip(full));
                }
            };
            cell.setAlignment(alignment); // centred on the row's height, which the sparklines set
            cell.setMnemonicParsing(false);
            return cell;
        });
        return c;
    }

    private static TableColumn<RankSummary, RankSummary> text(String title, double width, Function<RankSummary, String> shown) {
        return column(title, width, shown, Comparator.comparing(shown));
    }

    private static TableColumn<RankSummary, RankSummary> bytes(String title, ToLongFunction<RankSummary> f) {
        return column(title, 100, r -> !r.loaded() || f.applyAsLong(r) < 0 ? "" : Bytes.format(f.applyAsLong(r)),
                Comparator.comparingLong(r -> r.loaded() ? f.applyAsLong(r) : -1), Pos.CENTER_RIGHT);
    }

    private static TableColumn<RankSummary, RankSummary> count(String title, ToLongFunction<RankSummary> f) {
        return column(title, title.length() < 4 ? 50 : 90, r -> r.loaded() ? String.format(Locale.ROOT, "%,d", f.applyAsLong(r)) : "",
                Comparator.comparingLong(r -> r.loaded() ? f.applyAsLong(r) : -1), Pos.CENTER_RIGHT);
    }

    private TableColumn<RankSummary, RankSummary> roleColumn() {
        Function<RankSummary, String> shown = this::role;
        return column("Role", 90, shown, Comparator.comparing(shown), Pos.CENTER_LEFT, looks);
    }

    private TableColumn<RankSummary, RankSummary> sparkColumn() {
        TableColumn<RankSummary, RankSummary> c = new TableColumn<>("Live bytes over the run");
        c.setId("ranks-spark-column");
        c.setPrefWidth(180);
        c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
        c.setComparator(Comparator.comparingLong(RankSummary::peakLiveBytes));
        c.setCellFactory(col -> new TableCell<>() {
            private final Sparkline spark = new Sparkline();
            private final InvalidationListener again = o -> paint();

            {
                spark.widthProperty().bind(col.widthProperty().subtract(10));
                spark.widthProperty().addListener((o, a, b) -> paint());
                looks.addListener(new WeakInvalidationListener(again));
            }

            @Override
            protected void updateItem(RankSummary r, boolean empty) {
                super.updateItem(r, empty);
                setText(null);
                setGraphic(empty || r == null ? null : spark);
                paint();
            }

            private void paint() {
                RankSummary r = getItem();
                Job j = job.get();
                if (r == null || j == null || isEmpty()) {
                    return;
                }
                spark.draw(r.liveOverTime(), j.axisBytes(), r.rank().equals(j.summary().worst()), dark.get() ? Palette.DARK : Palette.LIGHT);
            }
        });
        return c;
    }

    static String status(RankSummary r) {
        return !r.loaded() ? "failed" : r.problem() != null ? "damaged" : "ok";
    }

    /** "worst", "median", "outlier", "name given twice", joined. */
    String role(RankSummary r) {
        Job j = job.get();
        if (j == null) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        JobSummary s = j.summary();
        if (r.rank().equals(s.worst())) {
            parts.add("worst");
        }
        if (r.rank().equals(s.median())) {
            parts.add("median");
        }
        if (s.outliers().contains(r.rank())) {
            parts.add("outlier");
        }
        if (r.duplicateName()) {
            parts.add("name given twice");
        }
        return String.join(", ", parts);
    }

    static String topSite(RankSummary r) {
        SiteBreakdown.Row top = r.topSite();
        return top == null ? "" : top.label() + " — " + Bytes.format(top.bytes());
    }

    /**
     * A rank's reason as the table shows it: for a member a reader refused, what the file is in words
     * ({@code not a PyTorch snapshot or ArenaScope trace: it is text}) without its path, the reader's
     * exact detail left to {@link #reasonInFull}; a damaged rank's problem as it is.
     */
    static String reason(RankSummary r) {
        if (r.failure() == null) {
            return r.problem() != null ? r.problem() : "";
        }
        String f = r.failure();
        if (r.file() != null && f.startsWith(r.file() + ": ")) {
            f = f.substring(r.file().length() + 2);
        }
        return r.failureDetail() == null ? f : f + " (details on hover)";
    }

    /** The reason with everything behind it: the file and the reader's exact words ({@code at byte 0: unknown opcode 0x6e}). */
    static String reasonInFull(RankSummary r) {
        return r.failure() != null ? r.failureLine() : reason(r);
    }

    // ---- the job ---------------------------------------------------------------------------

    /**
     * Shows {@code j}: its rows (the sort kept), its figures, and, unless a rank of it is already shown, the
     * worst rank's trace in the window.
     */
    public void show(Job j) {
        List<String> selected = table.getSelectionModel().getSelectedItems().stream().filter(r -> r != null).map(RankSummary::rank).toList();
        Job was = job.get();
        job.set(j);
        syncing = true;
        try {
            updateRows(j.summary().ranks());
            List<String> now = table.getSelectionModel().getSelectedItems().stream().filter(r -> r != null).map(RankSummary::rank).toList();
            if (!now.equals(selected)) {
                table.getSelectionModel().clearSelection();
                for (String s : selected) {
                    select(s);
                }
            }
        } finally {
            syncing = false;
        }
        figures.setText(describe(j));
        notes.setText(String.join("\n", j.notes()));
        notes.setVisible(!j.notes().isEmpty());
        notes.setManaged(!j.notes().isEmpty());
        worstVsMedian.setDisable(j.summary().worst() == null || j.summary().worst().equals(j.summary().median()));
        // the sparklines' axis and the roles may have changed with the job: the cells shown redraw (rows whose
        // figures changed were redrawn by updateRows). Not table.refresh(), which makes every cell anew: a listened
        // job's refresh twice a second then kept the FX thread in CSS and layout for most of a second.
        if (was == null || was.axisBytes() != j.axisBytes() || !Objects.equals(was.summary().worst(), j.summary().worst())
                || !Objects.equals(was.summary().median(), j.summary().median()) || !was.summary().outliers().equals(j.summary().outliers())) {
            looks.set(looks.get() + 1);
        }
        if (!j.stores().containsValue(model.trace()) && j.summary().worst() != null && !j.live()) {
            showRank(j.summary().worst());
        } else {
            selectShown();
        }
    }

    /**
     * Brings the table's rows to {@code rows} (the sort kept), replacing only the rows that changed: a listened
     * job is shown twice a second, most of its ranks unchanged between two refreshes (a rank whose events did
     * not change keeps its row object), and replacing every row had the FX thread lay out every cell each time.
     * When the ranks themselves changed (one arrived, or their order without a sort), every row is set anew.
     */
    private void updateRows(List<RankSummary> rows) {
        var items = table.getItems();
        Map<String, RankSummary> byRank = new HashMap<>();
        for (RankSummary r : rows) {
            byRank.put(r.rank(), r);
        }
        boolean sorted = !table.getSortOrder().isEmpty();
        boolean sameRanks = byRank.size() == rows.size() && items.size() == rows.size();
        for (int i = 0; sameRanks && i < items.size(); i++) {
            // unsorted, the table shows the job's order; sorted, its own
            sameRanks = sorted ? byRank.containsKey(items.get(i).rank()) : items.get(i).rank().equals(rows.get(i).rank());
        }
        if (!sameRanks) {
            items.setAll(rows);
            table.sort();
            return;
        }
        boolean changed = false;
        for (int i = 0; i < items.size(); i++) {
            RankSummary was = items.get(i);
            RankSummary now = byRank.get(was.rank());
            if (now != was && !now.equals(was)) {
                items.set(i, now);
                changed = true;
            }
        }
        if (changed && sorted) {
            table.sort();
        }
    }

    /**
     * The ranks of {@code j} as the all-ranks timeline draws them, in the job's order: each with its name, its
     * peak and the step of it (a rank that could not be read with its reason), the worst one marked.
     */
    public static List<RankLanes.Rank> lanesOf(Job j) {
        List<RankLanes.Rank> out = new ArrayList<>(j.summary().ranks().size());
        for (RankSummary r : j.summary().ranks()) {
            String detail;
            if (!r.loaded()) {
                detail = "could not be read: " + reason(r);
            } else {
                detail = "peak " + Bytes.format(r.peakLiveBytes()) + (r.step() == null ? "" : " in " + r.step())
                        + (r.rank().equals(j.summary().worst()) ? " · worst" : "");
            }
            out.add(new RankLanes.Rank(r.rank(), j.store(r.rank()), detail, r.rank().equals(j.summary().worst())));
        }
        return out;
    }

    /** Forgets the job (another session is shown). */
    public void clear() {
        job.set(null);
        liveKey = "";
        syncing = true;
        try {
            table.getItems().clear();
        } finally {
            syncing = false;
        }
        figures.setText("");
        notes.setText("");
        worstVsMedian.setDisable(true);
    }

    /** The job's figures in one line. */
    static String describe(Job j) {
        JobSummary s = j.summary();
        int read = s.read().size();
        StringBuilder b = new StringBuilder();
        b.append(j.title()).append(": ").append(s.ranks().size()).append(s.ranks().size() == 1 ? " rank" : " ranks");
        if (read != s.ranks().size()) {
            b.append(", ").append(s.ranks().size() - read).append(" could not be read");
        }
        if (s.worst() != null) {
            RankSummary w = s.worstRank();
            RankSummary m = s.medianRank();
            b.append(" · worst ").append(w.rank()).append(' ').append(Bytes.format(w.peakLiveBytes()));
            b.append(" · median ").append(m.rank()).append(' ').append(Bytes.format(m.peakLiveBytes()));
            b.append(String.format(Locale.ROOT, " · imbalance %+.1f%%", s.imbalancePct()));
            b.append(" · outliers ").append(s.outliers().isEmpty() ? "none" : String.join(", ", s.outliers()));
            long ooms = s.read().stream().mapToLong(RankSummary::outOfMemory).sum();
            if (ooms > 0) {
                b.append(String.format(Locale.ROOT, " · %,d out-of-memory", ooms));
            }
        }
        if (j.live()) {
            b.append(" · live");
        }
        return b.toString();
    }

    /** Shows rank {@code rank}'s trace in the window (every view on it). */
    public void showRank(String rank) {
        Job j = job.get();
        TraceView store = j == null ? null : j.store(rank);
        if (store == null || store == model.trace() && model.baselineProperty().get() == null) {
            return;
        }
        model.show(store, j.title() + " · " + rank, TraceFiles.deviceOf(store));
    }

    /**
     * Compares two ranks: the one whose peak live is higher is shown, the other is its baseline, and the
     * Sites view is brought up answering at the peak (each rank at its own).
     */
    public void compare(String rankA, String rankB) {
        Job j = job.get();
        if (j == null) {
            return;
        }
        RankSummary a = j.row(rankA);
        RankSummary b = j.row(rankB);
        if (a == null || b == null || j.store(rankA) == null || j.store(rankB) == null) {
            return;
        }
        RankSummary hi = a.peakLiveBytes() >= b.peakLiveBytes() ? a : b;
        RankSummary lo = hi == a ? b : a;
        allRanks.set(false); // two ranks compared in the one-rank timeline, the other the baseline in its lanes
        syncing = true;
        try {
            model.show(j.store(hi.rank()), j.title() + " · " + hi.rank() + " against " + lo.rank(), TraceFiles.deviceOf(j.store(hi.rank())));
            model.setBaseline(j.store(lo.rank()), lo.rank());
            table.getSelectionModel().clearSelection();
            select(hi.rank());
            select(lo.rank());
        } finally {
            syncing = false;
        }
        showSites.get().run();
    }

    /** The selected rows (a selection being changed may hold nulls for a moment: left out). */
    private List<RankSummary> selected() {
        return table.getSelectionModel().getSelectedItems().stream().filter(java.util.Objects::nonNull).toList();
    }

    private void compareSelected() {
        List<RankSummary> sel = selected();
        if (sel.size() == 2) {
            compare(sel.get(0).rank(), sel.get(1).rank());
        }
    }

    private void select(String rank) {
        for (int i = 0; i < table.getItems().size(); i++) {
            if (table.getItems().get(i).rank().equals(rank)) {
                table.getSelectionModel().select(i);
            }
        }
    }

    /** Selects the row of the rank the window shows (when the selection does not already hold it). */
    private void selectShown() {
        Job j = job.get();
        if (j == null) {
            return;
        }
        String shown = j.stores().entrySet().stream().filter(e -> e.getValue() == model.trace()).map(e -> e.getKey()).findFirst().orElse(null);
        if (shown == null || table.getSelectionModel().getSelectedItems().stream().anyMatch(r -> r != null && r.rank().equals(shown))) {
            return;
        }
        syncing = true;
        try {
            table.getSelectionModel().clearSelection();
            select(shown);
        } finally {
            syncing = false;
        }
    }

    // ---- a listened job ----------------------------------------------------------------------

    /**
     * Fills this view with the processes {@code lv} receives, as they connect, and keeps it up to date while
     * they stream (every {@value #LIVE_REFRESH_MS} ms, each refresh summarising only the ranks that grew).
     */
    public void follow(ListenView lv) {
        this.listen = lv;
        liveTicker.play();
    }

    /**
     * Brings the listened job up to date now, as the ticker does every {@value #LIVE_REFRESH_MS} ms: the
     * connections named as ranks and the ranks that grew summarised on the view's worker, the result shown
     * when it is done. Nothing is shown while no connection has said hello (a connection still in its
     * handshake is no rank yet: a job of 0 ranks would replace what the view shows with an empty table).
     */
    public void refreshLive() {
        if (listen == null) {
            return;
        }
        if (liveInFlight) {
            liveMissed = true;
            return;
        }
        liveMissed = false;
        List<ListenView.Connection> cons = listen.connections();
        if (cons.isEmpty()) {
            return;
        }
        if (model.trace() != null && !listen.holds(model.trace())) {
            return; // the window shows something else (a file, a job of files): the listened job waits for one of its processes
        }
        Job j = job.get();
        List<LiveJob.Member> members = LiveJob.snapshot(cons);
        if (members.isEmpty()) {
            return; // connected, but no hello yet: no rank to show
        }
        String k = key(members);
        if (j != null && j.live() && k.equals(liveKey)) {
            return;
        }
        liveInFlight = true;
        String title = "listened job on " + listen.listeningProperty().get();
        long submitted = System.nanoTime();
        long[] worked = new long[2];
        liveWorker.submit(BackgroundTask.of("Ranks: live job", p -> {
                    worked[0] = System.nanoTime();
                    Job updated = liveJob.update(members, title);
                    worked[1] = System.nanoTime();
                    return updated;
                })
                .onSuccess(updated -> {
                    liveInFlight = false;
                    if (model.trace() == null || listen.holds(model.trace())) {
                        long received = System.nanoTime();
                        liveUpdates++;
                        liveKey = k;
                        show(updated);
                        if (liveTimings.size() == MAX_TIMINGS) {
                            liveTimings.removeFirst();
                        }
                        liveTimings.add(new LiveTiming(submitted, worked[0], worked[1], received, System.nanoTime(), members.size()));
                    }
                    if (liveMissed) {
                        refreshLive(); // a refresh that took longer than the period: the next one at once, so the table never waits two periods
                    }
                })
                .onFailure(e -> liveInFlight = false)
                .onCancelled(() -> liveInFlight = false));
    }

    /**
     * What a listened job's refresh would read: every member's connection, name, events and state (equal:
     * nothing to redo). The connection's key, not its number, which comes again after listening is restarted.
     */
    private static String key(List<LiveJob.Member> members) {
        StringBuilder b = new StringBuilder();
        for (LiveJob.Member m : members) {
            b.append(m.key().listening()).append('.').append(m.key().connection()).append('\u0000').append(m.rank()).append('\u0000').append(m.store() == null ? -1 : m.store().eventCount()).append('\u0000')
                    .append(m.stats().state()).append('\n');
        }
        return b.toString();
    }

    // ---- access for the window and its tests --------------------------------------------------

    /** The job shown, or null. */
    public ReadOnlyObjectProperty<Job> jobProperty() {
        return job.getReadOnlyProperty();
    }

    /** What the window runs to bring the Sites view up (a comparison was opened). */
    public SimpleObjectProperty<Runnable> showSitesProperty() {
        return showSites;
    }

    public BooleanProperty darkProperty() {
        return dark;
    }

    public TableView<RankSummary> table() {
        return table;
    }

    public Label figures() {
        return figures;
    }

    public Button compareButton() {
        return compare;
    }

    /** The button that draws every rank in the timeline. */
    public Button allRanksButton() {
        return allRanksButton;
    }

    /**
     * Whether the timeline draws every rank of the job at once (the button and View ▸ All Ranks in the Timeline
     * turn it on; a click on one rank, or the job's end, turns it off).
     */
    public BooleanProperty allRanksProperty() {
        return allRanks;
    }

    public Button worstVsMedianButton() {
        return worstVsMedian;
    }

    /** Live refreshes applied so far (tests wait on it). */
    public long liveUpdates() {
        return liveUpdates;
    }

    /**
     * Where one applied refresh of a listened job spent its time (System.nanoTime() stamps): submitted to
     * the worker, the worker began and ended the update, the FX thread received and applied it. For the
     * live job probe, which tells a refresh that waited for the CPU from one that had much to do.
     */
    public record LiveTiming(long submittedNs, long startedNs, long computedNs, long receivedNs, long appliedNs, int ranks) {}

    /** The last applied refreshes' timings, oldest first (at most 1,024). FX thread. */
    public List<LiveTiming> liveTimings() {
        return List.copyOf(liveTimings);
    }

    /** Whether no refresh of a listened job is being computed. */
    public boolean settled() {
        return !liveInFlight;
    }

    /** Stops following the listened processes. */
    public void dispose() {
        liveTicker.stop();
        liveWorker.shutdown();
    }
}
