package dev.arenascope.app.ui.timeline;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableSet;
import javafx.collections.SetChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.skin.ScrollPaneSkin;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.AllocationSelection;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.core.analysis.ScopeAnalysis;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * The occupancy timeline: a canvas with one lane per memory. Frames are built off the FX thread (one
 * at a time; requests made meanwhile collapse into one more) and painted in one pass when they
 * arrive. Mouse: wheel zooms around the pointer, drag pans, shift-drag or right-drag selects a range,
 * a click sets the cursor (and on a scope band selects that scope, on an allocation stripe that
 * allocation and its site). A lane draws its occupancy as a filled area or as allocation stripes
 * ({@link StripeBuilder}), switched in its header; the {@link StripeLegend} above colours and filters them.
 */
public final class TimelineView extends StackPane {
    private final SessionModel model;
    private final TaskRunner frames;
    /** Whether {@link #frames} was made by this view (and so is shut down by {@link #dispose()}). */
    private final boolean ownsFrames;
    private final Canvas canvas = new Canvas(800, 400);
    private final Pane canvasHolder = new Pane(canvas);
    private final ScrollPane scroll = new ScrollPane(canvasHolder);
    private final Label hoverCard = new Label();
    private final Label emptyNote = new Label();
    private final StringProperty waitingFor = new SimpleStringProperty(this, "waitingFor", "");
    private final ReadOnlyObjectWrapper<DrawList> drawList = new ReadOnlyObjectWrapper<>(this, "drawList");
    private final ObjectProperty<WhatIfLine> whatIfLine = new SimpleObjectProperty<>(this, "whatIfLine");
    private final ReadOnlyStringWrapper hoverText = new ReadOnlyStringWrapper(this, "hoverText", "");
    /** Where the pointer last hovered over the canvas (-1: not over it), for the card after a new frame. */
    private double hoverX = -1;
    private double hoverY = -1;
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private boolean building;
    private boolean pending;

    private final Map<Integer, Boolean> stripeChoice = new HashMap<>();
    private final ObjectProperty<SiteAnalysis.By> colourBy =
            new SimpleObjectProperty<>(this, "colourBy", SiteAnalysis.By.SITE);
    private final ObservableSet<String> hiddenGroups = FXCollections.observableSet();
    private final StripeLegend legend;

    private double pressX;
    private double lastDragX;
    private boolean selecting;
    private boolean dragged;

    /** A timeline with a frame worker of its own, stopped by {@link #dispose()}. */
    public TimelineView(SessionModel model) {
        this(model, new TaskRunner(UiExecutor.FX, 1), true);
    }

    /** A timeline whose frames are built on {@code frames}, which the caller owns and shuts down. */
    public TimelineView(SessionModel model, TaskRunner frames) {
        this(model, frames, false);
    }

    private TimelineView(SessionModel model, TaskRunner frames, boolean ownsFrames) {
        this.model = model;
        this.frames = frames;
        this.ownsFrames = ownsFrames;
        this.legend = new StripeLegend(colourBy, hiddenGroups, dark);
        createView();
        initListeners();
    }

    private void createView() {
        getStyleClass().add(Styles.TIMELINE);
        setId("timeline");
        canvas.setId("timeline-canvas");
        scroll.setFitToWidth(true);
        scroll.setHbarPolicy(ScrollPane.ScrollBarPolicy.NEVER);
        scroll.setVbarPolicy(ScrollPane.ScrollBarPolicy.AS_NEEDED);
        scroll.setPannable(false);
        // the scroll pane's skin caches its viewport as an image: each new frame then drew the canvas into the
        // cache and the cache onto the window, the canvas's pixels twice, for a viewport that only ever scrolls
        // vertically over a canvas redrawn whole each frame
        scroll.setSkin(new ScrollPaneSkin(scroll));
        scroll.lookup(".viewport").setCache(false);
        hoverCard.getStyleClass().add(Styles.HOVER_CARD);
        hoverCard.setId("timeline-hover");
        hoverCard.setVisible(false);
        hoverCard.setMouseTransparent(true);
        hoverCard.setManaged(false);
        VBox column = new VBox(legend, scroll);
        VBox.setVgrow(scroll, Priority.ALWAYS);
        emptyNote.setId("timeline-empty");
        emptyNote.getStyleClass().add(Styles.FIGURE_LABEL);
        emptyNote.setMnemonicParsing(false);
        emptyNote.setWrapText(true);
        emptyNote.setMouseTransparent(true);
        emptyNote.setVisible(false);
        getChildren().addAll(column, emptyNote, hoverCard);
        StackPane.setAlignment(emptyNote, Pos.CENTER);
        setMinSize(200, 120);
        StackPane.setAlignment(hoverCard, Pos.TOP_LEFT);
        StackPane.setMargin(hoverCard, new Insets(0));
    }

