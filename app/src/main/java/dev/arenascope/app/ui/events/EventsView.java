package dev.arenascope.app.ui.events;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import javafx.animation.Animation;
import javafx.animation.PauseTransition;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.util.Duration;

import org.controlsfx.control.CheckComboBox;

import dev.arenascope.app.ui.common.ShownAs;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.AllocationSelection;
import dev.arenascope.app.ui.model.FreeRequests;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.util.Progress;

/**
 * The events of the selected range (or of the visible range when nothing is selected), in a
 * virtualized table with filters by kind, memory, scope and size, and a search. Selecting a row moves
 * the session's cursor to that event; moving the cursor elsewhere selects the event at it. The detail
 * pane beside the table shows the selected event whole, its call stack included ({@link EventDetail}),
 * as text to select and copy. While the site view has a selection
 * ({@link SessionModel#selectedSiteProperty()}) the table lists only its allocations' events.
 */
public final class EventsView extends BorderPane {
    /** The min-size field's placeholder, shown whole. */
    static final String MIN_SIZE_PROMPT = "min size: 1MiB";
    private static final String MIN_SIZE_TIP = "Only events of at least this many bytes: 300MiB, 300Mi, 300MB, 300M or 314572800 (binary units)";
    /** Most rows a column sort reorders (sorting boxes one key per row). */
    static final int MAX_SORT_ROWS = 2_000_000;

