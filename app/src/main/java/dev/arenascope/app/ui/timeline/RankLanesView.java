package dev.arenascope.app.ui.timeline;

import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.geometry.Orientation;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.ScrollBar;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Pane;
import javafx.scene.shape.Rectangle;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.task.UiExecutor;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.TraceView;

/**
 * All ranks in the timeline: every rank of a job, its lanes grouped under a header with its name, on one
 * byte axis ({@link RankLanes}) and one x axis, the shown rank's time and view range (zoom and pan as in the
 * timeline), the other ranks aligned to it by step where they share {@code ProfilerStep#N} marks. The canvas
 * is the viewport's size and a scroll bar moves over the stack: a frame is built off the FX thread for the
 * lanes in view only and painted in one pass, so a job of 64 ranks costs what a screenful of lanes costs.
 * Wheel scrolls the ranks (Ctrl-wheel zooms), drag pans, a click on a rank's header shows that rank. FX thread.
 */
public final class RankLanesView extends BorderPane {
    private final SessionModel model;
    private final TaskRunner frames = new TaskRunner(UiExecutor.FX, 1);
    private final Canvas canvas = new Canvas(800, 400);
    private final Pane holder = new Pane(canvas);
    private final ScrollBar bar = new ScrollBar();
    private final ReadOnlyObjectWrapper<RankLanesFrame> frame = new ReadOnlyObjectWrapper<>(this, "frame");
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private final BooleanProperty byStep = new SimpleBooleanProperty(this, "byStep", true);
    private RankLanes layout = RankLanes.of(List.of());
    private Consumer<String> onShowRank = r -> { };
    private boolean building;
    private boolean pending;
    private int paintedLanes;
    private double lastDragX;
    private boolean dragged;

    public RankLanesView(SessionModel model) {
        this.model = model;
        createView();
        initListeners();
    }

    private void createView() {
        setId("all-ranks-timeline");
        getStyleClass().add(Styles.TIMELINE);
        canvas.setId("all-ranks-canvas");
        bar.setId("all-ranks-scroll");
        bar.setOrientation(Orientation.VERTICAL);
        bar.setMin(0);
        holder.setMinSize(100, 80);
        Rectangle clip = new Rectangle();
        clip.widthProperty().bind(holder.widthProperty());
        clip.heightProperty().bind(holder.heightProperty());
        holder.setClip(clip); // the canvas follows the viewport's size a frame late: never drawn past it
        setCenter(holder);
        setRight(bar);
        setMinSize(200, 120);
    }

