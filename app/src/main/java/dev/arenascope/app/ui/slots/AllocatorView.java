package dev.arenascope.app.ui.slots;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.text.Text;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.common.ShownAs;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.app.ui.timeline.TimelinePainter;
import dev.arenascope.app.ui.timeline.WhatIfLine;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.pool.torch.AllocatorSettings;
import dev.arenascope.core.pool.torch.CachingAllocatorModel;
import dev.arenascope.core.pool.torch.WhatIfReplay;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * The allocator's state at an instant: the address map of one memory (for a PyTorch caching allocator
 * or a pool, its segments to scale, the blocks in use, pending frees, held blocks, rounding waste and the
 * free space inside segments), at the session's cursor or stepped event by event with the arrow keys
 * after a click on the map. For a PyTorch snapshot, a what-if: the caching allocator model's replay of
 * the file under other settings ({@link AllocatorWhatIf}, the replay {@code arenascope whatif} makes)
 * drawn under the recorded map at the same instant, its figures in the what-if bar and its reserved line
 * on the timeline ({@link #whatIfLineProperty}). Drawn as the timeline is: {@link AddressMapDrawList#build}
 * then {@link AddressMapPainter}. FX thread.
 */
public final class AllocatorView extends BorderPane {
    private final SessionModel model;
    private final Canvas canvas = new Canvas(600, 300);
    private final Pane holder = new Pane(canvas);
    private final ComboBox<MemoryInfo> memory = new ComboBox<>();
    private final ToggleButton whatIfButton = new ToggleButton("What-if…");
    private final CheckBox expandable = new CheckBox("expandable_segments");
    private final ComboBox<String> maxSplit = choice("max_split_size_mb", "64", "128", "256", "512");
    private final ComboBox<String> roundup = choice("roundup_power2_divisions", "2", "4", "8", "16");
    private final ComboBox<String> gcThreshold = choice("garbage_collection_threshold", "0.6", "0.8");
    private final TextField capacity = new TextField();
    private final Label whatIfInfo = new Label();
    private final HBox whatIfBar;
    private final Label info = new Label();
    private final Label hoverCard = new Label();
    private final ReadOnlyStringWrapper hoverText = new ReadOnlyStringWrapper(this, "hoverText", "");
    /** Where the pointer last hovered over the map (canvas coordinates), NaN once it left: the card follows a step there. */
    private double hoverX = Double.NaN;
    private double hoverY = Double.NaN;
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private final ObjectProperty<WhatIfLine> whatIfLine = new SimpleObjectProperty<>(this, "whatIfLine");
    private final ReadOnlyObjectWrapper<AllocatorWhatIf.Result> whatIf = new ReadOnlyObjectWrapper<>(this, "whatIf");
    private AddressMap.Snapshot addressMap;
    private AddressMap.Snapshot whatIfMap;
    private AddressMapDrawList drawn;
    private AddressMapDrawList drawnWhatIf;
    /** The shown memory's replay, kept between steps, and its background build (FX thread). */
    private final KeptReplay kept;
    /** The open snapshot made ready for what-ifs (read again from its file, on first use), and for which file. */
    private AllocatorWhatIf prepared;
    private Path preparedFor;
    private String whatIfError = "";
    private boolean whatIfBusy;
    /** Stepping event by event: the map is after the events before this index; -1 follows the cursor's time. */
    private long stepEnd = -1;
    private boolean stepping;
    private TaskRunner.Handle addressTask;
    /** The last map, what-if and what-if state asked for: an answer to an older question is dropped. */
    private long addressSerial;
    private long whatIfSerial;
    private long whatIfMapSerial;
    private TaskRunner.Handle whatIfTask;
    private TaskRunner.Handle whatIfMapTask;

    public AllocatorView(SessionModel model) {
        this.model = model;
        this.kept = new KeptReplay(model.tasks());
        whatIfBar = new HBox(8);
        createView();
        initListeners();
    }

    private static ComboBox<String> choice(String prompt, String... values) {
        ComboBox<String> c = new ComboBox<>();
        c.getItems().add("");
        c.getItems().addAll(values);
        c.setEditable(true);
        c.setPromptText(prompt);
        // wide enough for its prompt (the setting's name) in the editor, beside the arrow, and never
        // shrunk below it: at 1358 px (openbox's first size) they read "m", "rc", "ga"
        Text measure = new Text(prompt);
        measure.setFont(c.getEditor().getFont());
        c.setPrefWidth(Math.ceil(measure.getLayoutBounds().getWidth()) + 56);
        c.setMinWidth(Region.USE_PREF_SIZE);
        c.setTooltip(new Tooltip(prompt + " (empty: the file's own)"));
        return c;
    }

    private void createView() {
        setId("allocator-view");
        canvas.setId("allocator-canvas");
        memory.setId("allocator-memory");
        memory.setPromptText("memory");
        memory.setConverter(ShownAs.converter("", m -> m.name() + " (" + TimelinePainter.kindName(m.kind()) + ")"));
        memory.setMinWidth(Region.USE_PREF_SIZE); // its memory's whole name, never "..." beside a long caption
        whatIfButton.setId("allocator-whatif");
        whatIfButton.setMinWidth(Region.USE_PREF_SIZE);
        whatIfButton.setTooltip(new Tooltip("Replay this PyTorch snapshot through the caching allocator model under other settings"));
        info.setId("allocator-info");
        info.setMinWidth(0);
        HBox.setHgrow(info, Priority.SOMETIMES);
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        HBox bar = new HBox(6, memory, whatIfButton, spacer, info);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(4, 6, 4, 6));
        expandable.setId("whatif-expandable");
        maxSplit.setId("whatif-max-split");
        roundup.setId("whatif-roundup");
        gcThreshold.setId("whatif-gc");
        capacity.setId("whatif-capacity");
        capacity.setPromptText("capacity, e.g. 80GiB");
        capacity.setPrefColumnCount(12); // "capacity, e.g. 80GiB" whole
        capacity.setMinWidth(Region.USE_PREF_SIZE);
        whatIfInfo.setId("whatif-info");
        whatIfInfo.setMinWidth(0);
        whatIfInfo.setWrapText(true); // a row of its own under the settings: the figures whole at any width
        whatIfInfo.setPadding(new Insets(0, 6, 4, 6));
        whatIfInfo.setMaxWidth(Double.MAX_VALUE);
        expandable.setMinWidth(Region.USE_PREF_SIZE);
        expandable.setMnemonicParsing(false); // the setting's name, underscores and all
        whatIfBar.getChildren().addAll(expandable, maxSplit, roundup, gcThreshold, capacity);
        whatIfBar.setAlignment(Pos.CENTER_LEFT);
        whatIfBar.setPadding(new Insets(0, 6, 4, 6));
        whatIfBar.setId("whatif-bar");
        showWhatIfBar(false);
        setTop(new VBox(bar, whatIfBar, whatIfInfo));
        hoverCard.getStyleClass().add(Styles.HOVER_CARD);
        hoverCard.setId("allocator-hover");
        hoverCard.setManaged(false);
        hoverCard.setVisible(false);
        hoverCard.setMouseTransparent(true);
        holder.getChildren().add(hoverCard);
        holder.setMinSize(100, 80);
        setCenter(holder);
        canvas.widthProperty().bind(holder.widthProperty());
        canvas.heightProperty().bind(holder.heightProperty());
    }

    private void showWhatIfBar(boolean on) {
        whatIfBar.setVisible(on);
        whatIfBar.setManaged(on);
        whatIfInfo.setVisible(on);
        whatIfInfo.setManaged(on);
    }

    private void initListeners() {
        canvas.widthProperty().addListener((o, a, b) -> redraw());
        canvas.heightProperty().addListener((o, a, b) -> redraw());
        dark.addListener((o, a, b) -> redraw());
        model.traceProperty().addListener((o, a, b) -> {
            // the previous file's hover card and what-if must not float over the next one
            hoverX = Double.NaN;
            hoverY = Double.NaN;
            hoverCard.setVisible(false);
            hoverText.set("");
            addressMap = null;
            clearWhatIf();
            prepared = null;
            preparedFor = null;
            whatIfButton.setSelected(false);
            kept.forget(); // a closed trace's build stops
            memory.getItems().setAll(b == null ? List.of() : b.memories());
            MemoryInfo allocator = allocatorMemory(b);
            if (allocator != null) {
                memory.getSelectionModel().select(allocator);
            } else if (!memory.getItems().isEmpty()) {
                memory.getSelectionModel().select(0);
            }
            prepareReplay();
            updateControls();
        });
        model.sourceFileProperty().addListener((o, a, b) -> updateControls());
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
            updateControls();
            if (whatIfButton.isSelected()) {
                runWhatIf();
            }
            recomputeAddressMap();
        });
        model.cursorProperty().addListener((o, a, b) -> {
            if (!stepping) {
                stepEnd = -1;
                recomputeAddressMap();
            }
        });
        whatIfButton.selectedProperty().addListener((o, a, b) -> {
            showWhatIfBar(b);
            if (b) {
                runWhatIf();
            } else {
                clearWhatIf();
                redraw();
            }
        });
        expandable.selectedProperty().addListener((o, a, b) -> runWhatIf());
        for (ComboBox<String> c : List.of(maxSplit, roundup, gcThreshold)) {
            c.valueProperty().addListener((o, a, b) -> runWhatIf());
        }
        capacity.setOnAction(e -> runWhatIf());
        capacity.focusedProperty().addListener((o, a, b) -> {
            if (!b) {
                runWhatIf();
            }
        });
        canvas.setFocusTraversable(true);
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            canvas.requestFocus();
            // not on to the tab pane, whose press takes the focus back (the arrow keys then switched tabs)
            e.consume();
        });
        canvas.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            switch (e.getCode()) {
                case LEFT -> step(-1);
                case RIGHT -> step(1);
                default -> {
                    return;
                }
            }
            // the map's arrows are its own, never the tab pane's nor the timeline's
            e.consume();
        });
        canvas.addEventHandler(MouseEvent.MOUSE_MOVED, e -> hover(e.getX(), e.getY()));
        canvas.addEventHandler(MouseEvent.MOUSE_EXITED, e -> {
            hoverX = Double.NaN;
            hoverY = Double.NaN;
            hoverCard.setVisible(false);
            hoverText.set("");
        });
        updateControls();
    }

    /** The first caching allocator or pool of {@code t}, else null: where the view opens. */
    static MemoryInfo allocatorMemory(TraceView t) {
        if (t == null) {
            return null;
        }
        MemoryInfo first = null;
        for (MemoryInfo m : t.memories()) {
            if (m.kind() == MemoryKind.SEGMENTED || m.kind() == MemoryKind.POOL) {
                if (first == null || first.kind() == MemoryKind.POOL && m.kind() == MemoryKind.SEGMENTED) {
                    first = m;
                }
            }
        }
        return first;
    }

    /** Whether the trace shown is a PyTorch snapshot read from a file, and the memory picked one of its devices: what a what-if replays. */
    public boolean whatIfAvailable() {
        TraceView t = model.trace();
        MemoryInfo m = memory.getValue();
        return t != null && m != null && m.kind() == MemoryKind.SEGMENTED && model.sourceFileProperty().get() != null
                && t.session() != null && "pytorch-snapshot".equals(t.session().attributes().get("source")) && m.name().matches("cuda:\\d+");
    }

    private void updateControls() {
        boolean can = whatIfAvailable();
        whatIfButton.setDisable(!can);
        if (!can && whatIfButton.isSelected()) {
            whatIfButton.setSelected(false);
        }
    }

    // ---- the recorded map

    private void recomputeAddressMap() {
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
        long serial = ++addressSerial;
        addressTask = model.tasks().submit(BackgroundTask.of("Address map", p -> r.moveTo(end >= 0 ? end : t.firstIndexAtOrAfter(at + 1), at,
                        p::isCancelled))
                .onSuccess(s -> {
                    if (serial != addressSerial) {
                        return; // a later move was asked: its map is the one to show
                    }
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
                    recomputeWhatIfMap();
                    redraw();
                }));
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
        if (t == null || m == null || s == null || s.memory().id() != m.id()) {
            return;
        }
        long next = direction > 0 ? AddressMap.nextEnd(t, m, s.end(), STEP_SCAN) : AddressMap.previousEnd(t, m, s.end(), STEP_SCAN);
        if (next == s.end() && direction > 0) {
            return;
        }
        stepEnd = next;
        recomputeAddressMap();
    }

    /**
     * The instant the address map shows when no cursor is set: where the memory holds the most (found on
     * the store's level-of-detail index, 1,024 buckets), not the session's end, when it is usually empty.
     */
    public static long defaultInstant(TraceView t, MemoryInfo m) {
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

    /** The map's caption: the instant (the last event applied), segments, blocks, free bytes, waste. */
    static String caption(AddressMap.Snapshot s) {
        long segments = s.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).count();
        long blocks = s.blocks().size() - segments;
        TimeAxis time = TimeAxis.of(s.memory().attributes());
        String when = s.lastEvent() >= 0
                ? String.format(Locale.ROOT, "after event #%,d (%s) at %s", s.lastEvent(), s.lastText(), time.at(s.atNs()))
                : "at " + time.at(s.atNs());
        long pending = s.pendingCount();
        String pendingText = pending > 0 ? String.format(Locale.ROOT, ", %s (%s)", Counts.of(pending, "pending free"),
                Bytes.format(s.pendingBytes())) : "";
        String what = segments > 0
                ? String.format(Locale.ROOT, "%s, %s reserved; %s%s; %s free in segments, largest %s", Counts.of(segments, "segment"),
                        Bytes.format(s.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum()),
                        Counts.of(blocks, "block"), pendingText, Bytes.format(s.gapBytes()), Bytes.format(s.largestGap()))
                : String.format(Locale.ROOT, "%s%s, %s free in %s, largest gap %s", Counts.of(blocks, "block"), pendingText, Bytes.format(s.gapBytes()),
                        Bytes.format(s.extent()), Bytes.format(s.largestGap()));
        long waste = s.wasteBytes();
        return s.memory().name() + " " + when + ": " + what + (waste > 0 ? "; " + Bytes.format(waste) + " lost to rounding" : "")
                + "  ·  ←/→ step event by event";
    }

    // ---- the what-if

    /** The what-if's settings as {@code whatif --set} takes them, from the chooser. */
    public List<String> whatIfSets() {
        List<String> sets = new ArrayList<>();
        if (expandable.isSelected()) {
            sets.add("expandable_segments=true");
        }
        String[] keys = {"max_split_size_mb", "roundup_power2_divisions", "garbage_collection_threshold"};
        List<ComboBox<String>> boxes = List.of(maxSplit, roundup, gcThreshold);
        for (int k = 0; k < keys.length; k++) {
            String v = boxes.get(k).getValue();
            if (v != null && !v.isBlank()) {
                sets.add(keys[k] + "=" + v.strip());
            }
        }
        return sets;
    }

    /** Replays the snapshot under the chooser's settings in the background (the file read once, on first use). */
    private void runWhatIf() {
        if (!whatIfButton.isSelected() || !whatIfAvailable()) {
            return;
        }
        Path file = model.sourceFileProperty().get();
        MemoryInfo m = memory.getValue();
        List<String> sets = whatIfSets();
        String cap = capacity.getText();
        if (whatIfTask != null) {
            whatIfTask.cancel();
        }
        AllocatorWhatIf ready = file.equals(preparedFor) ? prepared : null;
        whatIfBusy = true;
        whatIfInfo.setText(ready == null ? "reading " + file.getFileName() + " for the model…" : "replaying…");
        long serial = ++whatIfSerial;
        whatIfTask = model.tasks().submit(BackgroundTask.of("What-if replay", p -> {
            AllocatorWhatIf w = ready != null ? ready : AllocatorWhatIf.of(file);
            p.checkCancelled();
            AllocatorSettings s = w.settings(cap, sets);
            return new Object[] {w, w.run(s)};
        }).onSuccess(r -> {
            if (serial != whatIfSerial) {
                if (prepared == null && file.equals(model.sourceFileProperty().get())) {
                    prepared = (AllocatorWhatIf) r[0]; // the file read is good for the later question too
                    preparedFor = file;
                }
                return;
            }
            prepared = (AllocatorWhatIf) r[0];
            preparedFor = file;
            whatIfBusy = false;
            whatIfError = "";
            AllocatorWhatIf.Result res = (AllocatorWhatIf.Result) r[1];
            whatIf.set(res);
            whatIfInfo.setText(figures(prepared, res));
            whatIfLine.set(WhatIfLine.of(m.id(), "what-if reserved (" + settingsLabel(res.settings()) + ")", prepared.entryNs(), res.reservedAfter()));
            recomputeWhatIfMap();
        }).onFailure(e -> {
            if (serial != whatIfSerial) {
                return;
            }
            whatIfBusy = false;
            whatIfError = e.getMessage() == null ? e.toString() : e.getMessage();
            whatIfInfo.setText("what-if: " + whatIfError);
            whatIf.set(null);
            whatIfLine.set(null);
            whatIfMap = null;
            redraw();
        }));
    }

    /** The what-if's state at the recorded map's instant, in the background. */
    private void recomputeWhatIfMap() {
        AllocatorWhatIf w = prepared;
        AllocatorWhatIf.Result res = whatIf.get();
        AddressMap.Snapshot rec = addressMap;
        MemoryInfo m = memory.getValue();
        if (w == null || res == null || rec == null || m == null || !whatIfButton.isSelected()) {
            return;
        }
        if (whatIfMapTask != null) {
            whatIfMapTask.cancel();
        }
        long at = rec.atNs();
        long serial = ++whatIfMapSerial;
        whatIfMapTask = model.tasks().submit(BackgroundTask.of("What-if state", p -> w.stateAt(res.settings(), m, at)).onSuccess(s -> {
            if (serial != whatIfMapSerial || whatIf.get() != res) {
                return;
            }
            whatIfMap = s;
            redraw();
        }));
    }

    private void clearWhatIf() {
        if (whatIfTask != null) {
            whatIfTask.cancel();
        }
        whatIfSerial++;
        whatIfMapSerial++;
        whatIfBusy = false;
        whatIf.set(null);
        whatIfLine.set(null);
        whatIfMap = null;
        whatIfError = "";
        whatIfInfo.setText("");
    }

    /**
     * The what-if's figures as {@code whatif} gives them: reserved peak (against the recording and the
     * replay under the file's settings), its make-up, the first out-of-memory, and the check's verdict.
     */
    /** The settings as the what-if's titles name them: the allocator's own words, then the capacity where one is set. */
    static String settingsLabel(AllocatorSettings s) {
        return s.describe() + (s.capacity() > 0 ? ", capacity " + Bytes.format(s.capacity()) : "");
    }

    static String figures(AllocatorWhatIf w, AllocatorWhatIf.Result r) {
        WhatIfReplay.Outcome o = r.outcome();
        CachingAllocatorModel.Peak p = o.peak();
        StringBuilder sb = new StringBuilder();
        if (!w.check().exact()) {
            sb.append("the model does not reproduce this file (").append(w.check().line()).append("): a guess · ");
        }
        sb.append("reserved peak ").append(Bytes.format(o.reservedPeak())).append(" (recorded ").append(Bytes.format(w.recorded().reservedPeak()))
                .append(", file settings replayed ").append(Bytes.format(r.baseline().reservedPeak())).append(')');
        if (p != null) {
            sb.append(" = live ").append(Bytes.format(p.requested())).append(" + rounding ").append(Bytes.format(p.rounding()))
                    .append(" + split remainders ").append(Bytes.format(p.splitRemainders())).append(" + cached ").append(Bytes.format(p.cached()));
        }
        sb.append(" · first out-of-memory: ");
        if (!o.outOfMemory()) {
            sb.append(o.settings().capacity() > 0 ? "none" : "none (no capacity)");
        } else {
            sb.append(o.oomEntry() == -2 ? "at the start" : String.format(Locale.ROOT, "entry %,d", o.oomEntry())).append(", ")
                    .append(Bytes.format(o.oomBytes())).append(" with ").append(Bytes.format(o.oomReserved())).append(" reserved");
        }
        return sb.toString();
    }

    // ---- drawing and hover

    public void redraw() {
        paint();
        if (!Double.isNaN(hoverX)) { // a step or a new map under a still pointer: the card says what is under it now
            hover(hoverX, hoverY);
        }
    }

    private void paint() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        Palette p = dark.get() ? Palette.DARK : Palette.LIGHT;
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        g.setFill(p.background());
        g.fillRect(0, 0, w, h);
        AddressMap.Snapshot s = addressMap;
        if (s == null) {
            drawn = null;
            drawnWhatIf = null;
            info.setText("");
            SlotHints.hint(g, p, w, h, model.trace() == null ? "No session." : "Pick a memory; the map shows the selected instant.");
            return;
        }
        info.setText(caption(s));
        AddressMap.Snapshot wi = whatIfButton.isSelected() ? whatIfMap : null;
        AllocatorWhatIf.Result res = whatIf.get();
        if (wi == null || res == null) {
            drawn = AddressMapDrawList.build(s, w, h);
            drawnWhatIf = null;
            AddressMapPainter.paint(g, drawn, p, dark.get());
            return;
        }
        long reserved = s.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        long wiReserved = wi.blocks().stream().filter(b -> b.state() == AddressMap.State.RESERVED).mapToLong(AddressMap.Block::bytes).sum();
        drawn = AddressMapDrawList.build(s, "recorded: " + Bytes.format(reserved) + " reserved", 0, w, h / 2);
        drawnWhatIf = AddressMapDrawList.build(wi, "what-if (" + settingsLabel(res.settings()) + "), the model's addresses: "
                + Bytes.format(wiReserved) + " reserved at the same instant", h / 2, w, h / 2);
        AddressMapPainter.paint(g, drawn, p, dark.get());
        AddressMapPainter.paint(g, drawnWhatIf, p, dark.get());
    }

    private void hover(double x, double y) {
        hoverX = x;
        hoverY = y;
        String text = describeAt(x, y);
        hoverText.set(text);
        SlotHints.place(hoverCard, text, x, y, holder.getWidth(), holder.getHeight(), drawn == null ? null : drawn.origin());
    }

    /** What the hover card says at canvas position {@code (x, y)}. */
    public String describeAt(double x, double y) {
        TraceView t = model.trace();
        AddressMapDrawList d = drawnWhatIf != null && y >= drawnWhatIf.top() ? drawnWhatIf : drawn;
        if (d == null) {
            return "";
        }
        String text = d.describeAt(x, y, t == null || d == drawnWhatIf ? null : t::stack);
        return d == drawnWhatIf && !text.isEmpty() ? "what-if: " + text : text;
    }

    /** Hovers at a canvas position (tests) and returns the card's text. */
    public String hoverAt(double x, double y) {
        hover(x, y);
        return hoverText.get();
    }

    // ---- access for the window, tests and screenshots

    /** The address map shown (null before the first one is built). */
    public AddressMap.Snapshot addressMapShown() {
        return addressMap;
    }

    /** The what-if's state shown under it, or null. */
    public AddressMap.Snapshot whatIfMapShown() {
        return whatIfMap;
    }

    /** The frame painted last (the recorded map), or null. */
    public AddressMapDrawList drawList() {
        return drawn;
    }

    /** The last what-if replay, or null (none asked, or it failed). */
    public ReadOnlyObjectProperty<AllocatorWhatIf.Result> whatIfProperty() {
        return whatIf.getReadOnlyProperty();
    }

    /** The recorded run's figures the what-if is set against (the command's {@code recorded}), or null before the first what-if. */
    public WhatIfReplay.Outcome whatIfRecorded() {
        return prepared == null ? null : prepared.recorded();
    }

    /** Whether a what-if is being read or replayed. */
    public boolean whatIfBusy() {
        return whatIfBusy;
    }

    /** The last what-if's error, empty when none. */
    public String whatIfError() {
        return whatIfError;
    }

    /** The what-if's reserved line, for the timeline to draw over the recorded one (null: none). */
    public ReadOnlyObjectProperty<WhatIfLine> whatIfLineProperty() {
        return whatIfLine;
    }

    public ReadOnlyStringProperty hoverTextProperty() {
        return hoverText.getReadOnlyProperty();
    }

    public BooleanProperty darkProperty() {
        return dark;
    }

    public ComboBox<MemoryInfo> memorySelector() {
        return memory;
    }

    public ToggleButton whatIfButton() {
        return whatIfButton;
    }

    public CheckBox expandableBox() {
        return expandable;
    }

    public ComboBox<String> maxSplitBox() {
        return maxSplit;
    }

    public ComboBox<String> roundupBox() {
        return roundup;
    }

    public ComboBox<String> gcThresholdBox() {
        return gcThreshold;
    }

    public TextField capacityField() {
        return capacity;
    }

    public Label whatIfLabel() {
        return whatIfInfo;
    }

    public Label infoLabel() {
        return info;
    }

    public Label hoverCard() {
        return hoverCard;
    }

    public Canvas canvas() {
        return canvas;
    }
}
