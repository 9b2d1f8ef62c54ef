package dev.arenascope.app.ui.slots;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.arenascope.app.ui.model.TensorSlot;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;

/**
 * One frame of the plan slots, ready to paint: where each arena's band is, at what byte scale, under
 * what title, and the caption. Built by {@link #build} from the arenas (and their re-planned packings
 * beside them), painted by {@link PlanSlotsPainter}, and asked what lies under the pointer. Immutable.
 *
 * @param width   canvas width
 * @param height  canvas height
 * @param placed  every arena drawn, left column first
 * @param caption the view's caption: each arena's tensors, height and lower bound (and the re-plan's)
 * @param hint    what the empty view says, empty when arenas are drawn
 */
public record PlanSlotsDrawList(double width, double height, List<Placed> placed, String caption, String hint) {
    static final double MARGIN_LEFT = 104;
    static final double BAND_GAP = 26;

    /**
     * An arena drawn in the box {@code (x, y, w, h)}, its offsets scaled so that {@code scale} bytes
     * fill the box's height (the larger of the loaded and the re-planned height, so both read alike).
     */
    public record Placed(SlotArena arena, double x, double y, double w, double h, long scale, String title) {

        boolean contains(double px, double py) {
            return px >= x && px < x + w && py >= y && py < y + h;
        }

        /** The tensor at canvas {@code (px, py)}, or null. */
        TensorSlot tensorAt(double px, double py) {
            if (!contains(px, py)) {
                return null;
            }
            return arena.at((px - x) / w * arena.steps(), (y + h - py) / h * scale);
        }

        /** The centre of tensor {@code s} on the canvas. */
        double[] centreOf(TensorSlot s) {
            return new double[] {x + (s.firstStep() + s.lastStep() + 1) / 2.0 / arena.steps() * w,
                    y + h - (s.offset() + s.bytes() / 2.0) / scale * h};
        }
    }

    /** The frame for {@code arenas} (and {@code replanned}, by label, drawn beside) on a {@code w × h} canvas. */
    static PlanSlotsDrawList build(List<SlotArena> arenas, Map<String, SlotArena> replanned, double w, double h) {
        if (arenas.isEmpty()) {
            return new PlanSlotsDrawList(w, h, List.of(), "", "No memory plan in this session. Record the inference workload or open a plan (.json).");
        }
        boolean side = !replanned.isEmpty();
        double bandH = Math.max(60, (h - 10 - BAND_GAP * arenas.size()) / arenas.size());
        double colW = side ? (w - MARGIN_LEFT * 2 - 20) / 2 : w - MARGIN_LEFT - 20;
        double y = 8;
        List<Placed> placed = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        for (SlotArena a : arenas) {
            SlotArena r = replanned.get(a.label());
            long scale = Math.max(1, Math.max(a.height(), r == null ? 0 : r.height()));
            placed.add(new Placed(a, MARGIN_LEFT, y + 16, colW, bandH - 16, scale, a.label() + " — " + a.strategy()
                    + (a.proof().isEmpty() ? "" : ", proof: " + a.proof())));
            if (r != null) {
                placed.add(new Placed(r, MARGIN_LEFT * 2 + colW, y + 16, colW, bandH - 16, scale, a.label() + " — re-planned (" + r.strategy()
                        + (r.proof().isEmpty() ? "" : ", proof: " + r.proof()) + ")"));
            }
            sb.append(String.format(Locale.ROOT, "%s: %s, height %s, lower bound %s (%.3f×)%s   ", a.label(), Counts.of(a.slots().size(), "tensor"),
                    Bytes.format(a.height()), Bytes.format(a.lowerBound()), ratio(a),
                    r == null ? "" : String.format(Locale.ROOT, " → %s (%.3f×%s)", Bytes.format(r.height()), ratio(r),
                            r.proof().isEmpty() ? "" : ", proof: " + r.proof())));
            y += bandH + BAND_GAP;
        }
        return new PlanSlotsDrawList(w, h, List.copyOf(placed), sb.toString().strip(), "");
    }

    private static double ratio(SlotArena a) {
        return a.lowerBound() == 0 ? 1.0 : a.height() / (double) a.lowerBound();
    }

    /** What the hover card says at canvas {@code (x, y)}: the tensor there, or empty. */
    String describeAt(double x, double y) {
        for (Placed pl : placed) {
            TensorSlot s = pl.tensorAt(x, y);
            if (s != null) {
                return s.id() + "\n"
                        + "size " + Bytes.format(s.bytes()) + String.format(Locale.ROOT, " (%,d B)", s.bytes()) + "\n"
                        + "lifetime steps " + s.firstStep() + " – " + s.lastStep() + "\n"
                        + "binding " + s.roleName() + " · " + pl.arena().label() + " · offset " + String.format(Locale.ROOT, "%,d", s.offset());
            }
        }
        return "";
    }

    /** Where tensor {@code id} was drawn (the first arena holding it): its centre, or null. */
    double[] centreOf(String id) {
        for (Placed pl : placed) {
            for (TensorSlot s : pl.arena().slots()) {
                if (s.id().equals(id)) {
                    return pl.centreOf(s);
                }
            }
        }
        return null;
    }
}