    private void initListeners() {
        holder.widthProperty().addListener((o, a, b) -> resized());
        holder.heightProperty().addListener((o, a, b) -> resized());
        bar.valueProperty().addListener((o, a, b) -> requestFrame());
        model.viewRangeProperty().addListener((o, a, b) -> requestFrame());
        model.traceProperty().addListener((o, a, b) -> requestFrame());
        model.revisionProperty().addListener((o, a, b) -> requestFrame());
        model.cursorProperty().addListener((o, a, b) -> repaint());
        byStep.addListener((o, a, b) -> requestFrame());
        dark.addListener((o, a, b) -> repaint());
        canvas.addEventHandler(ScrollEvent.SCROLL, e -> {
            if (e.getDeltaY() == 0) {
                return;
            }
            RankLanesFrame f = frame.get();
            if (e.isControlDown() && f != null) {
                model.followLiveProperty().set(false);
                model.zoom(TimelineView.wheelFactor(e.getDeltaY()), f.timeAt(e.getX()));
            } else {
                scrollBy(-e.getDeltaY());
            }
            e.consume();
        });
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            lastDragX = e.getX();
            dragged = false;
        });
        canvas.addEventHandler(MouseEvent.MOUSE_DRAGGED, e -> {
            RankLanesFrame f = frame.get();
            if (f == null) {
                return;
            }
            double dx = e.getX() - lastDragX;
            if (Math.abs(dx) > 0) {
                dragged = true;
            }
            lastDragX = e.getX();
            model.followLiveProperty().set(false);
            model.pan(-Math.round(dx * f.range().duration() / f.width()));
        });
        canvas.addEventHandler(MouseEvent.MOUSE_RELEASED, e -> {
            RankLanesFrame f = frame.get();
            if (f == null || dragged) {
                return;
            }
            RankLanes.Group g = layout.headerAt(contentY(e.getY()));
            if (g != null && g.rank().store() != null) {
                onShowRank.accept(g.rank().name());
            } else {
                model.cursorProperty().set(f.timeAt(e.getX()));
            }
        });
    }

    /** Shows {@code ranks}, in that order (the job's), and draws the lanes in view. */
    public void show(List<RankLanes.Rank> ranks) {
        layout = RankLanes.of(ranks);
        updateBar();
        requestFrame();
    }

    /** The layout shown (every rank's group and lanes). */
    public RankLanes rankLanes() {
        return layout;
    }

    /** What a click on a rank's header does with the rank's name (the window shows that rank). */
    public void setOnShowRank(Consumer<String> action) {
        this.onShowRank = action == null ? r -> { } : action;
    }

    /** Whether ranks sharing steps with the shown one are aligned by step (else at their start). */
    public BooleanProperty byStepProperty() {
        return byStep;
    }

    public BooleanProperty darkProperty() {
        return dark;
    }

    /** The vertical scroll bar over the ranks. */
    public ScrollBar scrollBar() {
        return bar;
    }

    /** Scrolls so that rank {@code name}'s header is at the top (as far as the stack allows). */
    public void scrollTo(String name) {
        RankLanes.Group g = layout.group(name);
        if (g != null) {
            bar.setValue(Math.min(bar.getMax(), g.top()));
        }
    }

    /** Scrolls the ranks by {@code dy} px (positive: down). */
    public void scrollBy(double dy) {
        bar.setValue(Math.max(bar.getMin(), Math.min(bar.getMax(), bar.getValue() + dy)));
    }

    private double viewHeight() {
        return Math.max(1, holder.getHeight() - RankLanesPainter.AXIS);
    }

    private double contentY(double canvasY) {
        return bar.getValue() + canvasY - RankLanesPainter.AXIS;
    }

    private void resized() {
        updateBar();
        requestFrame();
    }

    private void updateBar() {
        double max = Math.max(0, layout.height() - viewHeight());
        bar.setMax(max);
        bar.setVisibleAmount(max <= 0 ? 1 : Math.max(1, max * viewHeight() / layout.height()));
        bar.setUnitIncrement(RankLanes.LANE_LABEL + RankLanes.LANE_GAUGE);
        bar.setBlockIncrement(viewHeight());
        bar.setDisable(max <= 0);
        if (bar.getValue() > max) {
            bar.setValue(max);
        }
    }

    /** Asks for a new frame; one is built at a time, the latest request wins. */
    public void requestFrame() {
        if (building) {
            pending = true;
            return;
        }
        TraceView reference = model.trace();
        TimeRange range = model.viewRangeProperty().get();
        if (reference == null || range == null || layout.groups().isEmpty()) {
            frame.set(null);
            canvas.getGraphicsContext2D().clearRect(0, 0, canvas.getWidth(), canvas.getHeight());
            paintedLanes = 0;
            return;
        }
        RankLanes l = layout;
        int width = (int) Math.max(100, holder.getWidth() > 0 ? holder.getWidth() : 800);
        double scrollY = bar.getValue();
        double vh = viewHeight();
        boolean steps = byStep.get();
        building = true;
        pending = false;
        frames.submit(BackgroundTask.of("all ranks frame", p -> RankLanesFrame.build(l, reference, range, width, scrollY, vh, steps))
                .onSuccess(f -> {
                    building = false;
                    frame.set(f);
                    repaint();
                    if (pending) {
                        requestFrame();
                    }
                })
                .onFailure(e -> {
                    building = false;
                    if (pending) {
                        requestFrame();
                    }
                })
                .onCancelled(() -> building = false));
    }

    /** Paints the last built frame again. */
    public void repaint() {
        RankLanesFrame f = frame.get();
        if (f == null) {
            return;
        }
        double h = Math.max(1, holder.getHeight());
        if (canvas.getWidth() != f.width() || canvas.getHeight() != h) {
            canvas.setWidth(f.width());
            canvas.setHeight(h);
        }
        TraceView t = model.trace();
        TimeAxis time = TimeAxis.of(t == null || t.session() == null ? null : t.session().attributes());
        paintedLanes = RankLanesPainter.paint(canvas.getGraphicsContext2D(), f, dark.get() ? Palette.DARK : Palette.LIGHT, dark.get(), h,
                time, model.cursorProperty().get());
    }

    /** The frame last built (the lanes in view), or null. */
    public ReadOnlyObjectProperty<RankLanesFrame> frameProperty() {
        return frame.getReadOnlyProperty();
    }

    /** How many lanes the last paint drew: those in view, never the whole job. */
    public int paintedLanes() {
        return paintedLanes;
    }

    /** What hovering at canvas {@code (x, y)} would say: the rank, the memory and what it holds there; "" off a lane. */
    public String describe(double x, double y) {
        RankLanesFrame f = frame.get();
        if (f == null) {
            return "";
        }
        double cy = contentY(y);
        int col = (int) Math.floor(x);
        for (RankLanesFrame.LaneColumns lc : f.lanes()) {
            RankLanes.Lane l = lc.lane();
            if (cy >= l.top() && cy < l.bottom() && col >= 0 && col < f.width()) {
                RankLanes.Rank r = layout.groups().get(l.group()).rank();
                return String.format(Locale.ROOT, "%s · %s%nin use %s (%.0f%% of the job's axis, %s)", r.name(), l.memory().name(),
                        TimelineView.exact(lc.usedMax()[col]), 100.0 * lc.usedMax()[col] / layout.axisBytes(), Bytes.format(layout.axisBytes()));
            }
        }
        return "";
    }

    /** Whether no frame is being built or waiting to be. */
    public boolean settled() {
        return !building && !pending && frames.settled();
    }

    public Canvas canvas() {
        return canvas;
    }

    /** Stops the frame worker. */
    public void dispose() {
        frames.shutdown();
    }
}
