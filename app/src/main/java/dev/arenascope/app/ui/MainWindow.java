package dev.arenascope.app.ui;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Separator;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;

import org.controlsfx.control.StatusBar;

import dev.arenascope.app.cli.Cli;
import dev.arenascope.app.ui.events.EventsView;
import dev.arenascope.app.ui.io.TraceFiles;
import dev.arenascope.app.ui.live.ListenView;
import dev.arenascope.app.ui.live.LiveSession;
import dev.arenascope.app.ui.live.NewSessionDialog;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.pools.PoolView;
import dev.arenascope.app.ui.scopes.ScopeTreeView;
import dev.arenascope.app.ui.slots.PlanSlots;
import dev.arenascope.app.ui.slots.SlotMapView;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.app.ui.timeline.TimelineView;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.workloads.Workload;

/**
 * The ArenaScope window: menu and toolbar for sessions, the occupancy timeline above, the linked
 * views (events, scope tree, slot map, pool histograms) below, and a status bar. Built in code;
 * every view shares one {@link SessionModel}.
 */
public final class MainWindow {
    private final Stage stage;
    private final WindowPrefs prefs;
    private final TaskRunner tasks = new TaskRunner(UiExecutor.FX, 2);
    private final SessionModel model = new SessionModel(tasks);
    private final TimelineView timeline = new TimelineView(model);
    private final EventsView events = new EventsView(model);
    private final ScopeTreeView scopes = new ScopeTreeView(model);
    private final SlotMapView slots = new SlotMapView(model);
    private final PoolView pools = new PoolView(model);
    private final TabPane tabs = new TabPane();
    private final SplitPane split = new SplitPane();
    private final StatusBar statusBar = new StatusBar();
    private final Label deviceLabel = new Label();
    private final Label eventsLabel = new Label();
    private final Label rateLabel = new Label();
    private final Label droppedLabel = new Label();
    private final Label rangeLabel = new Label();
    private final Button cancelLoad = new Button("Cancel");
    private final Label liveBadge = new Label("LIVE");
    private final Button startButton = new Button("Start");
    private final Button pauseButton = new Button("Pause");
    private final Button stopButton = new Button("Stop");
    private final ToggleButton followButton = new ToggleButton("Follow");
    private final CheckMenuItem darkItem = new CheckMenuItem("Dark theme");
    private final Menu recentMenu = new Menu("Open Recent");
    private final BorderPane root = new BorderPane();
    private Scene scene;
    private LiveSession live;
    private TaskRunner.Handle loading;
    private ListenView listenView;
    private NewSessionDialog.Choice lastChoice = NewSessionDialog.Choice.demo();

    public MainWindow(Stage stage, WindowPrefs prefs) {
        this.stage = stage;
        this.prefs = prefs;
        createView();
        initListeners();
    }

    private void createView() {
        root.getStyleClass().add(Styles.ROOT);
        root.setId("main-window");
        MenuBar menus = menus();
        ToolBar toolbar = toolbar();
        root.setTop(new VBox(menus, toolbar));

        tabs.setId("view-tabs");
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        tabs.getTabs().addAll(tab("Events", "tab-events", events), tab("Scope tree", "tab-scopes", scopes),
                tab("Slot map", "tab-slots", slots), tab("Pool histograms", "tab-pools", pools));
        split.setOrientation(Orientation.VERTICAL);
        split.getItems().addAll(timeline, tabs);
        split.setDividerPositions(prefs.divider());
        root.setCenter(split);

        statusBar.setId("status-bar");
        statusBar.setText("");
        deviceLabel.setId("status-device");
        eventsLabel.setId("status-events");
        rateLabel.setId("status-rate");
        droppedLabel.setId("status-dropped");
        rangeLabel.setId("status-range");
        cancelLoad.setId("cancel-load");
        cancelLoad.setVisible(false);
        cancelLoad.setManaged(false);
        statusBar.getLeftItems().add(cancelLoad);
        statusBar.getRightItems().addAll(deviceLabel, new Separator(Orientation.VERTICAL), eventsLabel,
                new Separator(Orientation.VERTICAL), rateLabel, new Separator(Orientation.VERTICAL), droppedLabel,
                new Separator(Orientation.VERTICAL), rangeLabel);
        root.setBottom(statusBar);

        scene = new Scene(root);
        scene.getStylesheets().add(css(Styles.BASE_CSS));
        applyTheme(prefs.dark());
        stage.setScene(scene);
        stage.setTitle("ArenaScope");
        updateStatus();
        updateLiveControls();
        rebuildRecent();
    }