    private final SessionModel model;
    private final TableView<EventRow> table = new TableView<>();
    private final CheckComboBox<EventKind> kinds = new CheckComboBox<>(FXCollections.observableArrayList(EventKind.values()));
    private final ComboBox<MemoryInfo> memory = new ComboBox<>();
    private final ComboBox<ScopeAnalysis> scope = new ComboBox<>();
    private final TextField minSize = new TextField();
    private final TextField search = new TextField();
    private static final double SEARCH_MIN_WIDTH = 120;
    private static final double ROW_HEIGHT = 24;
    /** Rows the table shows at the least, its header besides. */
    static final int LEAST_ROWS = 4;
    private final Label summary = new Label();
    private final Button siteFilter = userText(new Button());
    private final TextArea detail = new TextArea();
    private long detailSerial;
    /** The detail request whose text the pane shows (equal to {@link #detailSerial} once the latest is applied). */
    private long detailShownSerial;
    private final ReadOnlyLongWrapper detailEvent = new ReadOnlyLongWrapper(this, "detailEvent", -1);
    private final ReadOnlyObjectWrapper<TimeRange> shownRange = new ReadOnlyObjectWrapper<>(this, "shownRange");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "");
    private final PauseTransition debounce = new PauseTransition(Duration.millis(120));
    private TaskRunner.Handle running;
    private EventIndexList rows = null;
    private boolean syncing;
    private long reloadSerial;
    /** The listing whose rows the table shows (equal to {@link #reloadSerial} once the latest is applied). */
    private long shownSerial;
    /** The order the latest listing (shown or still running) was asked for ({@code null}: trace order). */
    private RowOrder listedOrder;
    /** Set while {@link #showRows} puts the sort order back after replacing the items. */
    private boolean restoringSort;

    public EventsView(SessionModel model) {
        this.model = model;
        createView();
        initListeners();
    }

    private void createView() {
        setId("events-view");
        table.setId("events-table");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.setPlaceholder(new Label("No events in the selected range"));
        // one line a row, whatever a cell holds: the table shows as many events as its height allows
        table.setFixedCellSize(ROW_HEIGHT);
        // a few rows whatever the split above leaves: a divider a taller window saved (0.82) gave the table no row
        // at the least size; the split keeps the tabs this high and the timeline gives way
        table.setMinHeight(ROW_HEIGHT * (LEAST_ROWS + 1) + 2);
        table.getColumns().setAll(List.of(
                column("#", 70, r -> String.format("%,d", r.index())),
                column("Time", 95, r -> EventRow.time(model.trace(), model.timeAxis(), r.event())),
                column("Kind", 105, r -> EventRow.kindName(r.event().kind())),
                column("Memory", 110, r -> EventRow.memoryName(model.trace(), r.event().memory())),
                column("Bytes", 85, r -> EventRow.bytes(r.event())),
                column("In use after", 95, r -> r.event().memory() >= 0 ? Bytes.format(r.event().used()) : ""),
                column("Detail", 320, r -> EventRow.detail(model.trace(), r.event()))));
        List<ToLongFunction<EventRow>> keys = List.of(
                EventRow::index,
                r -> r.event().timeNs(),
                r -> r.event().kind().ordinal(),
                r -> r.event().memory(),
                r -> EventRow.bytesKey(r.event()),
                r -> r.event().memory() >= 0 ? r.event().used() : -1);
        for (int i = 0; i < table.getColumns().size(); i++) {
            TableColumn<EventRow, ?> c = table.getColumns().get(i);
            c.setSortable(i < keys.size());
            if (i < keys.size()) {
                c.setUserData(keys.get(i));
            }
        }
        table.setSortPolicy(t -> {
            sortRows();
            return true;
        });
        // the Kind column never narrower than the longest kind's name: squeezed by the constrained policy at the
        // least width it read "memory creat…"
        TableColumn<EventRow, ?> kind = table.getColumns().get(2);
        kind.setMinWidth(kindColumnWidth(Font.getDefault()));
        kind.setPrefWidth(Math.max(kind.getPrefWidth(), kind.getMinWidth()));
        table.getColumns().get(4).getStyleClass().add(Styles.NUMERIC);
        table.getColumns().get(5).getStyleClass().add(Styles.NUMERIC);

        kinds.setId("events-kinds");
        kinds.setTitle("Kinds");
        kinds.setConverter(ShownAs.converter("", EventRow::kindName));
        memory.setId("events-memory");
        memory.setPromptText("All memories");
        memory.setConverter(ShownAs.converter("All memories", MemoryInfo::name));
        scope.setId("events-scope");
        scope.setPromptText("Any scope");
        scope.setConverter(ShownAs.converter("Any scope", ScopeAnalysis::path));
        minSize.setId("events-min-size");
        minSize.setPromptText(MIN_SIZE_PROMPT);
        // as wide as its placeholder, whole, and no wider: sized by its columns it took 192 px, and at the window's
        // least width the search field went past the window's edge
        minSize.setPrefWidth(textWidth(MIN_SIZE_PROMPT, Font.getDefault()) + FIELD_PADDING);
        minSize.setMinWidth(Region.USE_PREF_SIZE);
        minSize.setTooltip(new Tooltip(MIN_SIZE_TIP));
        search.setId("events-search");
        search.getStyleClass().add(Styles.SEARCH_FIELD);
        search.setPromptText("Search (kind, memory, tensor, scope…)");
        HBox.setHgrow(search, Priority.ALWAYS);
        summary.setId("events-summary");
        // the choosers keep their width and the summary gives way (cut with an ellipsis, whole in its
        // tooltip and in the status line): a long selection summary squeezed them to empty boxes
        for (Region r : List.of(kinds, memory, scope)) {
            r.setMinWidth(Region.USE_PREF_SIZE);
        }
        // the kinds' chooser shows its title only (the kinds are in its list): sized by its longest kind it was 166 px
        kinds.setPrefWidth(textWidth("Kinds", Font.getDefault()) + CHOOSER_PADDING);
        search.setMinWidth(SEARCH_MIN_WIDTH);
        summary.setMinWidth(0);
        Tooltip whole = new Tooltip();
        whole.textProperty().bind(summary.textProperty());
        summary.setTooltip(whole);
        siteFilter.setId("events-site-filter");
        siteFilter.setVisible(false);
        siteFilter.setManaged(false);
        siteFilter.setTooltip(new Tooltip("Only the events of the allocations selected in the Sites view; click to list every event again"));
        siteFilter.setOnAction(e -> model.selectedSiteProperty().set(null));
        Region spacer = new Region();
        HBox filters = new HBox(6, kinds, memory, scope, minSize, search, siteFilter, spacer, summary);
        filters.setAlignment(Pos.CENTER_LEFT);
        filters.setPadding(new Insets(4, 6, 4, 6));
        setTop(filters);
        detail.setId("events-detail");
        detail.setEditable(false);
        detail.setWrapText(false);
        detail.setPromptText("Select an event to see all of it here, its call stack included");
        detail.setStyle("-fx-font-family: monospace;");
        SplitPane center = new SplitPane(table, detail);
        center.setDividerPositions(0.66);
        setCenter(center);
    }

    private static TableColumn<EventRow, String> column(String title, double width, Function<EventRow, String> f) {
        TableColumn<EventRow, String> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(cd -> new ReadOnlyStringWrapper(oneLine(f.apply(cd.getValue()))));
        return c;
    }

    /**
     * A cell's text on one line: a descriptor or message with line breaks (a compile context, a
     * multi-line user_metadata) made a row ten lines tall; the detail pane keeps the breaks.
     */
    public static String oneLine(String s) {
        if (s == null || s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return s.strip().replaceAll("\\s*[\\r\\n]+\\s*", " ⏎ ");
    }

    /** Text width the "#" column needs for the trace's largest index, e.g. {@code 1,769,123}, with the cell's padding. */
    public static double indexColumnWidth(long events, Font font) {
        Text t = new Text(String.format(Locale.ROOT, "%,d", Math.max(0, events - 1)) + "0");
        t.setFont(font);
        return Math.max(50, Math.ceil(t.getLayoutBounds().getWidth()) + 20);
    }

    /** Pixels a text field adds around its text (padding and border). */
    private static final double FIELD_PADDING = 26;
    /** Pixels a chooser adds around its text (padding, border and arrow). */
    private static final double CHOOSER_PADDING = 48;

    private static double textWidth(String s, Font font) {
        Text t = new Text(s);
        t.setFont(font);
        return Math.ceil(t.getLayoutBounds().getWidth());
    }

    /** Width the Kind column needs for the longest kind's name ({@code memory created}), with the cell's padding. */
    public static double kindColumnWidth(Font font) {
        double most = 0;
        for (EventKind k : EventKind.values()) {
            Text t = new Text(EventRow.kindName(k));
            t.setFont(font);
            most = Math.max(most, t.getLayoutBounds().getWidth());
        }
        return Math.ceil(most) + 20;
    }

    /** Sizes the "#" column for the shown trace (its largest index whole, never "1,769,1…"). */
    private void sizeIndexColumn() {
        TraceView t = model.trace();
        TableColumn<EventRow, ?> index = table.getColumns().getFirst();
        double need = indexColumnWidth(t == null ? 0 : t.eventCount(), Font.getDefault());
        index.setMinWidth(need);
        if (index.getPrefWidth() < need) {
            index.setPrefWidth(need);
        }
    }

    private void initListeners() {
        debounce.setOnFinished(e -> reload());
        model.selectionProperty().addListener((o, a, b) -> scheduleReload());
        model.selectedAllocationProperty().addListener((o, a, b) -> scheduleReload());
        model.viewRangeProperty().addListener((o, a, b) -> {
            if (model.selectionProperty().get() == null) {
                scheduleReload();
            }
        });
        model.traceProperty().addListener((o, a, b) -> {
            sizeIndexColumn();
            resetFilters();
            memory.getItems().setAll(b == null ? List.of() : b.memories());
            memory.getItems().add(0, null);
            scheduleReload();
        });
        model.revisionProperty().addListener((o, a, b) -> {
            TraceView t = model.trace();
            sizeIndexColumn();
            if (t != null && memory.getItems().size() != t.memories().size() + 1) {
                MemoryInfo keep = memory.getValue();
                memory.getItems().setAll(t.memories());
                memory.getItems().add(0, null);
                memory.setValue(keep);
            }
        });
        model.digestProperty().addListener((o, a, b) -> {
            ScopeAnalysis keep = scope.getValue();
            scope.getItems().setAll(b.scopes());
            scope.getItems().add(0, null);
            if (keep != null) {
                scope.setValue(b.scope(keep.memory(), keep.path()));
            }
        });
        kinds.getCheckModel().getCheckedItems().addListener((ListChangeListener<EventKind>) c -> scheduleReload());
        memory.valueProperty().addListener((o, a, b) -> scheduleReload());
        scope.valueProperty().addListener((o, a, b) -> scheduleReload());
        minSize.textProperty().addListener((o, a, b) -> scheduleReload());
        search.textProperty().addListener((o, a, b) -> scheduleReload());
        model.selectedSiteProperty().addListener((o, a, b) -> {
            siteFilter.setText(b == null ? "" : "Site: " + shorten(b.label()) + "  ✕");
            siteFilter.setVisible(b != null);
            siteFilter.setManaged(b != null);
            scheduleReload();
        });
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> showDetail(b));
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (b != null && !syncing) {
                syncing = true;
                model.cursorProperty().set(b.event().timeNs());
                syncing = false;
            }
        });
        model.cursorProperty().addListener((o, a, b) -> {
            if (!syncing) {
                selectAt(b.longValue());
            }
        });
    }

    /** Clears every filter and the sort (a new file or session starts unfiltered). */
    private void resetFilters() {
        kinds.getCheckModel().clearChecks();
        memory.setValue(null);
        scope.setValue(null);
        minSize.clear();
        search.clear();
        table.getSortOrder().clear();
    }

    /** The order the table's sort columns ask for, or {@code null} for trace order. */
    private RowOrder requestedOrder() {
        if (table.getSortOrder().isEmpty()) {
            return null;
        }
        TableColumn<EventRow, ?> c = table.getSortOrder().getFirst();
        @SuppressWarnings("unchecked")
        ToLongFunction<EventRow> key = (ToLongFunction<EventRow>) c.getUserData();
        return key == null ? null : new RowOrder(key, c.getSortType() == TableColumn.SortType.DESCENDING);
    }

    /**
     * The table's sort policy: when the sort columns ask for another order than the rows are in, lists
     * the rows again in that order. Filtering and sorting are one background task, so a sort can never
     * be overtaken by a reload that lists the rows unsorted (nor the other way round).
     */
    private void sortRows() {
        if (!restoringSort && model.trace() != null && !Objects.equals(requestedOrder(), listedOrder)) {
            debounce.stop();
            reload();
        }
    }

    /** A column's sort key and direction (keys compare by identity: one function per column). */
    private record RowOrder(ToLongFunction<EventRow> key, boolean descending) {
    }

    /** Coalesces changes: at most one reload per {@code debounce} period, also while the range moves continuously. */
    private void scheduleReload() {
        if (debounce.getStatus() != Animation.Status.RUNNING) {
            debounce.playFromStart();
        }
    }

    /** The filter the controls describe. */
    public EventFilter filter() {
        long min = 0;
        String ms = minSize.getText();
        minSize.getStyleClass().remove(Styles.ERROR_TEXT);
        minSize.setTooltip(new Tooltip(MIN_SIZE_TIP));
        if (ms != null && !ms.isBlank()) {
            try {
                min = Bytes.parse(ms);
            } catch (IllegalArgumentException e) {
                minSize.getStyleClass().add(Styles.ERROR_TEXT);
                minSize.setTooltip(new Tooltip(e.getMessage()));
            }
        }
        EnumSet<EventKind> ks = EnumSet.noneOf(EventKind.class);
        ks.addAll(kinds.getCheckModel().getCheckedItems());
        MemoryInfo m = memory.getValue();
        return new EventFilter(ks, m == null ? -1 : m.id(), scope.getValue(), min, search.getText(),
                EventFilter.scopesMatching(model.digestProperty().get().scopes(), search.getText()));
    }

    /** Lists the events of the selected (or visible) range that pass the filter, off the FX thread. */
    public void reload() {
        TraceView t = model.trace();
        if (running != null) {
            running.cancel();
        }
        if (t == null) {
            shownSerial = ++reloadSerial;
            table.setItems(FXCollections.observableArrayList());
            return;
        }
        var picked = model.selectedAllocationProperty().get();
        if (picked != null && picked.allocEvent() < t.eventCount()) {
            showAllocation(t, picked);
            return;
        }
        TimeRange r = model.selectionProperty().get() != null ? model.selectionProperty().get() : model.viewRangeProperty().get();
        EventFilter f = filter();
        SiteSelection site = model.selectedSiteProperty().get();
        RowOrder order = requestedOrder();
        listedOrder = order;
        long serial = ++reloadSerial;
        summary.setText("listing…");
        running = model.tasks().submit(BackgroundTask.of(order == null ? "Filtering events" : "Sorting events", p -> {
            EventIndexList listed = listRows(t, r, f, site, p);
            return order == null || listed.size() > MAX_SORT_ROWS ? listed : listed.sortedBy(order.key(), order.descending(), p::checkCancelled);
        }).onSuccess(list -> {
            if (serial != reloadSerial) {
                return;
            }
            shownSerial = serial;
            showRows(list);
            shownRange.set(r);
            summary.setText((order != null && !list.sorted()
                    ? String.format("%s: too many to sort (at most %,d) — select a shorter range or filter", Counts.of(list.size(), "event"), MAX_SORT_ROWS)
                    : String.format("%s in %s", Counts.of(list.size(), "event"), model.timeAxis().span(r.duration())))
                    + (site == null ? "" : " of " + shorten(site.label())));
            status.set(summary.getText());
            long c = model.cursorProperty().get();
            if (c >= 0 && r.contains(c)) {
                selectAt(c);
            }
        }).onFailure(e -> {
            if (serial == reloadSerial) {
                shownSerial = serial;
            }
            summary.setText("error: " + e.getMessage());
        }));
    }

    /**
     * Lists the picked allocation's own rows: its allocation, the request of its free when the trace has
     * one (a PyTorch pending free) and what freed it (the timeline's click on a stripe), the allocation
     * row selected. Clearing the pick lists the range again.
     */
    private void showAllocation(TraceView t, AllocationSelection picked) {
        shownSerial = ++reloadSerial;
        boolean freed = picked.freeEvent() >= 0 && picked.freeEvent() < t.eventCount();
        long request = freed ? FreeRequests.requestOf(t, picked.allocEvent(), picked.freeEvent()) : -1;
        long[] idx = !freed ? new long[] {picked.allocEvent()} : request >= 0
                ? new long[] {picked.allocEvent(), request, picked.freeEvent()} : new long[] {picked.allocEvent(), picked.freeEvent()};
        EventIndexList list = EventIndexList.of(t, idx, idx.length);
        listedOrder = requestedOrder();
        showRows(list);
        syncing = true;
        table.getSelectionModel().clearAndSelect(0);
        syncing = false;
        shownRange.set(new TimeRange(picked.startNs(), picked.freeEvent() >= 0 ? Math.max(picked.endNs() + 1, picked.startNs() + 1)
                : Math.max(t.endNs() + 1, picked.startNs() + 1)));
        summary.setText("allocation of " + Bytes.format(picked.bytes()) + " at " + picked.site().label()
                + (idx.length == 3 ? ": its allocation, the request of its free and its free"
                        : idx.length == 2 ? ": its allocation and free" : ": its allocation (never freed)")
                + " — click off the stripes to list the range again");
        status.set(summary.getText());
    }

    /**
     * Puts {@code list} in the table. A TableView clears its sort order whenever its items list is
     * replaced (unless that is a SortedList, which would box every row), which would turn the user's
     * sort back into trace order at the next listing: the sort order is put back as it was, and the
     * sort policy ignores the clear and the restore.
     */
    private void showRows(EventIndexList list) {
        rows = list;
        List<TableColumn<EventRow, ?>> order = List.copyOf(table.getSortOrder());
        syncing = true;
        restoringSort = true;
        try {
            table.setItems(FXCollections.observableList(list));
            if (!table.getSortOrder().equals(order)) {
                table.getSortOrder().setAll(order);
            }
        } finally {
            restoringSort = false;
            syncing = false;
        }
    }

    /** The events of {@code r} that pass {@code f}, in trace order (runs on a worker thread). */
    private static EventIndexList listRows(TraceView t, TimeRange r, EventFilter f, SiteSelection site, Progress p) {
        long from = t.firstIndexAtOrAfter(r.fromNs());
        long to = t.firstIndexAtOrAfter(r.toNs());
        if (site != null) { // the site view's allocations: their events in the range, then the other filters
            long[] own = site.members().eventsIn(from, to);
            int n = 0;
            for (long i : own) {
                if (f.isAll() || f.test(t, t.event(i))) {
                    own[n++] = i;
                }
            }
            return EventIndexList.of(t, own, n);
        }
        if (f.isAll()) {
            return EventIndexList.range(t, from, to);
        }
        long[] idx = new long[1024];
        int n = 0;
        for (long i = from; i < to && n < Integer.MAX_VALUE - 8; i++) {
            if (((i - from) & 0x3fff) == 0) {
                p.checkCancelled();
                p.update(i - from, to - from, "events");
            }
            Event e = t.event(i);
            if (f.test(t, e)) {
                if (n == idx.length) {
                    idx = Arrays.copyOf(idx, idx.length * 2);
                }
                idx[n++] = i;
            }
        }
        return EventIndexList.of(t, idx, n);
    }

    private void selectAt(long ns) {
        TraceView t = model.trace();
        if (rows == null || t == null || rows.isEmpty()) {
            return;
        }
        TimeRange shown = shownRange.get();
        if (ns < 0 || shown == null || !shown.contains(ns)) {
            // an instant outside the listed range has no row: select none rather than the range's last
            syncing = true;
            table.getSelectionModel().clearSelection();
            syncing = false;
            return;
        }
        int row = rows.rowOf(t.firstIndexAtOrAfter(ns));
        if (row < 0 || row >= rows.size()) {
            syncing = true;
            table.getSelectionModel().clearSelection();
            syncing = false;
            return;
        }
        syncing = true;
        table.getSelectionModel().clearAndSelect(row);
        table.scrollTo(Math.max(0, row - 3));
        syncing = false;
    }

    private static String shorten(String label) {
        return label.length() <= 48 ? label : label.substring(0, 47) + "…";
    }

    /** Fills the detail pane with the whole of {@code row}'s event (a free's allocation is looked up off the FX thread). */
    private void showDetail(EventRow row) {
        long my = ++detailSerial;
        TraceView t = model.trace();
        if (row == null || t == null) {
            detail.clear();
            detailShownSerial = my;
            detailEvent.set(-1);
            return;
        }
        long index = row.index();
        model.tasks().submit(BackgroundTask.of("Event detail", p -> EventDetail.of(t, index)).onSuccess(text -> {
            if (my == detailSerial) {
                detail.setText(text);
                detailShownSerial = my;
                detailEvent.set(index);
            }
        }).onFailure(e -> {
            if (my == detailSerial) {
                detailShownSerial = my;
            }
        }));
    }

    /** The index of the event whose whole text the detail pane shows, or -1 (set with the text, FX thread). */
    public ReadOnlyLongProperty detailEventProperty() {
        return detailEvent.getReadOnlyProperty();
    }

    /**
     * Whether the view shows what was last asked of it: no listing waits for its debounce or runs, and the
     * detail pane holds the selected row's text. FX thread; tests wait on it beside what they assert.
     */
    public boolean settled() {
        return debounce.getStatus() != Animation.Status.RUNNING && shownSerial == reloadSerial
                && detailShownSerial == detailSerial;
    }

    /** The detail pane: the selected event whole, its stack included (selectable, copyable text). */
    public TextArea detailPane() {
        return detail;
    }

    /** The chip that says the table lists one site's allocations (hidden otherwise); a click clears it. */
    public Button siteFilterChip() {
        return siteFilter;
    }

    public TableView<EventRow> table() {
        return table;
    }

    /** The line above the table: how many events the range holds, and over what span. */
    public String summaryText() {
        return summary.getText();
    }

    /** The range the table lists. */
    public ReadOnlyObjectProperty<TimeRange> shownRangeProperty() {
        return shownRange.getReadOnlyProperty();
    }

    public TextField searchField() {
        return search;
    }

    public CheckComboBox<EventKind> kindsFilter() {
        return kinds;
    }

    /** {@code b} showing text it does not parse for mnemonics: a site's label is the user's text. */
    private static Button userText(Button b) {
        b.setMnemonicParsing(false);
        return b;
    }
}
