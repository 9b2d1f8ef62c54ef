package dev.arenascope.app.ui.timeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.collections.ObservableSet;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.shape.Rectangle;

import dev.arenascope.app.ui.common.Styles;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;

/**
 * The legend of the allocation stripes, above the lanes while any lane draws them: colour by site or
 * by category, and one switch per colour group of the frame (the largest first, by their bytes at
 * the memory's peak, the Sites view's "At the peak" figure); a group switched off is folded into the others band. Hidden while no lane
 * draws stripes. One row of a fixed height (what does not fit is cut off at the right), so that the
 * lanes below keep their size as the groups change. FX thread.
 */
public final class StripeLegend extends HBox {
    /** The legend's height, px. */
    static final double HEIGHT = 26;
    /** Groups listed, the largest first (switched-off ones are always listed). */
    static final int MAX_CHIPS = 12;

    private final ObjectProperty<SiteAnalysis.By> colourBy;
    private final ObservableSet<String> hidden;
    private final BooleanProperty dark;
    private final ToggleButton bySite = new ToggleButton("site");
    private final ToggleButton byCategory = new ToggleButton("category");
    private final Label others = new Label();
    private List<String> shownKeys = List.of();
    private DrawList last;

    StripeLegend(ObjectProperty<SiteAnalysis.By> colourBy, ObservableSet<String> hidden, BooleanProperty dark) {
        this.colourBy = colourBy;
        this.hidden = hidden;
        this.dark = dark;
        setId("stripe-legend");
        getStyleClass().add(Styles.STRIPE_LEGEND);
        setSpacing(4);
        setPadding(new Insets(2, 6, 2, 6));
        setMinHeight(HEIGHT);
        setPrefHeight(HEIGHT);
        setMaxHeight(HEIGHT);
        setMinWidth(0);
        Rectangle clip = new Rectangle();
        clip.widthProperty().bind(widthProperty());
        clip.heightProperty().bind(heightProperty());
        setClip(clip);
        setAlignment(Pos.CENTER_LEFT);
        ToggleGroup g = new ToggleGroup();
        bySite.setToggleGroup(g);
        byCategory.setToggleGroup(g);
        bySite.setId("stripe-by-site");
        byCategory.setId("stripe-by-category");
        bySite.setSelected(colourBy.get() == SiteAnalysis.By.SITE);
        byCategory.setSelected(colourBy.get() == SiteAnalysis.By.CATEGORY);
        g.selectedToggleProperty().addListener((o, a, b) -> {
            if (b == null) {
                a.setSelected(true); // one is always chosen
                return;
            }
            colourBy.set(b == bySite ? SiteAnalysis.By.SITE : SiteAnalysis.By.CATEGORY);
        });
        colourBy.addListener((o, a, b) -> {
            bySite.setSelected(b == SiteAnalysis.By.SITE);
            byCategory.setSelected(b == SiteAnalysis.By.CATEGORY);
            hidden.clear();
        });
        others.setId("stripe-others");
        for (Control c : List.of(bySite, byCategory, others)) {
            c.setMinWidth(Region.USE_PREF_SIZE); // cut off at the right, never squeezed
        }
        dark.addListener((o, a, b) -> {
            shownKeys = List.of();
            show(last);
        });
        setVisible(false);
        setManaged(false);
    }

