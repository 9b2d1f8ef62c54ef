package dev.arenascope.app.ui.pools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

import dev.arenascope.app.ui.common.Palette;
import dev.arenascope.app.ui.common.ShownAs;
import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.app.ui.model.SessionModel;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.analysis.MemoryAnalysis;
import dev.arenascope.core.analysis.PoolBinAnalysis;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.Percent;
import dev.arenascope.core.pool.Bins;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.util.SortedLongs;

/**
 * Pool histograms: per bin the requests (hits and misses), held blocks and bytes, and bytes lost to
 * rounding; the reuse factor (share of requests served from held blocks) over time; and a what-if that
 * re-bins the recorded requests with another number of mantissa bits.
 */
public final class PoolView extends BorderPane {
    private static final Font SMALL = Font.font("System", 10);
    private final SessionModel model;
    private final ComboBox<MemoryInfo> pool = new ComboBox<>();
    private final Spinner<Integer> bits = new Spinner<>(0, Bins.MAX_MANTISSA_BITS, 4);
    private final Label figures = new Label();
    private final Label whatIf = new Label();
    private final Label placeholder = new Label();
    private final TableView<PoolBinAnalysis> table = new TableView<>();
    private final Canvas histogram = new Canvas(400, 200);
    private final Canvas reuse = new Canvas(400, 120);
    private final BooleanProperty dark = new SimpleBooleanProperty(this, "dark", false);
    private BinWhatIf lastWhatIf;
    private BinWhatIf recorded;
    /** Something changed while the view was out of the window: it is brought up to date when it is back. */
    private boolean stale;

    public PoolView(SessionModel model) {
        this.model = model;
        createView();
        initListeners();
    }

    private void createView() {
        setId("pool-view");
        pool.setId("pool-selector");
        pool.setPromptText("pool");
        pool.setConverter(ShownAs.converter("", MemoryInfo::name));
        bits.setId("pool-whatif-bits");
        bits.setPrefWidth(70);
        figures.setId("pool-figures");
        whatIf.setId("pool-whatif");
        Label bl = new Label("What-if mantissa bits");
        bl.setMinWidth(Region.USE_PREF_SIZE);
        bits.setMinWidth(Region.USE_PREF_SIZE);
        whatIf.setMinWidth(0);
        bl.getStyleClass().add(Styles.FIGURE_LABEL);
        HBox bar = new HBox(8, pool, figures);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(4, 6, 4, 6));
        setTop(bar);

