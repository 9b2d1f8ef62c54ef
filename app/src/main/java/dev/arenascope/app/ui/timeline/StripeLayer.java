package dev.arenascope.app.ui.timeline;

import java.util.List;
import java.util.Locale;

import dev.arenascope.app.ui.model.FreeRequests;
import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.format.Bytes;
import dev.arenascope.core.format.Counts;
import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * One lane's allocation stripes, rasterised: every drawn allocation a band of its size, stacked in
 * allocation order from the lane's bottom (a band drops when one beneath it is freed), the allocations
 * too small to see or beyond the largest {@link StripeBuilder#MAX_STRIPES} folded into one "others"
 * band above them, up to the bytes in use; above that, up to the column's most in use, the envelope
 * of what lived between two sampled instants. Built off the FX thread by {@link StripeBuilder};
 * {@link #slotAt} answers hover and click in constant time.
 *
 * <p>The raster is {@code width × height} slots, row-major as the image is (row 0 at the gauge area's
 * top, a row's pixels contiguous): {@link #EMPTY},
 * {@link #OTHERS}, {@link #ENVELOPE}, or {@code k ≥ 1} for stripe {@code k-1}
 * ({@link #allocation(int)}). Immutable once built.
 */
public final class StripeLayer {
    public static final int EMPTY = -1;
    public static final int OTHERS = 0;
    public static final int ENVELOPE = -2;

    /**
     * A colour group in the legend: a site path or a category.
     *
     * @param key       stable across frames ({@code site:} or {@code category:} and the text)
     * @param label     what the legend shows (the innermost frame, or the category)
     * @param detail    the site's frames, one a line, or the category
     * @param stripes   stripes of this group drawn in the frame
     * @param peakBytes the most of this group's drawn bytes live at one sampled instant
     * @param hidden    switched off in the legend: folded into others
     * @param colourSeed hue seed (the key's hash)
     */
    public record Group(String key, String label, String detail, int stripes, long peakBytes, boolean hidden, int colourSeed,
                        long atPeakBytes) {}

    /**
     * What the legend's figures measure: the memory's state at its peak (right after the event that
     * first reached it, {@link SiteAnalysis#peakEvent()}), as the Sites view's <em>At the peak</em> answers
     * it: the allocations live then and their bytes, and how many of them this frame draws one by one
     * (the rest are in the grey band there). The same whatever the window's size.
     *
     * @param peakNs    when the peak was first reached, -1 if never
     * @param live      allocations live at the peak
     * @param bytes     their bytes (the analysis's peak)
     * @param drawn     of them, drawn one by one in this frame (not switched off)
     */
    public record AtPeak(long peakNs, long live, long bytes, int drawn) {}

    final int width;
    final int height;
    final int[] slots;
    final int[] ids;
    final int[] groupOf;
    final boolean[] strong;
    final List<Group> groups;
    final long[] instants;
    final long[] drawnBytes;
    final int[] drawnCount;
    final long[] usedLast;
    final long minBytes;
    final long qualified;
    final Allocations allocations;
    final SiteAnalysis analysis;
    final TraceView trace;
    final SiteAnalysis.By colourBy;
    final boolean anyHighlight;
    final AtPeak atPeak;

    StripeLayer(int width, int height, int[] slots, int[] ids, int[] groupOf, boolean[] strong, List<Group> groups,
                long[] instants, long[] drawnBytes, int[] drawnCount, long[] usedLast, long minBytes, long qualified,
                SiteAnalysis analysis, TraceView trace, SiteAnalysis.By colourBy, boolean anyHighlight, AtPeak atPeak) {
        this.width = width;
        this.height = height;
        this.slots = slots;
        this.ids = ids;
        this.groupOf = groupOf;
        this.strong = strong;
        this.groups = List.copyOf(groups);
        this.instants = instants;
        this.drawnBytes = drawnBytes;
        this.drawnCount = drawnCount;
        this.usedLast = usedLast;
        this.minBytes = minBytes;
        this.qualified = qualified;
        this.analysis = analysis;
        this.allocations = analysis.allocationTable();
        this.trace = trace;
        this.colourBy = colourBy;
        this.anyHighlight = anyHighlight;
        this.atPeak = atPeak;
    }

    /** The memory at its peak, what the legend's figures measure. */
    public AtPeak atPeak() {
        return atPeak;
    }

    /** The raster's width (the frame's, px). */
    public int width() {
        return width;
    }

    /** The raster's height (the lane's gauge area, px). */
    public int height() {
        return height;
    }

    /** Stripes drawn. */
    public int stripes() {
        return ids.length;
    }

    /** The allocation number ({@link Allocations}) of stripe {@code k}. */
    public int allocation(int k) {
        return ids[k];
    }

    /** The legend group of stripe {@code k}. */
    public Group groupOfStripe(int k) {
        return groups.get(groupOf[k]);
    }

    /** The colour groups present, largest first. */
    public List<Group> groups() {
        return groups;
    }

    /** The analysis drawn (its allocations and site paths). */
    public SiteAnalysis analysis() {
        return analysis;
    }

    /** What the frame colours by. */
    public SiteAnalysis.By colourBy() {
        return colourBy;
    }

    /** Allocations of at least {@link #minBytes()} seen at the frame's instants, drawn or not. */
    public long qualified() {
        return qualified;
    }

    /** The least size drawn as its own stripe (one pixel of the lane). */
    public long minBytes() {
        return minBytes;
    }

    /** The slot at raster position {@code (col, row)}: {@link #EMPTY} outside. */
    public int slotAt(int col, int row) {
        if (col < 0 || col >= width || row < 0 || row >= height) {
            return EMPTY;
        }
        return slots[row * width + col];
    }

    /** The stripe at {@code (col, row)}, or -1. */
    public int stripeAt(int col, int row) {
        int s = slotAt(col, row);
        return s >= 1 ? s - 1 : -1;
    }

    /**
     * The hover card's text for stripe {@code k}: size, descriptor, lifetime, category, site and the
     * stack (the program's frames, innermost first, the internal ones folded into a count).
     */
    /** What the memory's time counts: time, or entries for a snapshot without timestamps. */
    TimeAxis timeAxis() {
        TimeAxis m = TimeAxis.of(analysis.memory().attributes());
        return m == TimeAxis.ENTRIES || trace.session() == null ? m : TimeAxis.of(trace.session().attributes());
    }

    public String describeStripe(int k) {
        int i = ids[k];
        Allocations a = allocations;
        StringBuilder sb = new StringBuilder();
        sb.append("allocation ").append(TimelineView.exact(a.bytes(i))).append('\n');
        int d = a.descriptor(i);
        String desc = d >= 0 ? trace.string(d) : null;
        if (desc != null && !desc.isBlank() && desc.indexOf('\n') < 0 && desc.length() <= 160) {
            sb.append(desc).append('\n');
        }
        long end = a.endNs(i);
        TimeAxis time = timeAxis();
        boolean before = Event.BEFORE_RECORDING.equals(a.categoryName(a.category(i)));
        if (before) {
            // its start is the recording's, not its own: no "allocated at 0" as if the program made it then
            sb.append(Event.BEFORE_RECORDING).append(" (allocated before the trace's start)");
        } else {
            sb.append("allocated ").append(time.at(a.startNs(i)));
        }
        if (end == Allocations.NEVER) {
            sb.append(", never freed\n");
        } else {
            sb.append(", freed ").append(time.at(end));
            if (!before) {
                sb.append(" (lived ").append(time.span(end - a.startNs(i))).append(")");
            }
            sb.append('\n');
            long requested = freeRequestedNs(trace, a, i);
            if (requested >= 0 && requested < end) {
                sb.append("free requested ").append(time.at(requested)).append(" (pending ")
                        .append(time.span(end - requested)).append(" until its stream's work was done)\n");
            }
        }
        sb.append("category ").append(a.categoryName(a.category(i))).append('\n');
        List<StackFrame> path = a.pathFrames(a.path(i));
        sb.append("site ").append(path.isEmpty() ? "(no site)" : path.getFirst().label()).append('\n');
        // an older block without frames: its site line says what it is, there is no stack to list
        List<StackFrame> stack = a.site(i) >= 0 ? trace.stack(a.site(i)) : before ? List.of() : path;
        int internal = 0;
        int shown = 0;
        for (StackFrame f : stack) {
            if (f.internal()) {
                internal++;
                continue;
            }
            if (shown < MAX_FRAMES) {
                sb.append("  ").append(f.label()).append('\n');
            }
            shown++;
        }
        if (shown > MAX_FRAMES) {
            sb.append(String.format(Locale.ROOT, "  … %,d more frames%n", shown - MAX_FRAMES));
        }
        if (internal > 0) {
            sb.append(String.format(Locale.ROOT, "  + %s folded (runtime, C++)%n", Counts.of(internal, "internal frame")));
        }
        return sb.toString().strip();
    }

    /** When the free of allocation {@code i} was requested (a pending free), or -1 ({@link dev.arenascope.app.ui.model.FreeRequests}). */
    static long freeRequestedNs(TraceView t, Allocations a, int i) {
        long r = FreeRequests.requestOf(t, a.startEvent(i), a.endEvent(i));
        return r < 0 ? -1 : t.event(r).timeNs();
    }

    /** Frames a hover card lists before it says how many more there are. */
    static final int MAX_FRAMES = 14;

    /** The hover card's text for the others band at column {@code col}. */
    public String describeOthers(int col) {
        long t = instants[Math.max(0, Math.min(width - 1, col))];
        long[] live = allocations.liveAt(t);
        long count = Math.max(0, live[0] - drawnCount[col]);
        long bytes = Math.max(0, live[1] - drawnBytes[col]);
        return String.format(Locale.ROOT, "others: %s not drawn one by one, %s%n(each under %s, beyond the %,d largest in view, or switched off in the legend)",
                Counts.of(count, "allocation"), TimelineView.exact(bytes), Bytes.format(minBytes),
                StripeBuilder.MAX_STRIPES);
    }
}