    /** Shows the groups of {@code d}'s stripe lanes (hides the legend when none draws stripes). */
    void show(DrawList d) {
        last = d;
        Map<String, StripeLayer.Group> groups = new LinkedHashMap<>();
        long live = 0;
        long liveBytes = 0;
        long drawnAtPeak = 0;
        int lanes = 0;
        if (d != null) {
            for (DrawList.Lane lane : d.lanes()) {
                StripeLayer s = lane.stripes();
                if (s == null) {
                    continue;
                }
                lanes++;
                live += s.atPeak().live();
                liveBytes += s.atPeak().bytes();
                drawnAtPeak += s.atPeak().drawn();
                for (StripeLayer.Group g : s.groups()) {
                    groups.merge(g.key(), g, (x, y) -> x.atPeakBytes() != y.atPeakBytes() ? (x.atPeakBytes() > y.atPeakBytes() ? x : y)
                            : x.peakBytes() >= y.peakBytes() ? x : y);
                }
            }
        }
        boolean any = d != null && d.lanes().stream().anyMatch(l -> l.stripes() != null);
        setVisible(any);
        setManaged(any);
        if (!any) {
            return;
        }
        List<StripeLayer.Group> list = new ArrayList<>(groups.values());
        list.sort((a, b) -> a.atPeakBytes() != b.atPeakBytes() ? Long.compare(b.atPeakBytes(), a.atPeakBytes())
                : Long.compare(b.peakBytes(), a.peakBytes()));
        List<StripeLayer.Group> chips = new ArrayList<>();
        for (StripeLayer.Group g : list) {
            if (chips.size() < MAX_CHIPS || g.hidden()) {
                chips.add(g);
            }
        }
        List<String> keys = chips.stream().map(g -> g.key() + (g.hidden() ? "/off" : "/on")).toList();
        others.setText(countsText(lanes, live, liveBytes, drawnAtPeak, list.size(), chips.size()));
        if (keys.equals(shownKeys)) {
            return;
        }
        shownKeys = keys;
        List<Node> nodes = new ArrayList<>();
        Label title = new Label("Stripes by");
        title.setTooltip(new Tooltip("Each group's figure is its bytes live at the memory's peak, as the Sites tab's"
                + " \"At the peak\" lists them (all its allocations, drawn one by one or in the grey band);"
                + " the groups listed are those with stripes in view"));
        title.setMinWidth(Region.USE_PREF_SIZE);
        nodes.add(title);
        nodes.add(bySite);
        nodes.add(byCategory);
        nodes.add(others);
        for (StripeLayer.Group g : chips) {
            nodes.add(chip(g));
        }
        getChildren().setAll(nodes);
    }

    /**
     * The legend's count line, saying what the chips' figures measure and counting at the same instant:
     * at the peak (each memory's, with several lanes), the allocations live and their bytes (the Sites
     * tab's "At the peak" total), how many of them are drawn one by one and how many are in the grey
     * band there (what its hover card counts at the peak's column).
     */
    static String countsText(int lanes, long live, long liveBytes, long drawn, int groups, int listed) {
        long grey = Math.max(0, live - drawn);
        return String.format(Locale.ROOT, "bytes at the peak%s: %s live, %s; %,d drawn one by one, %,d in the grey band · %s in view%s",
                lanes > 1 ? " of each memory" : "", Counts.of(live, "allocation"), Bytes.format(liveBytes), drawn, grey,
                Counts.of(groups, "group"), groups > listed ? " (the " + listed + " largest listed)" : "");
    }

    /**
     * A chip's label, at most 40 characters: a long one is cut in its middle, so that its end (the
     * file and line that tell sites apart) stays: four sites read "ParticlesWorkload.run (ParticlesW…"
     * when cut at the end.
     */
    static String chipLabel(String label) {
        if (label.length() <= 40) {
            return label;
        }
        return label.substring(0, 19) + "…" + label.substring(label.length() - 20);
    }

    private ToggleButton chip(StripeLayer.Group g) {
        String text = chipLabel(g.label());
        ToggleButton b = new ToggleButton(text + "  " + Bytes.format(g.atPeakBytes()));
        b.setMnemonicParsing(false);    // a site's name is the user's text: nn_utils.py, Array.__init__
        b.getStyleClass().add(Styles.STRIPE_CHIP);
        b.setMinWidth(Region.USE_PREF_SIZE);
        b.setUserData(g.key());
        Rectangle swatch = new Rectangle(10, 10, StripePainter.groupColor(g.colourSeed(), dark.get()));
        b.setGraphic(swatch);
        b.setSelected(!g.hidden());
        b.setTooltip(new Tooltip(g.detail() + "\n" + String.format(Locale.ROOT,
                "%s live at the peak (the Sites tab's figure)%n%s in view, at most %s of them live at once%nclick to %s",
                TimelineView.exact(g.atPeakBytes()), Counts.of(g.stripes(), "stripe"), Bytes.format(g.peakBytes()),
                g.hidden() ? "draw them again" : "fold them into others")));
        b.setOnAction(e -> {
            if (b.isSelected()) {
                hidden.remove(g.key());
            } else {
                hidden.add(g.key());
            }
        });
        return b;
    }

    /** The count line: what the figures measure and the allocations at that instant (tests). */
    public String countsLine() {
        return others.getText();
    }

    /** The group switches shown (tests). */
    public List<ToggleButton> chips() {
        return getChildren().stream().filter(n -> n instanceof ToggleButton t && t.getUserData() instanceof String)
                .map(n -> (ToggleButton) n).toList();
    }
}
