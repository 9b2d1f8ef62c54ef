package dev.arenascope.app.ui;

import java.io.File;
import java.nio.file.Path;
import java.util.List;

import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextInputControl;
import javafx.scene.control.Tooltip;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.util.Duration;

import org.controlsfx.control.StatusBar;

import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.events.EventsView;
import dev.arenascope.app.ui.job.Job;
import dev.arenascope.app.ui.job.RanksView;
import dev.arenascope.app.ui.live.ListenView;
import dev.arenascope.app.ui.live.LiveSession;
import dev.arenascope.app.ui.live.NewSessionDialog;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.pools.PoolView;
import dev.arenascope.app.ui.query.QueryView;
import dev.arenascope.app.ui.scopes.ScopeTreeView;
import dev.arenascope.app.ui.sites.SiteView;
import dev.arenascope.app.ui.slots.PlanSlots;
import dev.arenascope.app.ui.slots.AllocatorView;
import dev.arenascope.app.ui.slots.PlanSlotsView;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.app.ui.timeline.DrawList;
import dev.arenascope.app.ui.timeline.RankLanesView;
import dev.arenascope.app.ui.timeline.TimelineView;
import dev.arenascope.core.trace.TraceView;

/**
 * The ArenaScope window: the occupancy timeline above, the linked views (events, scope tree, slot map,
 * allocator state, pool histograms, sites, query, ranks) below, every view sharing one {@link SessionModel}. This class only builds and wires:
 * the menus ({@link WindowMenus}), toolbar ({@link WindowToolbar}), status bar ({@link StatusLine}),
 * live session ({@link LiveControls}), file actions ({@link FileActions}) and view actions
 * ({@link ViewActions}) each live in their own class. FX thread only.
 */
public final class MainWindow {
    private final Stage stage;
    private final WindowPrefs prefs;
    private final TaskRunner tasks = new TaskRunner(UiExecutor.FX, 2);
    private final SessionModel model = new SessionModel(tasks);
    private final TimelineView timeline = new TimelineView(model);
    private final EventsView events = new EventsView(model);
    private final ScopeTreeView scopes = new ScopeTreeView(model);
    private final PlanSlotsView slots = new PlanSlotsView(model);
    private final AllocatorView allocator = new AllocatorView(model);
    private final PoolView pools = new PoolView(model);
    private final SiteView sites = new SiteView(model);
    private final TaskRunner queries = new TaskRunner(UiExecutor.FX, 1);
    /** Set by {@link #dispose()}: nothing shows the window again. */
    private boolean disposed;
    private final QueryView query = new QueryView(model, queries);
    private final RanksView ranks = new RanksView(model);
    /** Every rank of the job in the timeline's place, while the Ranks view's all-ranks switch is on. */
    private final RankLanesView allRanks = new RankLanesView(model);
    /** The split's upper part: the timeline, or every rank's lanes in its place (the divider stays the same one). */
    private final BorderPane timelineSlot = new BorderPane();
    private final TabPane tabs = new TabPane();
    private final SplitPane split = new SplitPane();
    private final BorderPane root = new BorderPane();
    private final Scene scene = new Scene(root);
    private final StatusLine status = new StatusLine(model, tasks);
    private final DamageBanner damage = new DamageBanner();
    private final WindowDialogs dialogs;
    private final SessionGuard guard;
    private final LiveControls live;
    private final FileActions files;
    private final JobOpener jobs;
    private final ViewActions view = new ViewActions(model, tabs);
    private final WindowMenus menus;
    private ListenView listenView;
    private final Button listeningBadge = new Button();

    public MainWindow(Stage stage, WindowPrefs prefs) {
        this.stage = stage;
        this.prefs = prefs;
        dialogs = new WindowDialogs(stage, scene);
        guard = new SessionGuard(model::trace, () -> model.titleProperty().get(), this::liveStore, dialogs::askDiscard,
                this::saveThen);
        live = new LiveControls(stage, model, status, dialogs, guard);
        timeline.waitingForProperty().bind(live.starting); // a starting live session is not a blank window
        files = new FileActions(stage, model, tasks, status, prefs, live, dialogs, guard, arenas -> {
            slots.showPlan(arenas);
            tabs.getSelectionModel().select(2);
        }, report -> {
            damage.show(report);
            String axis = DamageBanner.timeAxisNotice(model.trace() == null ? null : model.trace().session());
            if (!report.damaged() && axis != null) {
                damage.notice(axis);
            }
        });
        jobs = new JobOpener(stage, tasks, status, live, dialogs, guard, ranks, () -> tabs.getSelectionModel().select(ranksTab()),
                paths -> files.rememberJob(paths));
        files.onJob(jobs::openAsked, jobs::openFolderDialog);
        menus = new WindowMenus(files, live, view, dialogs, this::listen, () -> guard.then(SessionGuard.Action.QUIT, "Quit", stage::close),
                () -> model.setBaseline(null, null),
                this::applyTheme, prefs.dark());
        createView();
        initListeners();
    }