    private static Tab tab(String title, String id, javafx.scene.Node content) {
        Tab t = new Tab(title, content);
        t.setId(id);
        return t;
    }

    private static String css(String resource) {
        var url = MainWindow.class.getResource(resource);
        if (url == null) {
            throw new IllegalStateException("stylesheet missing from the build: " + resource);
        }
        return url.toExternalForm();
    }

    private MenuBar menus() {
        MenuItem newLive = item("New Live Session…", "menu-new-live", KeyCode.N, this::newLiveSession);
        MenuItem listen = item("Listen for Processes…", "menu-listen", KeyCode.L, this::listen);
        MenuItem open = item("Open…", "menu-open", KeyCode.O, this::openDialog);
        MenuItem save = item("Save As…", "menu-save", KeyCode.S, this::save);
        Menu export = new Menu("Export");
        export.setId("menu-export");
        export.getItems().addAll(
                item("Perfetto / Chrome trace JSON…", "menu-export-perfetto", null, () -> export(TraceFiles.ExportFormat.PERFETTO)),
                item("CSV…", "menu-export-csv", null, () -> export(TraceFiles.ExportFormat.CSV)),
                item("Report (HTML)…", "menu-export-report", null, () -> export(TraceFiles.ExportFormat.REPORT_HTML)));
        MenuItem compare = item("Compare with…", "menu-compare", null, this::compare);
        MenuItem clearCompare = item("Clear Baseline", "menu-clear-compare", null, () -> model.setBaseline(null, null));
        MenuItem quit = item("Quit", "menu-quit", KeyCode.Q, stage::close);
        Menu file = new Menu("File", null, newLive, listen, new SeparatorMenuItem(), open, recentMenu, save, export,
                new SeparatorMenuItem(), compare, clearCompare, new SeparatorMenuItem(), quit);

        MenuItem start = item("Start / Resume", "menu-start", null, this::startOrResume);
        start.setAccelerator(new KeyCodeCombination(KeyCode.F5));
        MenuItem pause = item("Pause", "menu-pause", null, this::pause);
        pause.setAccelerator(new KeyCodeCombination(KeyCode.F6));
        MenuItem stop = item("Stop", "menu-stop", null, this::stop);
        stop.setAccelerator(new KeyCodeCombination(KeyCode.F7));
        Menu session = new Menu("Session", null, start, pause, stop);

        MenuItem zin = item("Zoom In", "menu-zoom-in", null, () -> zoom(0.5));
        zin.setAccelerator(new KeyCodeCombination(KeyCode.EQUALS, KeyCombination.SHORTCUT_DOWN));
        MenuItem zout = item("Zoom Out", "menu-zoom-out", null, () -> zoom(2));
        zout.setAccelerator(new KeyCodeCombination(KeyCode.MINUS, KeyCombination.SHORTCUT_DOWN));
        MenuItem fit = item("Zoom to Fit", "menu-zoom-fit", null, model::zoomToFit);
        fit.setAccelerator(new KeyCodeCombination(KeyCode.DIGIT0, KeyCombination.SHORTCUT_DOWN));
        MenuItem zsel = item("Zoom to Selection", "menu-zoom-selection", null, this::zoomToSelection);
        zsel.setAccelerator(new KeyCodeCombination(KeyCode.E, KeyCombination.SHORTCUT_DOWN));
        MenuItem clear = item("Clear Selection", "menu-clear-selection", null, this::clearSelection);
        clear.setAccelerator(new KeyCodeCombination(KeyCode.ESCAPE));
        darkItem.setId("menu-dark");
        darkItem.setAccelerator(new KeyCodeCombination(KeyCode.T, KeyCombination.SHORTCUT_DOWN));
        darkItem.setSelected(prefs.dark());
        darkItem.setOnAction(e -> applyTheme(darkItem.isSelected()));
        Menu view = new Menu("View", null, zin, zout, fit, zsel, clear, new SeparatorMenuItem(), darkItem, new SeparatorMenuItem());
        KeyCode[] digits = {KeyCode.DIGIT1, KeyCode.DIGIT2, KeyCode.DIGIT3, KeyCode.DIGIT4};
        for (int i = 0; i < 4; i++) {
            int idx = i;
            MenuItem t = new MenuItem(List.of("Events", "Scope Tree", "Slot Map", "Pool Histograms").get(i));
            t.setAccelerator(new KeyCodeCombination(digits[i], KeyCombination.SHORTCUT_DOWN));
            t.setOnAction(e -> tabs.getSelectionModel().select(idx));
            view.getItems().add(t);
        }
        MenuItem keys = item("Keyboard Shortcuts", "menu-keys", null, this::showShortcuts);
        keys.setAccelerator(new KeyCodeCombination(KeyCode.F1));
        MenuItem about = item("About ArenaScope", "menu-about", null, this::about);
        Menu help = new Menu("Help", null, keys, about);
        recentMenu.setId("menu-recent");
        MenuBar bar = new MenuBar(file, session, view, help);
        bar.setUseSystemMenuBar(true);
        return bar;
    }

