package dev.arenascope.app.ui.slots;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.timeline.TimelinePainter;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * The slot map: a memory plan's tensors as rectangles of offset over step, coloured by role, one band
 * per arena, with the lower bound and the plan's height as lines; "Re-plan" packs the same tensors with
 * the planner and shows the result beside the loaded packing. The session's recorded plan, or a plan
 * file ({@link #showPlan}). Drawn as the timeline is: {@link PlanSlotsDrawList#build} then
 * {@link PlanSlotsPainter}. The allocator's state has its own view, {@link AllocatorView}. FX thread.
 */
public final class PlanSlotsView extends BorderPane {
    private final SessionModel model;
    private final Canvas canvas = new Canvas(600, 300);
    private final Pane holder = new Pane(canvas);
    private final Button replan = new Button("Re-plan");
    private final Label info = new Label();
    private final Label hoverCard = new Label();
    private final ReadOnlyStringWrapper hoverText = new ReadOnlyStringWrapper(this, "hoverText", "");
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private final ObjectProperty<List<SlotArena>> planArenas = new SimpleObjectProperty<>(this, "planArenas", List.of());
    private final ObjectProperty<UnaryOperator<SlotArena>> replanner = new SimpleObjectProperty<>(this, "replanner");
    private final Map<String, SlotArena> replanned = new HashMap<>();
    private PlanSlotsDrawList drawn = PlanSlotsDrawList.build(List.of(), Map.of(), 600, 300);
    private List<SlotArena> fromFile = null;

    public PlanSlotsView(SessionModel model) {
        this.model = model;
        createView();
        initListeners();
    }

    private void createView() {
        setId("slot-view");
        canvas.setId("slot-canvas");
        replan.setId("slot-replan");
        replan.setMinWidth(Region.USE_PREF_SIZE);
        info.setId("slot-info");
        info.setMinWidth(0);
        HBox.setHgrow(info, Priority.SOMETIMES);
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        HBox bar = new HBox(6, replan, spacer, info);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(4, 6, 4, 6));
        setTop(bar);
        hoverCard.getStyleClass().add(Styles.HOVER_CARD);
        hoverCard.setId("slot-hover");
        hoverCard.setManaged(false);
        hoverCard.setVisible(false);
        hoverCard.setMouseTransparent(true);
        holder.getChildren().add(hoverCard);
        holder.setMinSize(100, 80);
        setCenter(holder);
        canvas.widthProperty().bind(holder.widthProperty());
        canvas.heightProperty().bind(holder.heightProperty());
    }

    private void initListeners() {
        canvas.widthProperty().addListener((o, a, b) -> redraw());
        canvas.heightProperty().addListener((o, a, b) -> redraw());
        dark.addListener((o, a, b) -> redraw());
        model.digestProperty().addListener((o, a, b) -> {
            if (fromFile == null) {
                planArenas.set(arenasFromTrace());
            }
        });
        model.traceProperty().addListener((o, a, b) -> {
            // the previous file's hover card must not float over the next one
            hoverCard.setVisible(false);
            hoverText.set("");
            fromFile = null;
            replanned.clear();
            planArenas.set(List.of());
        });
        planArenas.addListener((o, a, b) -> {
            updateControls();
            redraw();
        });
        canvas.setFocusTraversable(true);
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            canvas.requestFocus();
            // not on to the tab pane, whose press takes the focus back (the arrow keys then switched tabs)
            e.consume();
        });
        canvas.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            // the map has the focus after a click: its arrow keys are its own, never the tab pane's
            if (e.getCode() == KeyCode.LEFT || e.getCode() == KeyCode.RIGHT) {
                e.consume();
            }
        });
        replanner.addListener((o, a, b) -> updateControls());
        replan.setOnAction(e -> replanAll());
        canvas.addEventHandler(MouseEvent.MOUSE_MOVED, e -> hover(e.getX(), e.getY()));
        canvas.addEventHandler(MouseEvent.MOUSE_EXITED, e -> {
            hoverCard.setVisible(false);
            hoverText.set("");
        });
        updateControls();
    }

    private void updateControls() {
        replan.setDisable(replanner.get() == null || planArenas.get().isEmpty());
    }

    private List<SlotArena> arenasFromTrace() {
        TraceView t = model.trace();
        var d = model.digestProperty().get();
        if (t == null || d.tensors().isEmpty()) {
            return List.of();
        }
        Map<Integer, String> labels = new HashMap<>();
        for (MemoryInfo m : t.memories()) {
            labels.put(m.id(), m.name() + " · " + TimelinePainter.kindName(m.kind()));
        }
        return SlotArena.byMemory(d.tensors(), labels);
    }

    /** Shows the arenas of a plan file instead of the session's recorded plan. */
    public void showPlan(List<SlotArena> arenas) {
        // a plan file opened after another leaves the trace as it was: the card named a tensor of the plan
        // before and must not float over this one
        hoverCard.setVisible(false);
        hoverText.set("");
        fromFile = arenas;
        replanned.clear();
        planArenas.set(arenas);
    }

    /** Packs every arena again with the {@link #replannerProperty()} (off the FX thread) and shows both. */
    public void replanAll() {
        UnaryOperator<SlotArena> r = replanner.get();
        List<SlotArena> arenas = planArenas.get();
        if (r == null || arenas.isEmpty()) {
            return;
        }
        info.setText("re-planning…");
        model.tasks().submit(BackgroundTask.of("Re-planning", p -> {
            Map<String, SlotArena> out = new HashMap<>();
            for (SlotArena a : arenas) {
                p.checkCancelled();
                out.put(a.label(), r.apply(a));
            }
            return out;
        }).onSuccess(m -> {
            replanned.clear();
            replanned.putAll(m);
            redraw();
        }).onFailure(e -> info.setText("re-plan failed: " + e.getMessage())));
    }

    public void redraw() {
        drawn = PlanSlotsDrawList.build(planArenas.get(), replanned, canvas.getWidth(), canvas.getHeight());
        info.setText(drawn.caption());
        PlanSlotsPainter.paint(canvas.getGraphicsContext2D(), drawn, dark.get() ? Palette.DARK : Palette.LIGHT, dark.get());
    }

    private void hover(double x, double y) {
        String text = drawn.describeAt(x, y);
        hoverText.set(text);
        SlotHints.place(hoverCard, text, x, y, holder.getWidth(), holder.getHeight(), null);
    }

    /** What the hover card says at canvas position {@code (x, y)}. */
    public String describeAt(double x, double y) {
        return drawn.describeAt(x, y);
    }

    /** Hovers at a canvas position (tests) and returns the card's text. */
    public String hoverAt(double x, double y) {
        hover(x, y);
        return hoverText.get();
    }

    public ReadOnlyStringProperty hoverTextProperty() {
        return hoverText.getReadOnlyProperty();
    }

    public BooleanProperty darkProperty() {
        return dark;
    }

    /** The arenas shown (recorded tensors or a plan file). */
    public ObjectProperty<List<SlotArena>> planArenasProperty() {
        return planArenas;
    }

    /** Packs an arena's tensors again; null disables "Re-plan". Runs on a worker thread. */
    public ObjectProperty<UnaryOperator<SlotArena>> replannerProperty() {
        return replanner;
    }

    /** The re-planned arenas by label (empty until "Re-plan"). */
    public Map<String, SlotArena> replanned() {
        return Map.copyOf(replanned);
    }

    public Label infoLabel() {
        return info;
    }

    public Canvas canvas() {
        return canvas;
    }

    /** Where tensor {@code tensorId} was drawn: its centre, or null. */
    public double[] centreOf(String tensorId) {
        return drawn.centreOf(tensorId);
    }
}