    private void createView() {
        root.getStyleClass().add(Styles.ROOT);
        root.setId("main-window");
        listeningBadge.setId("listening-badge");
        listeningBadge.getStyleClass().add(Styles.LIVE_BADGE);
        listeningBadge.setVisible(false);
        listeningBadge.setManaged(false);
        listeningBadge.setOnAction(e -> listen());
        listeningBadge.setTooltip(new Tooltip("Listening for profiled processes; click to open the Listen window"));
        root.setTop(new VBox(menus.bar(), WindowToolbar.create(model, files, live, view, this::listen, listeningBadge)));
        tabs.setId("view-tabs");
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        tabs.getTabs().addAll(tab("Events", "tab-events", events), tab("Scope tree", "tab-scopes", scopes),
                tab("Slot map", "tab-slots", slots), tab("Allocator", "tab-allocator", allocator), tab("Pool histograms", "tab-pools", pools), tab("Sites", "tab-sites", sites),
                tab("Query", "tab-query", query), tab("Ranks", "tab-ranks", ranks));
        ranks.showSitesProperty().set(() -> tabs.getSelectionModel().select(sitesTab()));
        sites.activeProperty().bind(sitesTab().selectedProperty());
        timeline.whatIfLineProperty().bind(allocator.whatIfLineProperty()); // the allocator's what-if, over the recorded reserved line
        split.setOrientation(Orientation.VERTICAL);
        timelineSlot.setId("timeline-slot");
        timelineSlot.setCenter(timeline);
        split.getItems().addAll(timelineSlot, tabs);
        split.setDividerPositions(prefs.divider());
        VBox.setVgrow(split, Priority.ALWAYS);
        root.setCenter(new VBox(damage, split));
        root.setBottom(status.bar());
        scene.getStylesheets().add(css(Styles.BASE_CSS));
        applyTheme(prefs.dark());
        stage.setScene(scene);
        stage.setTitle("ArenaScope");
    }

    /**
     * A tab whose view is in the scene only while the tab is selected. A tab pane lays out the content of every
     * tab, shown or not, and the views follow the session whether shown or not: a live session's refreshes, ten a
     * second, had the FX thread style and lay out every hidden view's tables (the pool bins, the rank table) for
     * nobody. A view out of the scene still keeps its state current; shown again, it is styled and laid out once.
     */
    private static Tab tab(String title, String id, Node content) {
        Tab t = new Tab(title);
        t.setId(id);
        t.selectedProperty().addListener((o, a, b) -> t.setContent(b ? content : null));
        return t;
    }

    private static String css(String resource) {
        var url = MainWindow.class.getResource(resource);
        if (url == null) {
            throw new IllegalStateException("stylesheet missing from the build: " + resource);
        }
        return url.toExternalForm();
    }

    private void initListeners() {
        model.titleProperty().addListener((o, a, b) -> stage.setTitle(b.isEmpty() ? "ArenaScope" : b + " — ArenaScope"));
        slots.replannerProperty().set(PlanSlots::replan);
        menus.stretchItem.selectedProperty().bindBidirectional(model.stretchBaselineProperty());
        menus.alignByStepItem.selectedProperty().bindBidirectional(model.alignBaselineByStepProperty());
        menus.allRanksItem.selectedProperty().bindBidirectional(ranks.allRanksProperty());
        menus.allRanksItem.disableProperty().bind(ranks.jobProperty().isNull());
        allRanks.byStepProperty().bind(model.alignBaselineByStepProperty());
        allRanks.setOnShowRank(rank -> {
            ranks.allRanksProperty().set(false);
            ranks.showRank(rank);
        });
        ranks.allRanksProperty().addListener((o, a, b) -> showAllRanks(b));
        ranks.jobProperty().addListener((o, a, b) -> {
            if (b != null && ranks.allRanksProperty().get()) {
                allRanks.show(RanksView.lanesOf(b)); // a listened job's refresh: rows and lanes follow the processes
            }
        });
        model.traceProperty().addListener((o, a, b) -> damage.show(null)); // a file's damage notice goes with it
        scene.setOnDragOver(e -> {
            if (e.getDragboard().hasFiles()) {
                e.acceptTransferModes(TransferMode.COPY);
            }
            e.consume();
        });
        scene.setOnDragDropped(e -> {
            List<File> dropped = e.getDragboard().getFiles();
            if (dropped != null && !dropped.isEmpty()) {
                List<Path> paths = dropped.stream().map(File::toPath).toList();
                if (Job.isJob(paths)) {
                    jobs.openAsked(paths); // many files or a folder: one rank each
                } else {
                    Path p = paths.getFirst();
                    guard.then(SessionGuard.Action.OPEN_FILE, "Open " + p.getFileName(), () -> open(p));
                }
                e.setDropCompleted(true);
            }
            e.consume();
        });
        scene.setOnKeyPressed(e -> {
            if (e.getTarget() instanceof TextInputControl) {
                return;
            }
            switch (e.getCode()) {
                case LEFT -> view.pan(-1);
                case RIGHT -> view.pan(1);
                case ADD, PLUS -> view.zoomIn();
                case SUBTRACT -> view.zoomOut();
                case HOME -> view.zoomToFit();
                default -> {
                    return;
                }
            }
            e.consume();
        });
        stage.setOnCloseRequest(e -> {
            if (guard.check(SessionGuard.Action.QUIT) == null) {
                shutdown();
                return;
            }
            e.consume();    // the window stays until the user answered
            guard.then(SessionGuard.Action.QUIT, "Quit", () -> {
                shutdown();
                stage.close();
            });
        });
        split.getDividers().get(0).positionProperty().addListener((o, a, b) -> prefs.divider(b.doubleValue()));
    }

