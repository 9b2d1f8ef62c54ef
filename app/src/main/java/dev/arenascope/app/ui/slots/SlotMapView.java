package dev.arenascope.app.ui.slots;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
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
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.common.ShownAs;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TensorSlot;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.timeline.TimelinePainter;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * The slot map. For memory plans: every tensor as a rectangle of offset over step, coloured by role,
 * one band per arena, with the lower bound and the plan's height as lines; "Re-plan" packs the same
 * tensors with the search planner and shows the result beside the loaded packing. For arenas, pools and
 * PyTorch's caching allocator: the address map at the selected instant ({@link AddressMapPainter}: for
 * memories with segments, the allocator's state — segments to scale, blocks, free space inside them,
 * rounding waste), stepped event by event with the arrow keys.
 */
public final class SlotMapView extends BorderPane {
    private static final Font SMALL = Font.font("System", 10);
    private static final Font LABEL = Font.font("System", 11);
    private static final double MARGIN_LEFT = 104;
    private static final double BAND_GAP = 26;

    private final SessionModel model;
    private final Canvas canvas = new Canvas(600, 300);
    private final Pane holder = new Pane(canvas);
    private final ToggleButton planMode = new ToggleButton("Plan slots");
    private final ToggleButton addressMode = new ToggleButton("Address map");
    private final ComboBox<MemoryInfo> memory = new ComboBox<>();
    private final Button replan = new Button("Re-plan");
    private final Label info = new Label();
    private final Label hoverCard = new Label();
    private final ReadOnlyStringWrapper hoverText = new ReadOnlyStringWrapper(this, "hoverText", "");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "Slot map");
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private final ObjectProperty<List<SlotArena>> planArenas = new SimpleObjectProperty<>(this, "planArenas", List.of());
    private final ObjectProperty<UnaryOperator<SlotArena>> replanner = new SimpleObjectProperty<>(this, "replanner");
    private final Map<String, SlotArena> replanned = new HashMap<>();
    private final List<Placed> placed = new ArrayList<>();
    private AddressMap.Snapshot addressMap;
    /** The shown memory's replay, kept between steps, and its background build (FX thread). */
    private final KeptReplay kept;
    /** Stepping event by event: the map is after the events before this index; -1 follows the cursor's time. */
    private long stepEnd = -1;
    private boolean stepping;
    private TaskRunner.Handle addressTask;
    private List<SlotArena> fromFile = null;

    /** Where an arena was drawn, for hit testing. */
    private record Placed(SlotArena arena, double x, double y, double w, double h) {}

    public SlotMapView(SessionModel model) {
        this.model = model;
        this.kept = new KeptReplay(model.tasks());
        createView();
        initListeners();
    }

    private void createView() {
        setId("slot-view");
        canvas.setId("slot-canvas");
        ToggleGroup g = new ToggleGroup();
        planMode.setToggleGroup(g);
        addressMode.setToggleGroup(g);
        planMode.setId("slot-plan-mode");
        addressMode.setId("slot-address-mode");
        planMode.setSelected(true);
        memory.setId("slot-memory");
        memory.setPromptText("memory");
        memory.setConverter(ShownAs.converter("", m -> m.name() + " (" + TimelinePainter.kindName(m.kind()) + ")"));
        replan.setId("slot-replan");
        info.setId("slot-info");
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        for (Control c : List.of(planMode, addressMode, replan)) {
            c.setMinWidth(Region.USE_PREF_SIZE);
        }
        info.setMinWidth(0);
        HBox.setHgrow(info, Priority.SOMETIMES);
        HBox bar = new HBox(6, planMode, addressMode, memory, replan, spacer, info);
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
        planMode.selectedProperty().addListener((o, a, b) -> {
            updateControls();
            redraw();
        });
        addressMode.selectedProperty().addListener((o, a, b) -> {
            updateControls();
            recomputeAddressMap();
        });
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
            addressMap = null;
            kept.forget(); // a closed trace's build stops
            memory.getItems().setAll(b == null ? List.of() : b.memories());
            if (!memory.getItems().isEmpty()) {
                memory.getSelectionModel().select(0);
            }
            MemoryInfo allocator = allocatorMemory(b);
            if (allocator != null) {
                // a trace with an allocator and no plan (a PyTorch snapshot, pools) opens on its allocator
                // state, not on "No memory plan in this session"
                memory.getSelectionModel().select(allocator);
                addressMode.setSelected(true);
            }
            prepareReplay();
            planArenas.set(List.of());
        });
        planArenas.addListener((o, a, b) -> {
            if (!b.isEmpty() && addressMode.isSelected() && fromFile != null) {
                planMode.setSelected(true);
            }
            updateControls();
            redraw();
        });
        model.revisionProperty().addListener((o, a, b) -> {
            // a live session announces its memories after it was shown: keep the picker filled
            TraceView t = model.trace();
            if (t != null && memory.getItems().size() != t.memories().size()) {
                MemoryInfo keep = memory.getValue();
                memory.getItems().setAll(t.memories());
                memory.getSelectionModel().select(keep != null && t.memories().contains(keep) ? keep : t.memories().isEmpty() ? null
                        : t.memories().getFirst());
            }
        });
        memory.valueProperty().addListener((o, a, b) -> {
            stepEnd = -1;
            prepareReplay();
            recomputeAddressMap();
        });
        model.cursorProperty().addListener((o, a, b) -> {
            if (!stepping) {
                stepEnd = -1;
                recomputeAddressMap();
            }
        });
        canvas.setFocusTraversable(true);
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            canvas.requestFocus();
            // not on to the tab pane, whose press takes the focus back (the arrow keys then switched tabs)
            e.consume();
        });
        canvas.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            if (!addressMode.isSelected()) {
                // the map has the focus after a click: its arrow keys are its own, never the tab pane's
                // (they switched tabs from under the user)
                if (e.getCode() == KeyCode.LEFT || e.getCode() == KeyCode.RIGHT) {
                    e.consume();
                }
                return;
            }
            switch (e.getCode()) {
                case LEFT -> step(-1);
                case RIGHT -> step(1);
                default -> {
                    return;
                }
            }
            e.consume();
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

    /** The first caching allocator or pool of {@code t} where it records no plan, else null. */
    static MemoryInfo allocatorMemory(TraceView t) {
        if (t == null) {
            return null;
        }
        MemoryInfo first = null;
        for (MemoryInfo m : t.memories()) {
            switch (m.kind()) {
                case PLAN_SCRATCH, PLAN_PERSISTENT, PLAN_CONSTANT -> {
                    return null;
                }
                case SEGMENTED, POOL -> {
                    if (first == null || first.kind() == MemoryKind.POOL && m.kind() == MemoryKind.SEGMENTED) {
                        first = m;
                    }
                }
                default -> { }
            }
        }
        return first;
    }

    /** The tab's title for the mode shown: "Allocator state" in the address map, "Slot map" for a plan. */
    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    private void updateControls() {
        title.set(addressMode.isSelected() ? "Allocator state" : "Slot map");
        memory.setVisible(addressMode.isSelected());
        memory.setManaged(addressMode.isSelected());
        replan.setVisible(planMode.isSelected());
        replan.setManaged(planMode.isSelected());
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
        fromFile = arenas;
        replanned.clear();
        planMode.setSelected(true);
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

    private void recomputeAddressMap() {
        if (!addressMode.isSelected()) {
            return;
        }
        TraceView t = model.trace();
        MemoryInfo m = memory.getValue();
        if (t == null || m == null) {
            addressMap = null;
            redraw();
            return;
        }
        long end = stepEnd;
        long at = end >= 0 ? -1 : model.cursorProperty().get() >= 0 ? model.cursorProperty().get() : defaultInstant(t, m);
        if (addressTask != null) {
            addressTask.cancel();
        }
        info.setText(end >= 0 ? String.format(Locale.ROOT, "replaying to event #%,d…", end - 1) : "replaying to " + TimeAxis.of(m.attributes()).at(at) + "…");
        AddressMapReplay r = kept.keep(t, m);
        TaskRunner.Handle[] self = new TaskRunner.Handle[1];
        self[0] = model.tasks().submit(BackgroundTask.of("Address map", p -> r.moveTo(end >= 0 ? end : t.firstIndexAtOrAfter(at + 1), at,
                        p::isCancelled))
                .onSuccess(s -> {
                    addressMap = s;
                    if (end >= 0 && stepEnd == end) {
                        // a step moves the session's cursor to the event's (effective) time
                        stepping = true;
                        try {
                            model.cursorProperty().set(s.atNs());
                        } finally {
                            stepping = false;
                        }
                    }
                    redraw();
                }));
        addressTask = self[0];
    }

    /** {@link KeptReplay#keep} for the trace open and the memory the map shows. */
    private void prepareReplay() {
        TraceView t = model.trace();
        MemoryInfo m = memory.getValue();
        if (t != null && m != null) {
            kept.keep(t, m);
        }
    }

    /** The kept replay's background build has finished (tests wait for it). */
    public boolean replayPrepared() {
        return kept.prepared();
    }

    /** Events scanned at most for one step (a memory quiet for longer is not stepped over). */
    private static final long STEP_SCAN = 50_000_000L;

    /**
     * Steps the address map one event of its memory forward ({@code direction > 0}) or back, and moves
     * the session's cursor to that event's time (the arrow keys on the map).
     */
    public void step(int direction) {
        TraceView t = model.trace();
        MemoryInfo m = memory.getValue();
        AddressMap.Snapshot s = addressMap;
        if (!addressMode.isSelected() || t == null || m == null || s == null || s.memory().id() != m.id()) {
            return;
        }
        long next = direction > 0 ? AddressMap.nextEnd(t, m, s.end(), STEP_SCAN) : AddressMap.previousEnd(t, m, s.end(), STEP_SCAN);
        if (next == s.end() && direction > 0) {
            return;
        }
        stepEnd = next;
        recomputeAddressMap();
    }

    /** The address map shown (null before the first one is built). */
    public AddressMap.Snapshot addressMapShown() {
        return addressMap;
    }

    public void redraw() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        Palette p = dark.get() ? Palette.DARK : Palette.LIGHT;
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        g.setFill(p.background());
        g.fillRect(0, 0, w, h);
        placed.clear();
        if (planMode.isSelected()) {
            drawPlans(g, p, w, h);
        } else {
            drawAddressMap(g, p, w, h);
        }
    }

    private void drawPlans(GraphicsContext g, Palette p, double w, double h) {
        List<SlotArena> arenas = planArenas.get();
        if (arenas.isEmpty()) {
            info.setText("");
            hint(g, p, w, h, "No memory plan in this session. Record the inference workload or open a plan (.json).");
            return;
        }
        boolean side = !replanned.isEmpty();
        double bandH = Math.max(60, (h - 10 - BAND_GAP * arenas.size()) / arenas.size());
        double colW = side ? (w - MARGIN_LEFT * 2 - 20) / 2 : w - MARGIN_LEFT - 20;
        double y = 8;
        StringBuilder sb = new StringBuilder();
        for (SlotArena a : arenas) {
            SlotArena r = replanned.get(a.label());
            long scale = Math.max(1, Math.max(a.height(), r == null ? 0 : r.height()));
            drawArena(g, p, a, MARGIN_LEFT, y + 16, colW, bandH - 16, scale, a.label() + " — " + a.strategy()
                    + (a.proof().isEmpty() ? "" : ", proof: " + a.proof()));
            if (r != null) {
                drawArena(g, p, r, MARGIN_LEFT * 2 + colW, y + 16, colW, bandH - 16, scale, a.label() + " — re-planned (" + r.strategy()
                        + (r.proof().isEmpty() ? "" : ", proof: " + r.proof()) + ")");
            }
            sb.append(String.format(Locale.ROOT, "%s: %d tensors, height %s, lower bound %s (%.3f×)%s   ", a.label(), a.slots().size(),
                    Bytes.format(a.height()), Bytes.format(a.lowerBound()), a.lowerBound() == 0 ? 1.0 : a.height() / (double) a.lowerBound(),
                    r == null ? "" : String.format(Locale.ROOT, " → %s (%.3f×%s)", Bytes.format(r.height()),
                            r.lowerBound() == 0 ? 1.0 : r.height() / (double) r.lowerBound(),
                            r.proof().isEmpty() ? "" : ", proof: " + r.proof())));
            y += bandH + BAND_GAP;
        }
        info.setText(sb.toString().strip());
    }

    private void drawArena(GraphicsContext g, Palette p, SlotArena a, double x, double y, double w, double h, long scale, String title) {
        placed.add(new Placed(a, x, y, w, h));
        boolean dk = dark.get();
        g.setFill(p.laneBackground());
        g.fillRect(x, y, w, h);
        g.setFont(LABEL);
        g.setFill(p.text());
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.BOTTOM);
        g.fillText(title, x, y - 3);
        double sx = w / Math.max(1, a.steps());
        double sy = h / (double) scale;
        for (TensorSlot s : a.slots()) {
            double rx = x + s.firstStep() * sx;
            double rw = Math.max(1, (s.lastStep() + 1 - s.firstStep()) * sx);
            double ry = y + h - s.end() * sy;
            double rh = Math.max(1, s.bytes() * sy);
            g.setFill(Palette.roleColor(s.role(), dk));
            g.fillRect(rx, ry, rw, rh);
            if (rw > 3 && rh > 3) {
                g.setStroke(p.background());
                g.setLineWidth(0.6);
                g.strokeRect(rx, ry, rw, rh);
            }
        }
        g.setLineWidth(1);
        g.setLineDashes(5, 3);
        g.setStroke(p.highWater());
        double hy = Math.floor(y + h - a.height() * sy) + 0.5;
        g.strokeLine(x, hy, x + w, hy);
        g.setStroke(Color.web("#2e9e5b"));
        double ly = Math.floor(y + h - a.lowerBound() * sy) + 0.5;
        g.strokeLine(x, ly, x + w, ly);
        g.setLineDashes();
        g.setFont(SMALL);
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        g.setFill(p.highWater());
        g.fillText("height " + Bytes.format(a.height()), x - 4, hy);
        g.setFill(Color.web("#2e9e5b"));
        g.fillText("lower " + Bytes.format(a.lowerBound()), x - 4, Math.abs(ly - hy) < 11 ? ly + 11 : ly);
        g.setFill(p.mutedText());
        g.fillText("0", x - 4, y + h - 4);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        g.fillText("step 0", x, y + h + 2);
        g.setTextAlign(TextAlignment.RIGHT);
        g.fillText("step " + (a.steps() - 1), x + w, y + h + 2);
        g.setStroke(p.grid());
        g.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
    }

    private void drawAddressMap(GraphicsContext g, Palette p, double w, double h) {
        AddressMap.Snapshot s = addressMap;
        if (s == null) {
            info.setText("");
            hint(g, p, w, h, model.trace() == null ? "No session." : "Pick a memory; the map shows the selected instant.");
            return;
        }
        info.setText(caption(s));
        AddressMapPainter.paint(g, p, dark.get(), s, w, h);
    }

    /** The map's caption: the instant (the last event applied), segments, blocks, free bytes, waste. */
    static String caption(AddressMap.Snapshot s) {
        long segments = s.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).count();
        long blocks = s.blocks().size() - segments;
        TimeAxis time = TimeAxis.of(s.memory().attributes());
        String when = s.lastEvent() >= 0
                ? String.format(Locale.ROOT, "after event #%,d (%s) at %s", s.lastEvent(), s.lastText(), time.at(s.atNs()))
                : "at " + time.at(s.atNs());
        long pending = s.pendingCount();
        String pendingText = pending > 0 ? String.format(Locale.ROOT, ", %,d pending %s (%s)", pending, pending == 1 ? "free" : "frees",
                Bytes.format(s.pendingBytes())) : "";
        String what = segments > 0
                ? String.format(Locale.ROOT, "%,d segments, %s reserved; %,d blocks%s; %s free in segments, largest %s", segments,
                        Bytes.format(s.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum()),
                        blocks, pendingText, Bytes.format(s.gapBytes()), Bytes.format(s.largestGap()))
                : String.format(Locale.ROOT, "%d blocks%s, %s free in %s, largest gap %s", blocks, pendingText, Bytes.format(s.gapBytes()),
                        Bytes.format(s.extent()), Bytes.format(s.largestGap()));
        long waste = s.wasteBytes();
        return s.memory().name() + " " + when + ": " + what + (waste > 0 ? "; " + Bytes.format(waste) + " lost to rounding" : "")
                + "  ·  ←/→ step event by event";
    }

    /**
     * The instant the address map shows when no cursor is set: where the memory holds the most (found on
     * the store's level-of-detail index, 1,024 buckets), not the session's end, when it is usually empty.
     */
    static long defaultInstant(TraceView t, MemoryInfo m) {
        if (t.eventCount() == 0) {
            return t.endNs();
        }
        var g = t.gauges(m.id(), t.startNs(), t.endNs() + 1, 1024);
        int best = -1;
        long most = -1;
        for (int i = 0; i < g.buckets(); i++) {
            if (g.count()[i] > 0 && g.usedMax()[i] > most) {
                most = g.usedMax()[i];
                best = i;
            }
        }
        return best < 0 ? t.endNs() : Math.min(t.endNs(), g.fromNs() + (best + 1) * g.bucketNs() - 1);
    }

    private void hint(GraphicsContext g, Palette p, double w, double h, String text) {
        g.setFill(p.mutedText());
        g.setFont(Font.font("System", 13));
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.CENTER);
        g.fillText(text, w / 2, h / 2);
    }

    private void hover(double x, double y) {
        String text = describeAt(x, y);
        hoverText.set(text);
        hoverCard.setText(text);
        hoverCard.setVisible(!text.isEmpty());
        if (!text.isEmpty()) {
            hoverCard.autosize();
            double px = x + 14 + hoverCard.getWidth() > getWidth() ? x - hoverCard.getWidth() - 8 : x + 14;
            double py = y + 14 + hoverCard.getHeight() > holder.getHeight() ? y - hoverCard.getHeight() - 8 : y + 14;
            hoverCard.relocate(Math.max(0, px), Math.max(0, py));
        }
    }

    /** What the hover card says at canvas position {@code (x, y)}. */
    public String describeAt(double x, double y) {
        if (planMode.isSelected()) {
            for (Placed pl : placed) {
                if (x >= pl.x() && x < pl.x() + pl.w() && y >= pl.y() && y < pl.y() + pl.h()) {
                    SlotArena a = pl.arena();
                    long scale = 1;
                    for (Placed o : placed) {
                        if (o.y() == pl.y()) {
                            scale = Math.max(scale, o.arena().height());
                        }
                    }
                    double step = (x - pl.x()) / pl.w() * a.steps();
                    double offset = (pl.y() + pl.h() - y) / pl.h() * scale;
                    TensorSlot s = a.at(step, offset);
                    if (s == null) {
                        return "";
                    }
                    return s.id() + "\n"
                            + "size " + Bytes.format(s.bytes()) + String.format(Locale.ROOT, " (%,d B)", s.bytes()) + "\n"
                            + "lifetime steps " + s.firstStep() + " – " + s.lastStep() + "\n"
                            + "binding " + s.roleName() + " · " + a.label() + " · offset " + String.format(Locale.ROOT, "%,d", s.offset());
                }
            }
            return "";
        }
        AddressMap.Snapshot s = addressMap;
        if (s == null) {
            return "";
        }
        return AddressMapPainter.describe(s, canvas.getWidth(), canvas.getHeight(), x, y);
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

    /** The arenas shown in plan mode (recorded tensors or a plan file). */
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

    public ToggleButton addressModeButton() {
        return addressMode;
    }

    public ToggleButton planModeButton() {
        return planMode;
    }

    public ComboBox<MemoryInfo> memorySelector() {
        return memory;
    }

    public Label infoLabel() {
        return info;
    }

    public Canvas canvas() {
        return canvas;
    }

    /** Where arena {@code label}'s tensor {@code id} was drawn: its centre, or null. */
    public double[] centreOf(String tensorId) {
        for (Placed pl : placed) {
            SlotArena a = pl.arena();
            long scale = 1;
            for (Placed o : placed) {
                if (o.y() == pl.y()) {
                    scale = Math.max(scale, o.arena().height());
                }
            }
            for (TensorSlot s : a.slots()) {
                if (s.id().equals(tensorId)) {
                    double cx = pl.x() + (s.firstStep() + s.lastStep() + 1) / 2.0 / a.steps() * pl.w();
                    double cy = pl.y() + pl.h() - (s.offset() + s.bytes() / 2.0) / scale * pl.h();
                    return new double[] {cx, cy};
                }
            }
        }
        return null;
    }
}