    private static MenuItem item(String text, String id, KeyCode shortcut, Runnable action) {
        MenuItem m = new MenuItem(text);
        m.setId(id);
        if (shortcut != null) {
            m.setAccelerator(new KeyCodeCombination(shortcut, KeyCombination.SHORTCUT_DOWN));
        }
        m.setOnAction(e -> action.run());
        return m;
    }

    private ToolBar toolbar() {
        Button newLive = button("New Live", "tb-new-live", "New live session (Ctrl+N)", this::newLiveSession);
        Button open = button("Open", "tb-open", "Open a trace: .astrace, .jsonl, PyTorch .pickle (Ctrl+O)", this::openDialog);
        Button save = button("Save", "tb-save", "Save the session as .astrace or .jsonl (Ctrl+S)", this::save);
        Button export = button("Export", "tb-export", "Export as Perfetto JSON", () -> export(TraceFiles.ExportFormat.PERFETTO));
        Button listen = button("Listen", "tb-listen", "Accept profiled processes streaming over the live protocol (Ctrl+L)", this::listen);
        startButton.setId("tb-start");
        startButton.setOnAction(e -> startOrResume());
        startButton.setTooltip(new Tooltip("Start or resume the live session (F5)"));
        pauseButton.setId("tb-pause");
        pauseButton.setOnAction(e -> pause());
        pauseButton.setTooltip(new Tooltip("Pause the live session (F6)"));
        stopButton.setId("tb-stop");
        stopButton.setOnAction(e -> stop());
        stopButton.setTooltip(new Tooltip("Stop the live session (F7)"));
        followButton.setId("tb-follow");
        followButton.setTooltip(new Tooltip("Keep the newest events in view"));
        Button zin = button("＋", "tb-zoom-in", "Zoom in (Ctrl+=, wheel)", () -> zoom(0.5));
        Button zout = button("－", "tb-zoom-out", "Zoom out (Ctrl+-, wheel)", () -> zoom(2));
        Button fit = button("Fit", "tb-zoom-fit", "Show the whole session (Ctrl+0)", model::zoomToFit);
        liveBadge.getStyleClass().add(Styles.LIVE_BADGE);
        liveBadge.setId("live-badge");
        Label title = new Label();
        title.setId("session-title");
        title.getStyleClass().add(Styles.VIEW_TITLE);
        title.textProperty().bind(Bindings.createStringBinding(() -> model.titleProperty().get()
                + (model.baselineTitleProperty().get().isEmpty() ? "" : "   vs   " + model.baselineTitleProperty().get()),
                model.titleProperty(), model.baselineTitleProperty()));
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        return new ToolBar(newLive, open, save, export, listen, new Separator(), startButton, pauseButton, stopButton,
                followButton, new Separator(), zin, zout, fit, spacer, title, liveBadge);
    }