    /** Puts every rank's lanes ({@code on}) or the shown rank's timeline in the timeline's place, the divider kept. */
    private void showAllRanks(boolean on) {
        Job j = ranks.jobProperty().get();
        if (on && j != null) {
            allRanks.show(RanksView.lanesOf(j));
        }
        Node want = on && j != null ? allRanks : timeline;
        if (timelineSlot.getCenter() != want) {
            timelineSlot.setCenter(want);
        }
    }

    private void listen() {
        listenView().show(stage);
    }

    /** The "Listen for processes" window (created on first use). */
    public ListenView listenView() {
        if (listenView == null) {
            listenView = new ListenView(model, tasks);
            ranks.follow(listenView); // a listened job of many processes fills the Ranks view
            listenView.listeningProperty().addListener((o, a, b) -> {
                boolean on = !b.isEmpty();
                listeningBadge.setText(on ? "● LISTENING " + b : "");
                listeningBadge.setVisible(on);
                listeningBadge.setManaged(on);
            });
        }
        return listenView;
    }

    /** The toolbar badge shown while listening for processes. */
    Button listeningBadge() {
        return listeningBadge;
    }

    /** Loads {@code file} in the background (progress in the status bar, cancellable) and shows it. */
    public TaskRunner.Handle open(Path file) {
        return files.open(file);
    }

    /**
     * Opens a job: several traces or folders of them, one rank each (imported in parallel in the
     * background, progress in the status bar, cancellable); the Ranks view shows it, the window the worst rank.
     */
    public TaskRunner.Handle openJob(List<Path> filesOrFolders) {
        return jobs.open(filesOrFolders);
    }

    /** Opens a memory plan (as {@code arenascope plan} writes it) in the slot map. */
    public TaskRunner.Handle openPlan(Path file) {
        return files.openPlan(file);
    }

    /** Loads {@code file} as the baseline drawn beneath the current session. */
    public void compareWith(Path file) {
        files.compareWith(file);
    }

    /** Starts a live session of {@code choice}'s workload (stopping any running one). */
    public void startLive(NewSessionDialog.Choice choice) {
        live.start(choice);
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
        allocator.darkProperty().set(dark);
        pools.darkProperty().set(dark);
        sites.darkProperty().set(dark);
        ranks.darkProperty().set(dark);
        allRanks.darkProperty().set(dark);
        menus.showDark(dark);
        prefs.dark(dark);
    }

    /** The live session's store, or null when a file is shown (the guard's view of the live session). */
    private TraceView liveStore() {
        LiveSession s = live.live();
        return s == null ? null : s.store();
    }

    private void saveThen(Runnable after) {
        files.saveThen(after);
    }

