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
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;
import javafx.util.StringConverter;

import dev.arenascope.app.ui.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TensorSlot;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.timeline.Palette;
import dev.arenascope.app.ui.timeline.TimelinePainter;
import dev.arenascope.core.device.Bytes;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * The slot map. For memory plans: every tensor as a rectangle of offset over step, coloured by role,
 * one band per arena, with the lower bound and the plan's height as lines; "Re-plan" packs the same
 * tensors with the search planner and shows the result beside the loaded packing. For arenas and pools:
 * the address map at the selected instant (what holds each byte range, and the gaps).
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
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private final ObjectProperty<List<SlotArena>> planArenas = new SimpleObjectProperty<>(this, "planArenas", List.of());
    private final ObjectProperty<UnaryOperator<SlotArena>> replanner = new SimpleObjectProperty<>(this, "replanner");
    private final Map<String, SlotArena> replanned = new HashMap<>();
    private final List<Placed> placed = new ArrayList<>();
    private AddressMap.Snapshot addressMap;
    private TaskRunner.Handle addressTask;
    private List<SlotArena> fromFile = null;

    /** Where an arena was drawn, for hit testing. */
    private record Placed(SlotArena arena, double x, double y, double w, double h) {}

    public SlotMapView(SessionModel model) {
        this.model = model;
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
        memory.setConverter(new StringConverter<>() {
            @Override
            public String toString(MemoryInfo m) {
                return m == null ? "" : m.name() + " (" + TimelinePainter.kindName(m.kind()) + ")";
            }

            @Override
            public MemoryInfo fromString(String s) {
                return null;
            }
        });
        replan.setId("slot-replan");
        info.setId("slot-info");
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        for (javafx.scene.control.Control c : List.of(planMode, addressMode, replan)) {
            c.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
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
            fromFile = null;
            replanned.clear();
            addressMap = null;
            memory.getItems().setAll(b == null ? List.of() : b.memories());
            if (!memory.getItems().isEmpty()) {
                memory.getSelectionModel().select(0);
            }
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
        memory.valueProperty().addListener((o, a, b) -> recomputeAddressMap());
        model.cursorProperty().addListener((o, a, b) -> recomputeAddressMap());
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
        long at = model.cursorProperty().get() >= 0 ? model.cursorProperty().get() : defaultInstant(t, m);
        if (addressTask != null) {
            addressTask.cancel();
        }
        info.setText("replaying to " + TimeRange.formatTime(at) + "…");
        TaskRunner.Handle[] self = new TaskRunner.Handle[1];
        self[0] = model.tasks().submit(BackgroundTask.of("Address map", p -> AddressMap.at(t, m, at, p::isCancelled))
                .onSuccess(s -> {
                    addressMap = s;
                    redraw();
                }));
        addressTask = self[0];
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
        info.setText(String.format(Locale.ROOT, "%s at %s: %d blocks, %s free in %s, largest gap %s", s.memory().name(),
                TimeRange.formatTime(s.atNs()), s.blocks().size(), Bytes.format(s.gapBytes()), Bytes.format(s.extent()),
                Bytes.format(s.largestGap())));
        int rows = (int) Math.max(1, Math.min(32, (h - 34) / 26));
        double rowH = (h - 34) / rows;
        double x0 = MARGIN_LEFT;
        double rw = w - MARGIN_LEFT - 12;
        double bytesPerRow = s.extent() / (double) rows;
        boolean dk = dark.get();
        g.setFont(SMALL);
        for (int r = 0; r < rows; r++) {
            double y = 10 + r * rowH;
            g.setFill(p.laneBackground());
            g.fillRect(x0, y, rw, rowH - 4);
            g.setStroke(p.grid());
            g.strokeRect(x0 + 0.5, y + 0.5, rw - 1, rowH - 5);
            g.setFill(p.mutedText());
            g.setTextAlign(TextAlignment.RIGHT);
            g.setTextBaseline(VPos.CENTER);
            g.fillText(Bytes.format((long) (r * bytesPerRow)), x0 - 4, y + rowH / 2 - 2);
        }
        double lx = x0;
        double ly = h - 8;
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.CENTER);
        String[] names = {"in use / forward", "backward", "held for reuse", "reserved segment", "free"};
        Color[] colors = {p.forward(), p.backward(), Palette.roleColor(2, dk), p.reserved(), p.laneBackground()};
        for (int k = 0; k < names.length; k++) {
            g.setFill(colors[k]);
            g.fillRect(lx, ly - 4, 10, 8);
            g.setStroke(p.grid());
            g.strokeRect(lx + 0.5, ly - 3.5, 9, 7);
            g.setFill(p.mutedText());
            g.fillText(names[k], lx + 14, ly);
            lx += 24 + names[k].length() * 5.6;
        }
        for (AddressMap.Block b : s.blocks()) {
            double from = b.start() - s.base();
            double to = b.end() - s.base();
            Color c = switch (b.state()) {
                case FORWARD, IN_USE -> p.forward();
                case BACKWARD -> p.backward();
                case HELD -> Palette.roleColor(2, dk);
                case RESERVED -> p.reserved();
            };
            int r0 = (int) Math.max(0, Math.floor(from / bytesPerRow));
            int r1 = (int) Math.min(rows - 1, Math.floor((to - 1) / bytesPerRow));
            for (int r = r0; r <= r1; r++) {
                double rs = Math.max(from, r * bytesPerRow);
                double re = Math.min(to, (r + 1) * bytesPerRow);
                double bx = x0 + (rs - r * bytesPerRow) / bytesPerRow * rw;
                double bw = Math.max(1, (re - rs) / bytesPerRow * rw);
                double y = 10 + r * rowH;
                boolean res = b.state() == AddressMap.State.RESERVED;
                g.setFill(c);
                g.fillRect(bx, res ? y : y + 3, bw, res ? rowH - 4 : rowH - 10);
                if (!res && rs == from && bw >= 3) {
                    // a border at each block's start, so neighbouring blocks do not merge into one
                    g.setStroke(p.background());
                    g.setLineWidth(1);
                    g.strokeLine(Math.floor(bx) + 0.5, y + 3, Math.floor(bx) + 0.5, y + rowH - 7);
                }
            }
        }
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
        if (s == null || x < MARGIN_LEFT) {
            return "";
        }
        double h = canvas.getHeight();
        int rows = (int) Math.max(1, Math.min(32, (h - 34) / 26));
        double rowH = (h - 34) / rows;
        int r = (int) ((y - 10) / rowH);
        if (r < 0 || r >= rows) {
            return "";
        }
        double rw = canvas.getWidth() - MARGIN_LEFT - 12;
        long addr = s.base() + (long) ((r + (x - MARGIN_LEFT) / rw) * (s.extent() / (double) rows));
        AddressMap.Block best = null;
        for (AddressMap.Block b : s.blocks()) {
            if (addr >= b.start() && addr < b.end() && (best == null || b.state() != AddressMap.State.RESERVED)) {
                best = b;
            }
        }
        if (best == null) {
            return "free at " + String.format(Locale.ROOT, "0x%x", addr);
        }
        return best.state().name().toLowerCase(Locale.ROOT) + (best.label().isEmpty() ? "" : " " + best.label()) + "\n"
                + String.format(Locale.ROOT, "0x%x – 0x%x", best.start(), best.end()) + "\n"
                + Bytes.format(best.bytes()) + String.format(Locale.ROOT, " (%,d B)", best.bytes()) + "\n"
                + "since " + TimeRange.formatTime(best.sinceNs());
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