    private static Button button(String text, String id, String tip, Runnable action) {
        Button b = new Button(text);
        b.setId(id);
        b.setTooltip(new Tooltip(tip));
        b.setOnAction(e -> action.run());
        return b;
    }

    private void initListeners() {
        model.eventCountProperty().addListener((o, a, b) -> updateStatus());
        model.eventsPerSecondProperty().addListener((o, a, b) -> updateStatus());
        model.lostEventsProperty().addListener((o, a, b) -> updateStatus());
        model.selectionProperty().addListener((o, a, b) -> updateStatus());
        model.viewRangeProperty().addListener((o, a, b) -> updateStatus());
        model.deviceProperty().addListener((o, a, b) -> updateStatus());
        model.titleProperty().addListener((o, a, b) -> stage.setTitle(b.isEmpty() ? "ArenaScope" : b + " — ArenaScope"));
        followButton.selectedProperty().bindBidirectional(model.followLiveProperty());
        slots.replannerProperty().set(PlanSlots::replan);
        tasks.addListener(this::updateProgress);
        cancelLoad.setOnAction(e -> {
            if (loading != null) {
                loading.cancel();
            }
        });

        scene.setOnDragOver(e -> {
            if (e.getDragboard().hasFiles()) {
                e.acceptTransferModes(TransferMode.COPY);
            }
            e.consume();
        });
        scene.setOnDragDropped(e -> {
            List<File> files = e.getDragboard().getFiles();
            if (files != null && !files.isEmpty()) {
                open(files.get(0).toPath());
                e.setDropCompleted(true);
            }
            e.consume();
        });
        scene.setOnKeyPressed(e -> {
            if (e.getTarget() instanceof javafx.scene.control.TextInputControl) {
                return;
            }
            TimeRange r = model.viewRangeProperty().get();
            switch (e.getCode()) {
                case LEFT -> model.pan(-r.duration() / 8);
                case RIGHT -> model.pan(r.duration() / 8);
                case ADD, PLUS -> zoom(0.5);
                case SUBTRACT -> zoom(2);
                case HOME -> model.zoomToFit();
                default -> {
                    return;
                }
            }
            e.consume();
        });
        stage.setOnCloseRequest(e -> shutdown());
        split.getDividers().get(0).positionProperty().addListener((o, a, b) -> prefs.divider(b.doubleValue()));
    }

    private void updateStatus() {
        deviceLabel.setText(model.deviceProperty().get().isEmpty() ? "no device" : model.deviceProperty().get());
        eventsLabel.setText(String.format(Locale.ROOT, "%,d events", model.eventCountProperty().get()));
        rateLabel.setText(String.format(Locale.ROOT, "%,.0f events/s", model.eventsPerSecondProperty().get()));
        droppedLabel.setText(String.format(Locale.ROOT, "%,d dropped", model.lostEventsProperty().get()));
        TimeRange sel = model.selectionProperty().get();
        rangeLabel.setText(sel == null ? "view " + model.viewRangeProperty().get() : "selected " + sel);
    }

    private void updateProgress() {
        List<TaskRunner.Handle> running = tasks.running();
        TaskRunner.Handle main = loading != null && !loading.isDone() ? loading : null;
        if (main == null && running.isEmpty()) {
            statusBar.setProgress(0);
        }
        cancelLoad.setVisible(main != null);
        cancelLoad.setManaged(main != null);
    }