        table.setId("pool-bins");
        table.setPlaceholder(new Label("No pool requests recorded (pools and the particles workload record them)"));
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().setAll(List.of(
                col("Bin", b -> Integer.toString(b.bin())),
                col("Size", b -> Bytes.format(b.binBytes())),
                col("Requests", b -> String.format(Locale.ROOT, "%,d", b.requests())),
                col("Hits", b -> String.format(Locale.ROOT, "%,d", b.hits())),
                col("Misses", b -> String.format(Locale.ROOT, "%,d", b.misses())),
                col("Hit %", b -> b.requests() == 0 ? "" : String.format(Locale.ROOT, "%.1f", 100.0 * b.hits() / b.requests())),
                col("Held", b -> String.format(Locale.ROOT, "%,d", b.heldBlocks())),
                col("Held B", b -> Bytes.format(b.heldBytes())),
                col("Waste", b -> Bytes.format(b.roundingWasteBytes()))));
        for (TableColumn<PoolBinAnalysis, ?> c : table.getColumns()) {
            c.getStyleClass().add(Styles.NUMERIC);
        }
        Pane hp = new Pane(histogram);
        Pane rp = new Pane(reuse);
        histogram.widthProperty().bind(hp.widthProperty());
        histogram.heightProperty().bind(hp.heightProperty());
        reuse.widthProperty().bind(rp.widthProperty());
        reuse.heightProperty().bind(rp.heightProperty());
        hp.setMinSize(100, 80);
        rp.setMinSize(100, 60);
        HBox wiControls = new HBox(8, bl, bits);
        wiControls.setAlignment(Pos.CENTER_LEFT);
        // the what-if's summary wraps beneath its controls: never cut ("reusable 9…") in a narrow pane
        whatIf.setWrapText(true);
        whatIf.setMaxWidth(Double.MAX_VALUE);
        // and as high as its lines: at the window's least size the charts beneath squeezed it to one line, cut again
        whatIf.setMinHeight(Region.USE_PREF_SIZE);
        VBox wi = new VBox(2, wiControls, whatIf);
        wi.setPadding(new Insets(4, 6, 4, 6));
        SplitPane charts = new SplitPane(hp, rp);
        charts.setOrientation(Orientation.VERTICAL);
        charts.setDividerPositions(0.7);
        VBox right = new VBox(wi, charts);
        VBox.setVgrow(charts, Priority.ALWAYS);
        SplitPane split = new SplitPane(table, right);
        split.setDividerPositions(0.48);
        // a session without a binned pool (a PyTorch snapshot, an arena's recording) says so in place of
        // an empty table and blank charts, and what would fill them
        placeholder.setId("pool-placeholder");
        placeholder.setWrapText(true);
        placeholder.setMaxWidth(640);
        placeholder.setPadding(new Insets(24));
        placeholder.setTextAlignment(TextAlignment.CENTER);
        placeholder.setMnemonicParsing(false);
        placeholder.setText(placeholderText(null));
        split.visibleProperty().bind(placeholder.visibleProperty().not());
        // the pool selector and its figures have nothing to pick or say then: the bar goes with the table
        bar.visibleProperty().bind(placeholder.visibleProperty().not());
        bar.managedProperty().bind(bar.visibleProperty());
        setCenter(new StackPane(split, placeholder));
    }

    /**
     * What the tab says in place of its table when {@code t} holds no binned pool: why (no pool in this
     * session, and what its memories are) and what would fill the tab.
     */
    static String placeholderText(TraceView t) {
        String fill = "A binned pool fills this tab: ArenaScope's MemoryPool (the particles workload records one),"
                + " or a pyopencl or pycuda memory pool recorded through the Python client.";
        if (t == null) {
            return "No session open. " + fill;
        }
        boolean segmented = t.memories().stream().anyMatch(m -> m.kind() == MemoryKind.SEGMENTED);
        boolean plan = t.memories().stream().anyMatch(m -> m.kind() == MemoryKind.PLAN_SCRATCH || m.kind() == MemoryKind.PLAN_PERSISTENT
                || m.kind() == MemoryKind.PLAN_CONSTANT);
        boolean arena = t.memories().stream().anyMatch(m -> m.kind() == MemoryKind.ARENA);
        StringBuilder sb = new StringBuilder("No binned pool in this session");
        if (segmented) {
            sb.append(": a PyTorch snapshot's caching allocator keeps segments and blocks, not bins; its state is in the Allocator tab");
        } else if (plan || arena) {
            sb.append(": its memories are ").append(plan && arena ? "arenas and a memory plan" : plan ? "a memory plan's arenas" : "arenas")
                    .append(", which have no bins");
        } else if (t.memories().isEmpty()) {
            sb.append(": it has no memories yet");
        }
        return sb.append(".\n\n").append(fill).toString();
    }

    private static TableColumn<PoolBinAnalysis, String> col(String t, Function<PoolBinAnalysis, String> f) {
        TableColumn<PoolBinAnalysis, String> c = new TableColumn<>(t);
        c.setCellValueFactory(cd -> new ReadOnlyStringWrapper(f.apply(cd.getValue())));
        c.setSortable(false);
        return c;
    }

    private void initListeners() {
        model.traceProperty().addListener((o, a, b) -> refreshPools(b));
        sceneProperty().addListener((o, a, b) -> {
            if (b != null && stale) {
                stale = false;
                update();
            }
        });
        model.revisionProperty().addListener((o, a, b) -> {
            TraceView t = model.trace();
            if (t != null && pool.getItems().size() != t.memories().stream().filter(m -> m.kind() == MemoryKind.POOL).count()) {
                refreshPools(t);
            } else if (placeholder.isVisible()) {
                placeholder.setText(placeholderText(t)); // a live session's memories as they come
            }
        });
        model.digestProperty().addListener((o, a, b) -> update());
        model.viewRangeProperty().addListener((o, a, b) -> drawReuse());
        pool.valueProperty().addListener((o, a, b) -> {
            if (b != null) {
                String mb = b.attributes().getOrDefault("mantissaBits", b.attributes().get("mantissa_bits"));
                try {
                    bits.getValueFactory().setValue(mb == null ? 4 : Integer.parseInt(mb));
                } catch (NumberFormatException ignored) {
                    bits.getValueFactory().setValue(4);
                }
            }
            update();
        });
        bits.valueProperty().addListener((o, a, b) -> updateWhatIf());
        histogram.widthProperty().addListener((o, a, b) -> drawHistogram());
        histogram.heightProperty().addListener((o, a, b) -> drawHistogram());
        reuse.widthProperty().addListener((o, a, b) -> drawReuse());
        reuse.heightProperty().addListener((o, a, b) -> drawReuse());
        dark.addListener((o, a, b) -> {
            drawHistogram();
            drawReuse();
        });
    }

    /** The text shown in place of the table and charts, visible while the session has no pool. */
    public Label placeholder() {
        return placeholder;
    }

    private void refreshPools(TraceView t) {
        MemoryInfo keep = pool.getValue();
        pool.getItems().setAll(t == null ? List.of() : t.memories().stream().filter(m -> m.kind() == MemoryKind.POOL).toList());
        placeholder.setText(placeholderText(t));
        placeholder.setVisible(pool.getItems().isEmpty());
        if (keep != null && pool.getItems().stream().anyMatch(m -> m.id() == keep.id())) {
            pool.setValue(pool.getItems().stream().filter(m -> m.id() == keep.id()).findFirst().get());
        } else if (!pool.getItems().isEmpty()) {
            pool.setValue(pool.getItems().get(0));
        } else {
            pool.setValue(null);
        }
    }

    private int recordedBits() {
        MemoryInfo m = pool.getValue();
        String mb = m == null ? null : m.attributes().getOrDefault("mantissaBits", m.attributes().get("mantissa_bits"));
        try {
            return mb == null ? 4 : Integer.parseInt(mb);
        } catch (NumberFormatException e) {
            return 4;
        }
    }

    /**
     * Whether the view is out of the window (its tab not shown; the window keeps only the shown tab's view in
     * the scene): then what it shows waits, marked stale, and is brought up to date when it is back. A live
     * session's digest comes several times a second, and the bins' table, what-if and charts were remade each
     * time for a tab nobody saw.
     */
    private boolean outOfWindow() {
        if (getScene() == null) {
            stale = true;
            return true;
        }
        return false;
    }

    private void update() {
        if (outOfWindow()) {
            return;
        }
        MemoryInfo m = pool.getValue();
        TraceAggregate.Snapshot d = model.digestProperty().get();
        List<PoolBinAnalysis> bins = m == null ? List.of() : d.bins().stream().filter(b -> b.memory() == m.id()).sorted((x, y) -> Integer.compare(x.bin(), y.bin())).toList();
        table.getItems().setAll(bins);
        long req = 0;
        long hits = 0;
        long waste = 0;
        long held = 0;
        for (PoolBinAnalysis b : bins) {
            req += b.requests();
            hits += b.hits();
            waste += b.roundingWasteBytes();
            held += b.heldBytes();
        }
        // the waste's share is the core's one definition (the report's column): of the bytes handed out
        figures.setText(m == null ? "" : String.format(Locale.ROOT, "%s · %.1f%% hits · %s · held %s · rounding waste %s (%s)",
                Counts.of(req, "request"), req == 0 ? 0 : 100.0 * hits / req, Counts.of(bins.size(), "bin"), Bytes.format(held), Bytes.format(waste),
                wasteShare(bins)));
        recorded = m == null ? null : BinWhatIf.of(d.requests(), m.id(), recordedBits());
        updateWhatIf();
        drawReuse();
    }

    /**
     * The bins' rounding waste as a share, by the core's one definition (the report's column,
     * {@link MemoryAnalysis#roundingWaste}): of the bytes the bins handed out, not of those asked for.
     */
    static String wasteShare(List<PoolBinAnalysis> bins) {
        long waste = 0;
        long asked = 0;
        for (PoolBinAnalysis b : bins) {
            waste += b.roundingWasteBytes();
            asked += b.requestedBytes();
        }
        return Percent.format(MemoryAnalysis.roundingWaste(asked + waste, asked));
    }

    private void updateWhatIf() {
        MemoryInfo m = pool.getValue();
        if (m == null) {
            lastWhatIf = null;
            whatIf.setText("");
            drawHistogram();
            return;
        }
        lastWhatIf = BinWhatIf.of(model.digestProperty().get().requests(), m.id(), bits.getValue());
        BinWhatIf w = lastWhatIf;
        BinWhatIf r = recorded;
        whatIf.setText(String.format(Locale.ROOT, "%s (recorded %d), waste %s = %s (recorded %s), reusable %s of requests",
                Counts.of(w.bins(), "bin"), r == null ? 0 : r.bins(), Bytes.format(w.roundingWaste()), Percent.format(w.wasteRatio()),
                r == null ? Percent.NONE : Percent.format(r.wasteRatio()), Percent.of(w.reusable(), w.requests())));
        drawHistogram();
    }

    private void drawHistogram() {
        GraphicsContext g = histogram.getGraphicsContext2D();
        Palette p = dark.get() ? Palette.DARK : Palette.LIGHT;
        double w = histogram.getWidth();
        double h = histogram.getHeight();
        g.setFill(p.background());
        g.fillRect(0, 0, w, h);
        List<PoolBinAnalysis> bins = table.getItems();
        g.setFont(SMALL);
        if (bins.isEmpty()) {
            g.setFill(p.mutedText());
            g.setTextAlign(TextAlignment.CENTER);
            g.setTextBaseline(VPos.CENTER);
            g.fillText("No pool requests in this session", w / 2, h / 2);
            return;
        }
        double top = 16;
        BinWhatIf wi = lastWhatIf;
        // the plot, then the rounding-waste strip and the size labels (22 px), then the what-if
        // histogram with its title when there is room for it
        double avail = h - top - 22 - 2;
        boolean showWhatIf = wi != null && !wi.perBin().isEmpty() && avail >= 100;
        double half = showWhatIf ? Math.floor(avail * 0.6) : avail;
        long max = 1;
        for (PoolBinAnalysis b : bins) {
            max = Math.max(max, b.requests());
        }
        double bw = Math.max(1, (w - 60) / bins.size());
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        g.setFill(p.text());
        g.fillText(fittedTitle(recordedBits(), wi == null ? recordedBits() : wi.mantissaBits(), showWhatIf, w - 50 - 8), 50, 2);
        double lmax = Math.log1p(max);
        // y axis: decades of requests on the log scale, a grid line and label each
        g.setStroke(p.grid());
        g.setLineWidth(1);
        g.setFill(p.mutedText());
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        double lastLabel = Double.POSITIVE_INFINITY;
        for (long t : logTicks(max)) {
            double y = Math.round(top + half - half * Math.log1p(t) / lmax) + 0.5;
            g.strokeLine(50, y, w - 10, y);
            if (lastLabel - y >= 11) { // labels one line apart at least
                g.fillText(countLabel(t), 46, y);
                lastLabel = y;
            }
        }
        for (int i = 0; i < bins.size(); i++) {
            PoolBinAnalysis b = bins.get(i);
            double x = 50 + i * bw;
            double total = half * Math.log1p(b.requests()) / lmax;
            double hh = b.requests() == 0 ? 0 : total * b.hits() / b.requests();
            double mh = total - hh;
            g.setFill(p.forward());
            g.fillRect(x, top + half - hh, Math.max(1, bw - 1), hh);
            g.setFill(p.forwardEnvelope());
            g.fillRect(x, top + half - hh - mh, Math.max(1, bw - 1), mh);
            if (b.requestedBytes() > 0) {
                double wr = Math.min(1, b.roundingWasteBytes() / (double) b.requestedBytes());
                g.setFill(p.backward());
                g.fillRect(x, top + half + 1, Math.max(1, bw - 1), 2 + 6 * wr);
            }
        }
        // x axis: the bins' block sizes, as many as fit without overlapping
        g.setStroke(p.grid());
        g.strokeLine(50, top + half + 0.5, 50 + bins.size() * bw, top + half + 0.5);
        g.setFill(p.mutedText());
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.TOP);
        for (int i : labelledBins(bins.size(), bw, 56)) {
            g.fillText(Bytes.format(bins.get(i).binBytes()), 50 + (i + 0.5) * bw, top + half + 10);
        }
        if (showWhatIf) {
            double y0 = top + half + 22 + 14; // below the size labels and the title
            double wh = h - 2 - y0;
            long wmax = wi.perBin().values().stream().mapToLong(Long::longValue).max().orElse(1);
            double ww = Math.max(1, (w - 60) / wi.perBin().size());
            g.setTextAlign(TextAlignment.LEFT);
            g.setFill(p.text());
            g.fillText("what-if: the same requests with " + wi.mantissaBits() + " mantissa bits (" + Counts.of(wi.bins(), "bin") + ")", 50, y0 - 14);
            int i = 0;
            for (Map.Entry<Integer, Long> e : wi.perBin().entrySet()) {
                double x = 50 + i++ * ww;
                double hh = wh * Math.log1p(e.getValue()) / Math.log1p(wmax);
                g.setFill(Palette.roleColor(2, dark.get()));
                g.fillRect(x, y0 + wh - hh, Math.max(1, ww - 1), hh);
            }
        }
    }

    /**
     * The histogram's title: the recorded bins, and where the what-if's own histogram has no room
     * beneath them, that the what-if (at other bits) is summarised above rather than drawn.
     */
    static String histogramTitle(int recordedBits, int whatIfBits, boolean whatIfDrawn) {
        String t = "requests per bin (recorded, " + recordedBits + " mantissa bits; log scale): hits solid, misses light; rounding waste in orange";
        return whatIfDrawn || whatIfBits == recordedBits ? t
                : t + " — the what-if at " + whatIfBits + " bits is summarised above (a taller pane draws its bins below)";
    }

    /**
     * The {@linkplain #histogramTitle histogram's title} in the most words that fit in {@code room} pixels of
     * the chart's font (at 1280 px the whole title was cut at the canvas's edge, and with it the note on
     * where the what-if is): shorter forms keep the recorded bits and the what-if's whereabouts.
     */
    static String fittedTitle(int recordedBits, int whatIfBits, boolean whatIfDrawn, double room) {
        boolean note = !whatIfDrawn && whatIfBits != recordedBits;
        String[] forms = {
            histogramTitle(recordedBits, whatIfBits, whatIfDrawn),
            "requests per bin (recorded, " + recordedBits + " mantissa bits; log scale): hits solid, misses light, rounding waste orange"
                    + (note ? " — the what-if at " + whatIfBits + " bits is summarised above" : ""),
            "requests per bin (recorded, " + recordedBits + " bits; log): hits solid, misses light, waste orange"
                    + (note ? " — what-if at " + whatIfBits + " bits above" : ""),
            "recorded, " + recordedBits + " bits (log)" + (note ? " — what-if at " + whatIfBits + " bits above" : ""),
        };
        for (String f : forms) {
            if (textWidth(f) <= room) {
                return f;
            }
        }
        return forms[forms.length - 1];
    }

    /** How wide {@code text} is in the chart's font, in pixels. */
    static double textWidth(String text) {
        Text t = new Text(text);
        t.setFont(SMALL);
        return t.getLayoutBounds().getWidth();
    }

    /** 1, 10, 100, 1k, 10k, 1M ...: a decade tick's label. */
    static String countLabel(long v) {
        if (v >= 1_000_000_000L && v % 1_000_000_000L == 0) {
            return v / 1_000_000_000L + "G";
        }
        if (v >= 1_000_000 && v % 1_000_000 == 0) {
            return v / 1_000_000 + "M";
        }
        if (v >= 1_000 && v % 1_000 == 0) {
            return v / 1_000 + "k";
        }
        return Long.toString(v);
    }

    /** Decades 1, 10, 100, ... up to {@code max} (the log-scale histogram's y ticks); at least {1}. */
    static List<Long> logTicks(long max) {
        List<Long> t = new ArrayList<>();
        for (long v = 1; v <= Math.max(1, max); v *= 10) {
            t.add(v);
            if (v > Long.MAX_VALUE / 10) {
                break;
            }
        }
        return t;
    }

    /**
     * The bins to label on an x axis of {@code n} bins {@code binWidth} wide, labels {@code labelWidth}
     * wide: every k-th bin from the first, k the smallest step whose labels do not overlap, and the last.
     */
    static List<Integer> labelledBins(int n, double binWidth, double labelWidth) {
        List<Integer> out = new ArrayList<>();
        if (n <= 0) {
            return out;
        }
        int step = (int) Math.max(1, Math.ceil(labelWidth / Math.max(1e-9, binWidth)));
        for (int i = 0; i < n; i += step) {
            out.add(i);
        }
        int last = n - 1;
        if (out.getLast() != last && (last - out.getLast()) * binWidth >= labelWidth) {
            out.add(last);
        }
        return out;
    }

    private void drawReuse() {
        if (outOfWindow()) {
            return; // (drawn again with the rest when the view is back: the view range moves ten times a second while live)
        }
        GraphicsContext g = reuse.getGraphicsContext2D();
        Palette p = dark.get() ? Palette.DARK : Palette.LIGHT;
        double w = reuse.getWidth();
        double h = reuse.getHeight();
        g.setFill(p.background());
        g.fillRect(0, 0, w, h);
        MemoryInfo m = pool.getValue();
        TraceAggregate.PoolRequests r = model.digestProperty().get().requests();
        if (m == null || r.size() == 0) {
            return;
        }
        TimeRange range = model.viewRangeProperty().get();
        int buckets = (int) Math.max(10, Math.min(200, (w - 60) / 4));
        long[] total = new long[buckets];
        long[] hit = new long[buckets];
        int from = SortedLongs.firstAtOrAfter(r.timeNs(), range.fromNs());
        for (int i = from; i < r.size() && r.timeNs()[i] < range.toNs(); i++) {
            if (r.pool()[i] != m.id()) {
                continue;
            }
            int b = (int) Math.min(buckets - 1, (r.timeNs()[i] - range.fromNs()) * buckets / range.duration());
            total[b]++;
            if (r.hit()[i]) {
                hit[b]++;
            }
        }
        g.setFont(SMALL);
        g.setFill(p.text());
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        g.fillText("reuse factor over the visible range (share of requests served from held blocks)", 50, 2);
        double top = 16;
        double ch = h - top - 6;
        g.setStroke(p.grid());
        g.strokeLine(50, top + ch + 0.5, w - 10, top + ch + 0.5);
        g.strokeLine(50, top + 0.5, w - 10, top + 0.5);
        g.setFill(p.mutedText());
        g.setTextAlign(TextAlignment.RIGHT);
        g.fillText("100%", 46, top - 2);
        g.fillText("0%", 46, top + ch - 10);
        g.setStroke(p.forward());
        g.setLineWidth(1.5);
        g.beginPath();
        boolean started = false;
        double bw = (w - 60) / buckets;
        for (int b = 0; b < buckets; b++) {
            if (total[b] == 0) {
                continue;
            }
            double x = 50 + (b + 0.5) * bw;
            double y = top + ch - ch * hit[b] / (double) total[b];
            if (!started) {
                g.moveTo(x, y);
                started = true;
            } else {
                g.lineTo(x, y);
            }
        }
        g.stroke();
        g.setLineWidth(1);
        g.setFill(Color.TRANSPARENT);
    }

    public BooleanProperty darkProperty() {
        return dark;
    }

    public TableView<PoolBinAnalysis> table() {
        return table;
    }

    public Spinner<Integer> bitsSpinner() {
        return bits;
    }

    public Label whatIfLabel() {
        return whatIf;
    }

    public ComboBox<MemoryInfo> poolSelector() {
        return pool;
    }
}