    private void shutdown() {
        prefs.save(stage);
        dispose();
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

    public PlanSlotsView slots() {
        return slots;
    }

    /** The allocator state view: a memory's address map at an instant, and a PyTorch snapshot's what-if. */
    public AllocatorView allocator() {
        return allocator;
    }

    public PoolView pools() {
        return pools;
    }

    /** The Site view: who holds the memory (flame graph and tree table). */
    public SiteView sites() {
        return sites;
    }

    public TabPane tabs() {
        return tabs;
    }

    /** Every rank's lanes at once, in the timeline's place while the Ranks view's all-ranks switch is on. */
    public RankLanesView allRanksTimeline() {
        return allRanks;
    }

    /** The Ranks view: a job's rank table. */
    public RanksView ranks() {
        return ranks;
    }

    /** The Ranks view's tab (found by its id). */
    public Tab ranksTab() {
        return tabs.getTabs().stream().filter(t -> "tab-ranks".equals(t.getId())).findFirst().orElseThrow();
    }

    /** The Sites view's tab (its place among the tabs is no contract: found by its id). */
    public Tab sitesTab() {
        return tabs.getTabs().stream().filter(t -> "tab-sites".equals(t.getId())).findFirst().orElseThrow();
    }

    /** The notice above the timeline saying what a damaged file lost (hidden for sound files). */
    DamageBanner damageBanner() {
        return damage;
    }

    public StatusBar statusBar() {
        return status.bar();
    }

    public LiveSession live() {
        return live.live();
    }

    /**
     * Whether the window shows everything asked of it so far: every background task has ended and its
     * result is applied ({@link TaskRunner#settled()}), the timeline's frame is the latest asked for, and
     * neither the Events nor the Sites view waits to list or answer ({@link EventsView#settled()},
     * {@link SiteView#settled()}). A live session's stream keeps it unsettled. FX thread; the window's
     * tests wait on it beside the state they then assert, so that they never read a state half-built.
     */
    public boolean settled() {
        return tasks.settled() && timeline.settled() && events.settled() && sites.settled() && ranks.settled() && allRanks.settled();
    }

    /** Stops the live session and background work (tests). */
    public void dispose() {
        disposed = true;
        live.stopQuietly();
        ranks.dispose();
        allRanks.dispose();
        if (listenView != null) {
            listenView.close();
        }
        tasks.shutdown();
        queries.shutdown();
        timeline.dispose();
        Thread.ofPlatform().daemon().name("arenascope-sql-close").start(query::dispose); // waits out a running query
    }

    /** Opens an initial session: a file, or the live demo of the render workload. */
    public void startWith(Path file) {
        startWith(file == null ? List.of() : List.of(file));
    }

    /** Opens an initial session: a file, a job (several files, a folder), or with none the live demo of the render workload. */
    public void startWith(List<Path> paths) {
        if (Job.isJob(paths)) {
            openJob(paths);
        } else if (!paths.isEmpty()) {
            open(paths.getFirst());
        } else {
            Platform.runLater(() -> live.start(NewSessionDialog.Choice.demo()));
        }
    }

    /**
     * Shows the window on its first session (the app's start). A file or a job shows the window at once, its
     * progress in the status bar. The live demo starts before the window shows: its device opens and its
     * workload makes its first memory while the window's styles and layout are computed at the stage's size,
     * and the window appears once the timeline has drawn that memory's lane, or after {@code wait} (a device
     * slow to answer), or when the session ended first. So the first frame a user sees is the session (its
     * lane, the LIVE badge, the live status line), not a window painted white while its first pulse styles
     * every view and then an empty timeline. FX thread.
     */
    public void showFirst(List<Path> paths, Duration wait) {
        if (!paths.isEmpty()) {
            stage.show();
            startWith(paths);
            return;
        }
        live.start(NewSessionDialog.Choice.demo());
        // the styles (every view's skin) and the layout a first pulse would do, done while hidden: the
        // timeline then knows its width and builds its first frame at it
        root.resize(stage.getWidth(), stage.getHeight());
        root.applyCss();
        root.layout();
        PauseTransition fallback = new PauseTransition(wait);
        boolean[] shown = {false};
        Runnable show = () -> {
            fallback.stop();
            // once: a window the user (or dispose) closed afterwards is never shown again by the session's end
            if (!shown[0] && !disposed) {
                shown[0] = true;
                stage.show();
            }
        };
        ChangeListener<DrawList> drawn = new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends DrawList> o, DrawList a, DrawList d) {
                LiveSession s = live.live();
                if (d != null && !d.lanes().isEmpty() || s == null || !s.isActive()) {
                    timeline.drawListProperty().removeListener(this);
                    Platform.runLater(show); // once the timeline has painted the frame and put its note away
                }
            }
        };
        timeline.drawListProperty().addListener(drawn);
        fallback.setOnFinished(e -> {
            timeline.drawListProperty().removeListener(drawn);
            show.run();
        });
        LiveSession s = live.live();
        if (s == null || !s.isActive()) {
            show.run(); // the demo could not start: the window shows its error at once
            return;
        }
        s.stateProperty().addListener(new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends LiveSession.State> o, LiveSession.State a, LiveSession.State b) {
                if (!s.isActive()) {
                    s.stateProperty().removeListener(this);
                    show.run();
                }
            }
        });
        fallback.play();
    }
}