    private void updateLiveControls() {
        boolean active = live != null && live.isActive();
        LiveSession.State st = live == null ? null : live.stateProperty().get();
        startButton.setDisable(active && st == LiveSession.State.RUNNING);
        pauseButton.setDisable(st != LiveSession.State.RUNNING);
        stopButton.setDisable(!active);
        followButton.setDisable(!active);
        liveBadge.setVisible(active);
        liveBadge.setText(st == LiveSession.State.PAUSED ? "PAUSED" : "LIVE");
    }

    // ---- sessions ---------------------------------------------------------------------------

    /** Starts a live session of {@code choice}'s workload (stopping any running one). */
    public void startLive(NewSessionDialog.Choice choice) {
        stopLiveQuietly();
        Workload w = NewSessionDialog.workload(choice.workload());
        if (w == null) {
            error("New live session", "no workload named '" + choice.workload() + "'");
            return;
        }
        lastChoice = choice;
        LiveSession s = new LiveSession(model, UiExecutor.FX);
        s.stateProperty().addListener((o, a, b) -> {
            updateLiveControls();
            updateProgress();
            if (b == LiveSession.State.FAILED) {
                statusBar.setText("live session failed: " + s.messageProperty().get());
            } else if (b == LiveSession.State.FINISHED || b == LiveSession.State.STOPPED) {
                statusBar.setText(choice.workload() + " " + b.toString().toLowerCase(Locale.ROOT) + ": " + s.messageProperty().get());
            }
        });
        try {
            s.start(w, choice.device(), choice.options());
            live = s;
        } catch (RuntimeException e) {
            error("New live session", e.getMessage());
        }
        updateLiveControls();
        statusBar.setText("live: " + choice.workload() + " on " + choice.device());
        // once the device is open its selection reason arrives: say which device runs the session and,
        // for auto, why (no CUDA driver: the fallback to host must be visible, not only logged)
        s.messageProperty().addListener((o, a, msg) -> {
            if (live == s && s.isActive() && msg != null && !msg.isEmpty()) {
                statusBar.setText(liveStatus(choice.workload(), msg));
                statusBar.setTooltip(new javafx.scene.control.Tooltip(msg)); // the whole reason, sizes included
            }
        });
    }

    /**
     * The status bar's short line for a live session from its device selection reason (see
     * {@code Devices.open}): the device, and for a fallback the cause in a few words, e.g.
     * {@code live: render on host — no CUDA device (no CUDA driver on this machine)}. Short enough to
     * leave the status bar's figures room; the full reason goes in the tooltip.
     */
    static String liveStatus(String workload, String reason) {
        String fallback = "auto: no CUDA device (";
        int end = reason.indexOf("); falling back to ");
        if (reason.startsWith(fallback) && end > fallback.length()) {
            String why = reason.substring(fallback.length(), end);
            int cut = why.lastIndexOf("): ");
            String device = shortDevice(reason.substring(end + "); falling back to ".length()));
            return "live: " + workload + " on " + device + " — no CUDA device (" + (cut >= 0 ? why.substring(cut + 3) : why) + ")";
        }
        boolean auto = reason.startsWith("auto: chose ");
        String chose = auto ? reason.substring("auto: chose ".length())
                : reason.startsWith("chose ") ? reason.substring("chose ".length()) : reason;
        // Devices.describe: "LABEL, X total, Y free"
        return "live: " + workload + " on " + chose.replaceFirst(", [^,]* total, [^,]* free$", "") + (auto ? " (auto)" : "");
    }

    /** "host (amd64, java.lang.foreign), 23.5 GiB total, 20.2 GiB free" -> "host". */
    private static String shortDevice(String described) {
        int paren = described.indexOf(" (");
        int comma = described.indexOf(", ");
        int cut = paren >= 0 && (comma < 0 || paren < comma) ? paren : comma;
        return cut >= 0 ? described.substring(0, cut) : described;
    }

    private void newLiveSession() {
        NewSessionDialog.show(stage, lastChoice).ifPresent(this::startLive);
    }