    private void initListeners() {
        scroll.viewportBoundsProperty().addListener((o, a, b) -> requestFrame());
        model.viewRangeProperty().addListener((o, a, b) -> requestFrame());
        model.revisionProperty().addListener((o, a, b) -> requestFrame());
        model.digestProperty().addListener((o, a, b) -> requestFrame());
        model.selectedScopeProperty().addListener((o, a, b) -> requestFrame());
        model.baselineProperty().addListener((o, a, b) -> requestFrame());
        model.baselinePairingProperty().addListener((o, a, b) -> requestFrame());
        model.stretchBaselineProperty().addListener((o, a, b) -> requestFrame());
        model.alignBaselineByStepProperty().addListener((o, a, b) -> requestFrame());
        waitingFor.addListener((o, a, b) -> updateEmptyNote());
        model.traceProperty().addListener((o, a, b) -> updateEmptyNote());
        model.revisionProperty().addListener((o, a, b) -> updateEmptyNote());
        model.traceProperty().addListener((o, a, b) -> {
            // the previous session's hover card must not stay over the new one
            hoverCard.setVisible(false);
            hoverText.set("");
            stripeChoice.clear();
            hiddenGroups.clear();
        });
        model.sites().revisionProperty().addListener((o, a, b) -> requestFrame());
        model.selectedSiteProperty().addListener((o, a, b) -> requestFrame());
        model.selectedAllocationProperty().addListener((o, a, b) -> repaint());
        colourBy.addListener((o, a, b) -> requestFrame());
        hiddenGroups.addListener((SetChangeListener<String>) c -> requestFrame());
        drawList.addListener((o, a, b) -> {
            legend.show(b);
            // a new frame (a pan, a zoom, new events) under a still pointer: the card describes what is
            // under it now, not what was there before
            if (hoverCard.isVisible() && hoverX >= 0 && b != null) {
                updateHover(hoverX, hoverY);
            }
        });
        model.selectionProperty().addListener((o, a, b) -> repaint());
        model.cursorProperty().addListener((o, a, b) -> repaint());
        dark.addListener((o, a, b) -> repaint());
        whatIfLine.addListener((o, a, b) -> repaint());

        canvas.addEventHandler(ScrollEvent.SCROLL, e -> {
            if (e.getDeltaY() == 0 || drawList.get() == null) {
                return;
            }
            if (e.isControlDown() || !e.isShiftDown()) {
                // one notch (deltaY ±40 on desktops, ±1 on some platforms) zooms by WHEEL_ZOOM
                double factor = wheelFactor(e.getDeltaY());
                model.followLiveProperty().set(false);
                model.zoom(factor, drawList.get().timeAt(e.getX()));
                e.consume();
            }
        });
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            pressX = e.getX();
            lastDragX = e.getX();
            dragged = false;
            selecting = e.isShiftDown() || e.getButton() == MouseButton.SECONDARY;
            canvas.requestFocus();
        });
        canvas.addEventHandler(MouseEvent.MOUSE_DRAGGED, e -> {
            DrawList d = drawList.get();
            if (d == null) {
                return;
            }
            if (Math.abs(e.getX() - pressX) > 2) {
                dragged = true;
            }
            if (selecting) {
                long t0 = d.timeAt(Math.min(pressX, e.getX()));
                long t1 = d.timeAt(Math.max(pressX, e.getX()));
                model.selectionProperty().set(new TimeRange(t0, Math.max(t1, t0 + 1)));
            } else {
                double dx = e.getX() - lastDragX;
                lastDragX = e.getX();
                model.followLiveProperty().set(false);
                model.pan(-Math.round(dx * d.range().duration() / d.width()));
            }
            updateHover(e.getX(), e.getY());
        });
        canvas.addEventHandler(MouseEvent.MOUSE_RELEASED, e -> {
            DrawList d = drawList.get();
            if (d == null || dragged) {
                return;
            }
            DrawList.Lane lane = d.laneAt(e.getY());
            if (lane != null) {
                Boolean toggle = StripePainter.toggleAt(lane, d.width(), e.getX(), e.getY());
                if (toggle != null) {
                    setStripes(lane.memory().id(), toggle);
                    return;
                }
            }
            long t = d.timeAt(e.getX());
            model.cursorProperty().set(t);
            if (lane != null && e.getY() >= lane.bandsTop()) {
                selectBandAt(lane, e.getX(), e.getY());
            } else if (lane != null && lane.stripes() != null && e.getY() >= lane.gaugeTop()) {
                selectStripeAt(lane, e.getX(), e.getY());
            }
        });
        canvas.addEventHandler(MouseEvent.MOUSE_MOVED, e -> updateHover(e.getX(), e.getY()));
        canvas.addEventHandler(MouseEvent.MOUSE_EXITED, e -> {
            hoverCard.setVisible(false);
            hoverText.set("");
            hoverX = -1;
        });
    }

    private void selectBandAt(DrawList.Lane lane, double x, double y) {
        int depth = (int) ((y - lane.bandsTop()) / DrawListBuilder.BAND_ROW);
        for (DrawList.Band b : lane.bands()) {
            if (b.depth() == depth && x >= b.x0() && x <= b.x1()) {
                for (ScopeAnalysis s : model.digestProperty().get().scopes()) {
                    if (s.memory() == lane.memory().id() && s.depth() == depth && s.name().equals(b.name())) {
                        if (s.executionTimes().covers(b.startNs())) {
                            model.selectedScopeProperty().set(s);
                            return;
                        }
                    }
                }
            }
        }
    }

    /** Selects the allocation whose stripe is at {@code (x, y)}, or clears the selection off the stripes. */
    private void selectStripeAt(DrawList.Lane lane, double x, double y) {
        StripeLayer s = lane.stripes();
        int k = s.stripeAt((int) Math.floor(x), (int) Math.floor(y - lane.gaugeTop()));
        if (k < 0) {
            model.selectedAllocationProperty().set(null);
            model.selectedSiteProperty().set(null);
            return;
        }
        int i = s.allocation(k);
        var a = s.analysis().allocationTable();
        List<StackFrame> path = a.pathFrames(a.path(i));
        SiteAnalysis sa = s.analysis();
        // every allocation made at this site, for the site view and the highlight
        var members = sa.members(new SiteQuestion.AllocatedIn(0, sa.endNs()), SiteAnalysis.By.SITE,
                (label, frames) -> frames.equals(path));
        SiteSelection site = new SiteSelection(lane.memory().id(), path.isEmpty() ? "(no site)" : path.getFirst().label(),
                "every allocation made at this site", members);
        model.selectedAllocationProperty().set(new AllocationSelection(lane.memory().id(), i, a.startEvent(i), a.endEvent(i),
                a.bytes(i), a.startNs(i), a.endNs(i), site));
        model.selectedSiteProperty().set(site);
    }

    /**
     * Whether {@code memory}'s lane draws allocation stripes: the user's choice, else stripes for PyTorch
     * snapshots (caching allocators) and pools, the occupancy area for the rest.
     */
    /** Stops the frame worker this view made itself (a window's end); a caller's runner is the caller's to stop. */
    public void dispose() {
        if (ownsFrames) {
            frames.shutdown();
        }
    }

    public boolean stripesOn(MemoryInfo memory) {
        Boolean chosen = stripeChoice.get(memory.id());
        return chosen != null ? chosen : memory.kind() == MemoryKind.SEGMENTED || memory.kind() == MemoryKind.POOL;
    }

    /** Switches {@code memory}'s lane between stripes and the occupancy area (the lane header's switch). */
    public void setStripes(int memory, boolean on) {
        stripeChoice.put(memory, on);
        requestFrame();
    }

    /** The scroll pane the canvas is drawn in (tests: its viewport is not cached). */
    ScrollPane scrollPane() {
        return scroll;
    }

    /** The legend above the lanes (shown while a lane draws stripes). */
    public StripeLegend legend() {
        return legend;
    }

    private StripeOptions stripeOptions(TraceView t) {
        Set<Integer> lanes = new HashSet<>();
        Map<Integer, SiteAnalysis> analyses = new HashMap<>();
        for (MemoryInfo m : t.memories()) {
            if (stripesOn(m)) {
                lanes.add(m.id());
                SiteAnalysis sa = model.sites().get(m);
                if (sa != null) {
                    analyses.put(m.id(), sa);
                }
            }
        }
        if (lanes.isEmpty()) {
            return StripeOptions.NONE;
        }
        return new StripeOptions(lanes, analyses, colourBy.get(), hiddenGroups, model.selectedSiteProperty().get());
    }

    /**
     * What the window waits for before the timeline has anything to draw (a live session starting:
     * "Starting the live session …"), shown over the empty timeline until the first events are drawn, so
     * that the first seconds of a session are not a blank window; empty: nothing is awaited.
     */
    public StringProperty waitingForProperty() {
        return waitingFor;
    }

    /** The note shown over the empty timeline, or "" while it is hidden (tests). */
    public String emptyNoteText() {
        return emptyNote.isVisible() ? emptyNote.getText() : "";
    }

    private void updateEmptyNote() {
        TraceView t = model.trace();
        DrawList d = drawList.get();
        boolean nothingDrawn = t == null || t.eventCount() == 0 || d == null || d.lanes().isEmpty();
        String note = waitingFor.get();
        boolean show = nothingDrawn && note != null && !note.isEmpty();
        emptyNote.setText(show ? note : "");
        emptyNote.setVisible(show);
    }

    /** Asks for a new frame; frames are built one at a time, the latest request wins. */
    public void requestFrame() {
        if (building) {
            pending = true;
            return;
        }
        TraceView t = model.trace();
        if (t == null) {
            drawList.set(null);
            updateEmptyNote();
            canvas.getGraphicsContext2D().clearRect(0, 0, canvas.getWidth(), canvas.getHeight());
            return;
        }
        double vw = scroll.getViewportBounds().getWidth();
        double vh = scroll.getViewportBounds().getHeight();
        int width = (int) Math.max(100, vw > 0 ? vw : getWidth() > 0 ? getWidth() : 800);
        int height = (int) Math.max(100, vh > 0 ? vh : getHeight() > 0 ? getHeight() : 400);
        DrawListBuilder.Frame frame = new DrawListBuilder.Frame(t, model.viewRangeProperty().get(), width, height,
                model.digestProperty().get(), model.selectedScopeProperty().get(), model.baselineProperty().get(),
                model.baselinePairingProperty().get(), model.stretchBaselineProperty().get(), stripeOptions(t),
                model.alignBaselineByStepProperty().get());
        building = true;
        pending = false;
        frames.submit(BackgroundTask.of("timeline frame", p -> {
            return DrawListBuilder.build(frame);
        }).onSuccess(d -> {
            building = false;
            drawList.set(d);
            updateEmptyNote();
            repaint();
            if (pending) {
                requestFrame();
            }
        }).onFailure(e -> {
            building = false;
            if (pending) {
                requestFrame();
            }
        }).onCancelled(() -> building = false));
    }

    /** Paints the last built frame again (selection and cursor changes need no rebuild). */
    public void repaint() {
        DrawList d = drawList.get();
        if (d == null) {
            return;
        }
        if (canvas.getWidth() != d.width() || canvas.getHeight() != d.height()) {
            canvas.setWidth(d.width());
            canvas.setHeight(d.height());
        }
        AllocationSelection sel = model.selectedAllocationProperty().get();
        TimelinePainter.paint(canvas.getGraphicsContext2D(), d, dark.get() ? Palette.DARK : Palette.LIGHT, dark.get(),
                model.selectionProperty().get(), model.cursorProperty().get(), sel == null ? -1 : sel.memory(),
                sel == null ? -1 : sel.allocation());
        WhatIfLinePainter.paint(canvas.getGraphicsContext2D(), d, whatIfLine.get(), dark.get() ? Palette.DARK : Palette.LIGHT, dark.get());
    }

    private void updateHover(double x, double y) {
        DrawList d = drawList.get();
        if (d == null) {
            return;
        }
        hoverX = x;
        hoverY = y;
        String text = describe(d, x, y);
        hoverText.set(text);
        if (text.isEmpty()) {
            hoverCard.setVisible(false);
            return;
        }
        hoverCard.setText(text);
        hoverCard.setVisible(true);
        hoverCard.autosize();
        var p = canvas.localToScene(x, y);
        var local = sceneToLocal(p);
        double px = local.getX() + 14;
        double py = local.getY() + 14;
        if (px + hoverCard.getWidth() > getWidth()) {
            px = local.getX() - hoverCard.getWidth() - 8;
        }
        if (py + hoverCard.getHeight() > getHeight()) {
            py = local.getY() - hoverCard.getHeight() - 8;
        }
        hoverCard.relocate(Math.max(0, px), Math.max(0, py));
    }

    /** How much one wheel notch zooms in (the visible time shrinks by this factor). */
    public static final double WHEEL_ZOOM = 1.5;

    /** The factor the visible time is scaled by for a wheel turn of {@code deltaY} (40 a notch; at least one notch). */
    static double wheelFactor(double deltaY) {
        double notches = Math.signum(deltaY) * Math.max(1, Math.abs(deltaY) / 40.0);
        return Math.pow(1 / WHEEL_ZOOM, notches);
    }

    /** What the tooltip says at canvas position {@code (x, y)}: exact figures with units. */
    public static String describe(DrawList d, double x, double y) {
        DrawList.Lane lane = d.laneAt(y);
        int col = (int) Math.floor(x);
        if (lane == null || col < 0 || col >= d.width()) {
            return "";
        }
        long t0 = d.timeAt(col);
        long t1 = d.timeAt(col + 1);
        StringBuilder sb = new StringBuilder();
        TimeAxis time = TimeAxis.of(lane.memory().attributes()) == TimeAxis.ENTRIES ? TimeAxis.ENTRIES : d.time();
        sb.append(lane.memory().name()).append(" (").append(TimelinePainter.kindName(lane.memory().kind())).append(")\n");
        if (time == TimeAxis.ENTRIES) {
            long e0 = TimeAxis.entry(t0);
            long e1 = TimeAxis.entry(Math.max(t0, t1 - 1));
            sb.append(e1 > e0 ? String.format(Locale.ROOT, "entries %,d – %,d", e0, e1) : time.at(t0));
        } else {
            sb.append("time ").append(time.at(t0));
            if (t1 - t0 > 1) {
                sb.append(" – ").append(time.at(t1));
            }
        }
        sb.append('\n');
        if (y >= lane.top() + lane.gaugeHeight()) {
            int depth = (int) ((y - lane.bandsTop()) / DrawListBuilder.BAND_ROW);
            for (DrawList.Band b : lane.bands()) {
                if (b.depth() == depth && x >= b.x0() && x <= b.x1()) {
                    sb.append("scope ").append(b.name()).append('\n');
                    if (b.folded() > 1) {
                        sb.append(String.format(Locale.ROOT, "%s folded (each under %.0f px); zoom in to see them", Counts.of(b.folded(), "execution"), DrawListBuilder.FOLD_PX)).append('\n');
                    }
                    sb.append("from ").append(time.at(b.startNs())).append(" for ")
                            .append(time.span(b.endNs() - b.startNs())).append('\n');
                    return sb.toString().strip();
                }
            }
        }
        if (lane.stripes() != null && y >= lane.gaugeTop() && y < lane.bandsTop()) {
            StripeLayer s = lane.stripes();
            int slot = s.slotAt(col, (int) Math.floor(y - lane.gaugeTop()));
            if (slot >= 1 || slot == StripeLayer.OTHERS) {
                if (lane.usedMin()[col] >= 0 && (lane.memory().kind() == MemoryKind.POOL || lane.memory().kind() == MemoryKind.SEGMENTED)) {
                    sb.append("in use ").append(Bytes.format(lane.usedMax()[col])).append(", reserved ")
                            .append(Bytes.format(lane.auxMax()[col])).append('\n');
                }
                return sb.append(slot >= 1 ? s.describeStripe(slot - 1) : s.describeOthers(col)).toString();
            }
        }
        if (lane.usedMin()[col] < 0) {
            sb.append("no events yet");
            return sb.toString();
        }
        long lo = lane.usedMin()[col];
        long hi = lane.usedMax()[col];
        MemoryKind k = lane.memory().kind();
        if (k.twoPointer()) {
            // one definition (MemoryKind.forward/backward): used = forward + backward
            sb.append("used (forward + backward) ").append(range(lo, hi)).append('\n');
            boolean steady = lo == hi && lane.auxMin()[col] == lane.auxMax()[col];
            sb.append("forward ").append(exact(lane.forwardLast()[col]))
                    .append(steady ? "" : " at the column's end, at most " + Bytes.format(lane.forwardMax()[col])).append('\n');
            sb.append("backward ").append(range(k.backward(lane.auxMin()[col]), k.backward(lane.auxMax()[col]))).append('\n');
        } else {
            sb.append("in use ").append(range(lo, hi)).append('\n');
            if (k == MemoryKind.POOL || k == MemoryKind.SEGMENTED) {
                sb.append("reserved ").append(exact(lane.auxMax()[col])).append('\n');
            }
        }
        long cap = lane.memory().capacity();
        if (cap > 0) {
            sb.append("capacity ").append(exact(cap)).append(String.format(Locale.ROOT, " (%.1f%% used)", 100.0 * hi / cap)).append('\n');
        }
        sb.append("high-water ").append(exact(lane.peakUsed()));
        if (k.twoPointer() && lane.peakForward() >= 0) {
            sb.append(" used; forward ").append(Bytes.format(lane.peakForward())).append(", backward ").append(Bytes.format(lane.peakAux()));
        }
        sb.append('\n');
        sb.append(lane.count()[col]).append(lane.count()[col] == 1 ? " event" : " events").append(" in this column");
        for (DrawList.MarkerMark m : lane.markers()) {
            if (Math.abs(m.x() - x) <= DrawListBuilder.FOLD_PX) {
                sb.append('\n').append(m.text()).append(m.count() > 1 ? " (+" + (m.count() - 1) + " more)" : "");
            }
        }
        return sb.toString();
    }

    private static String range(long lo, long hi) {
        return lo == hi ? exact(hi) : exact(lo) + " – " + exact(hi);
    }

    /** {@code 1.50 MiB (1,572,864 B)}. */
    public static String exact(long bytes) {
        return bytes < 1024 ? bytes + " B" : Bytes.format(bytes) + String.format(Locale.ROOT, " (%,d B)", bytes);
    }

    public ReadOnlyObjectProperty<DrawList> drawListProperty() {
        return drawList.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty hoverTextProperty() {
        return hoverText.getReadOnlyProperty();
    }

    /** A what-if's reserved line drawn over its lane's recorded one (the allocator state view's), or null. */
    public ObjectProperty<WhatIfLine> whatIfLineProperty() {
        return whatIfLine;
    }

    public BooleanProperty darkProperty() {
        return dark;
    }

    public Canvas canvas() {
        return canvas;
    }

    /** Whether no frame is being built or waiting to be (the shown frame is the latest asked for). */
    public boolean idle() {
        return !building && !pending;
    }

    /** Whether the frame shown is the latest asked for and applied ({@link #idle()}, its callback run too). FX thread. */
    public boolean settled() {
        return idle() && frames.settled();
    }

    /** Simulates hovering at a canvas position (tests, keyboard). */
    public String hoverAt(double x, double y) {
        updateHover(x, y);
        return hoverText.get();
    }
}