    private void startOrResume() {
        if (live != null && live.stateProperty().get() == LiveSession.State.PAUSED) {
            live.resume();
        } else if (live == null || !live.isActive()) {
            startLive(lastChoice);
        }
    }

    private void pause() {
        if (live != null) {
            live.pause();
        }
    }

    private void stop() {
        if (live != null) {
            live.stop();
        }
    }

    private void stopLiveQuietly() {
        if (live != null && live.isActive()) {
            live.stop();
            try {
                live.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void listen() {
        listenView().show(stage);
    }

    /** The "Listen for processes" window (created on first use). */
    public ListenView listenView() {
        if (listenView == null) {
            listenView = new ListenView(model, tasks);
        }
        return listenView;
    }

    private void openDialog() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Open a trace");
        fc.getExtensionFilters().addAll(
                new FileChooser.ExtensionFilter("Traces (*.astrace, *.jsonl, *.pickle)", "*.astrace", "*.jsonl", "*.pickle"),
                new FileChooser.ExtensionFilter("Memory plans (*.json)", "*.json"),
                new FileChooser.ExtensionFilter("All files", "*"));
        File f = fc.showOpenDialog(stage);
        if (f != null) {
            open(f.toPath());
        }
    }

    /** Loads {@code file} in the background (progress in the status bar, cancellable) and shows it. */
    public TaskRunner.Handle open(Path file) {
        if (file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json")) {
            return openPlan(file);
        }
        stopLiveQuietly();
        statusBar.setText("Opening " + file.getFileName() + " …");
        statusBar.setProgress(-1);
        loading = tasks.submit(BackgroundTask.of("Opening " + file.getFileName(), p -> TraceFiles.open(file, p))
                .onProgress((fraction, msg, title) -> {
                    statusBar.setProgress(fraction < 0 ? -1 : fraction);
                    statusBar.setText(title + (msg.isEmpty() ? "" : " — " + msg));
                })
                .onSuccess(t -> {
                    loading = null;
                    model.followLiveProperty().set(false);
                    live = null;
                    model.show(t, file.getFileName().toString(), TraceFiles.deviceOf(t));
                    prefs.addRecent(file);
                    rebuildRecent();
                    updateLiveControls();
                    updateProgress();
                    statusBar.setText(String.format(Locale.ROOT, "Opened %s: %,d events, %d memories", file.getFileName(),
                            t.eventCount(), t.memories().size()));
                })
                .onFailure(e -> {
                    loading = null;
                    updateProgress();
                    statusBar.setText("Could not open " + file.getFileName());
                    error("Open " + file.getFileName(), TraceFiles.describe(e));
                })
                .onCancelled(() -> {
                    loading = null;
                    updateProgress();
                    statusBar.setText("Opening " + file.getFileName() + " cancelled");
                }));
        updateProgress();
        return loading;
    }

    /** Opens a memory plan (.json, as {@code arenascope plan} writes it) in the slot map. */
    public TaskRunner.Handle openPlan(Path file) {
        statusBar.setText("Opening plan " + file.getFileName() + " …");
        loading = tasks.submit(BackgroundTask.of("Opening plan " + file.getFileName(), p -> PlanSlots.read(file))
                .onSuccess(arenas -> {
                    loading = null;
                    updateProgress();
                    slots.showPlan(arenas);
                    tabs.getSelectionModel().select(2);
                    prefs.addRecent(file);
                    rebuildRecent();
                    statusBar.setText(String.format(Locale.ROOT, "Opened plan %s: %d arenas, %d tensors", file.getFileName(), arenas.size(),
                            arenas.stream().mapToInt(a -> a.slots().size()).sum()));
                })
                .onFailure(e -> {
                    loading = null;
                    updateProgress();
                    statusBar.setText("Could not open " + file.getFileName());
                    error("Open " + file.getFileName(), TraceFiles.describe(e));
                }));
        updateProgress();
        return loading;
    }

    private void rebuildRecent() {
        recentMenu.getItems().clear();
        for (Path p : prefs.recent()) {
            MenuItem m = new MenuItem(p.getFileName() + "   —   " + p.getParent());
            m.setOnAction(e -> open(p));
            recentMenu.getItems().add(m);
        }
        recentMenu.setDisable(recentMenu.getItems().isEmpty());
    }

    private void save() {
        TraceView t = model.trace();
        if (t == null) {
            return;
        }
        FileChooser fc = new FileChooser();
        fc.setTitle("Save the session");
        fc.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("ArenaScope trace (*.astrace)", "*.astrace"),
                new FileChooser.ExtensionFilter("JSON lines (*.jsonl)", "*.jsonl"));
        fc.setInitialFileName(safeName(model.titleProperty().get()) + ".astrace");
        File f = fc.showSaveDialog(stage);
        if (f != null) {
            runFileTask("Saving " + f.getName(), p -> {
                TraceFiles.save(t, f.toPath(), p);
                return f.toPath();
            });
        }
    }

    private void export(TraceFiles.ExportFormat format) {
        TraceView t = model.trace();
        if (t == null) {
            return;
        }
        FileChooser fc = new FileChooser();
        fc.setTitle("Export " + format.label());
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(format.label(), "*" + format.extension()));
        fc.setInitialFileName(safeName(model.titleProperty().get()) + format.extension());
        File f = fc.showSaveDialog(stage);
        if (f != null) {
            TraceView baseline = model.baselineProperty().get();
            runFileTask("Exporting " + f.getName(), p -> {
                TraceFiles.export(t, baseline, format, f.toPath(), p);
                return f.toPath();
            });
        }
    }

    private void runFileTask(String title, BackgroundTask.Work<Path> work) {
        statusBar.setText(title + " …");
        loading = tasks.submit(BackgroundTask.of(title, work)
                .onProgress((fr, m, ti) -> statusBar.setProgress(fr))
                .onSuccess(p -> {
                    loading = null;
                    updateProgress();
                    statusBar.setText("Wrote " + p);
                })
                .onFailure(e -> {
                    loading = null;
                    updateProgress();
                    error(title, TraceFiles.describe(e));
                })
                .onCancelled(() -> {
                    loading = null;
                    updateProgress();
                }));
        updateProgress();
    }

    private void compare() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Compare with a baseline trace");
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter("Traces", "*.astrace", "*.jsonl", "*.pickle"));
        File f = fc.showOpenDialog(stage);
        if (f != null) {
            compareWith(f.toPath());
        }
    }

    /** Loads {@code file} as the baseline drawn beneath the current session. */
    public void compareWith(Path file) {
        tasks.submit(BackgroundTask.<TraceView>of("Loading baseline " + file.getFileName(), p -> TraceFiles.open(file, p))
                .onSuccess(t -> model.setBaseline(t, file.getFileName().toString()))
                .onFailure(e -> error("Compare with " + file.getFileName(), TraceFiles.describe(e))));
    }

    private static String safeName(String s) {
        String n = s == null ? "" : s.replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("^-+|-+$", "");
        return n.isEmpty() ? "session" : n;
    }

    // ---- view ------------------------------------------------------------------------------

    private void zoom(double factor) {
        TimeRange r = model.viewRangeProperty().get();
        long c = model.cursorProperty().get();
        model.zoom(factor, c >= 0 && r.contains(c) ? c : r.fromNs() + r.duration() / 2);
    }

    private void zoomToSelection() {
        TimeRange s = model.selectionProperty().get();
        if (s != null) {
            model.viewRangeProperty().set(s.clampTo(model.boundsProperty().get()));
        }
    }

    private void clearSelection() {
        model.selectionProperty().set(null);
        model.selectedScopeProperty().set(null);
    }

    /** Switches between the light and the dark theme (remembered). */
    public void applyTheme(boolean dark) {
        scene.getStylesheets().removeAll(css(Styles.LIGHT_CSS), css(Styles.DARK_CSS));
        scene.getStylesheets().add(css(dark ? Styles.DARK_CSS : Styles.LIGHT_CSS));
        root.getStyleClass().remove(Styles.DARK);
        if (dark) {
            root.getStyleClass().add(Styles.DARK);
        }
        timeline.darkProperty().set(dark);
        slots.darkProperty().set(dark);
        pools.darkProperty().set(dark);
        darkItem.setSelected(dark);
        prefs.dark(dark);
    }

    private void showShortcuts() {
        Alert a = new Alert(Alert.AlertType.INFORMATION);
        a.initOwner(stage);
        a.setTitle("Keyboard shortcuts");
        a.setHeaderText("Keyboard and mouse");
        a.setContentText("""
                Ctrl+N  new live session        Ctrl+O  open        Ctrl+S  save
                Ctrl+L  listen for processes    F5 start/resume     F6 pause     F7 stop
                Ctrl+=  zoom in    Ctrl+-  zoom out    Ctrl+0 / Home  zoom to fit
                Ctrl+E  zoom to selection       Esc  clear selection
                ← →  pan     Ctrl+1..4  views   Ctrl+T  dark theme    F1  this help

                Timeline: wheel zooms at the pointer, drag pans, Shift-drag or right-drag
                selects a range, a click sets the cursor, a click on a scope band selects it.""");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    private void about() {
        Alert a = new Alert(Alert.AlertType.INFORMATION, "", ButtonType.OK);
        a.initOwner(stage);
        a.setTitle("About ArenaScope");
        a.setHeaderText("ArenaScope " + Cli.version());
        a.setContentText(aboutText());
        a.getDialogPane().setId("about-box");
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    /** The About box's text: versions of the app and what it runs on. */
    public static String aboutText() {
        return "A visual memory profiler for bump arenas, binned pools and static memory plans.\n\n"
                + "ArenaScope " + Cli.version() + "\n"
                + "Java " + Runtime.version() + " (" + System.getProperty("java.vendor", "?") + ")\n"
                + "JavaFX " + System.getProperty("javafx.runtime.version", "?") + "\n"
                + "ControlsFX " + controlsFxVersion() + "\n"
                + System.getProperty("os.name", "?") + " " + System.getProperty("os.version", "") + " "
                + System.getProperty("os.arch", "");
    }

    private static String controlsFxVersion() {
        String v = StatusBar.class.getPackage().getImplementationVersion();
        return v == null ? "11.2.1" : v;
    }

    private void error(String title, String message) {
        Alert a = new Alert(Alert.AlertType.ERROR, message == null ? "unknown error" : message, ButtonType.OK);
        a.initOwner(stage);
        a.setTitle(title);
        a.setHeaderText(title);
        a.getDialogPane().getStylesheets().addAll(scene.getStylesheets());
        a.show();
    }

    private void shutdown() {
        prefs.save(stage);
        stopLiveQuietly();
        if (listenView != null) {
            listenView.close();
        }
        tasks.shutdown();
    }

    // ---- access for the app, tests and screenshots ---------------------------------------

    public Stage stage() {
        return stage;
    }

    public Scene scene() {
        return scene;
    }

    public SessionModel model() {
        return model;
    }

    public TimelineView timeline() {
        return timeline;
    }

    public EventsView events() {
        return events;
    }

    public ScopeTreeView scopes() {
        return scopes;
    }

    public SlotMapView slots() {
        return slots;
    }

    public PoolView pools() {
        return pools;
    }

    public TabPane tabs() {
        return tabs;
    }

    public StatusBar statusBar() {
        return statusBar;
    }

    public LiveSession live() {
        return live;
    }

    /** Stops the live session and background work (tests). */
    public void dispose() {
        stopLiveQuietly();
        if (listenView != null) {
            listenView.close();
        }
        tasks.shutdown();
    }

    /** Opens an initial session: a file, or the live demo of the render workload. */
    public void startWith(Path file) {
        if (file != null) {
            open(file);
        } else {
            Platform.runLater(() -> startLive(NewSessionDialog.Choice.demo()));
        }
    }

    static Map<String, String> noOptions() {
        return Map.of();
    }
}
