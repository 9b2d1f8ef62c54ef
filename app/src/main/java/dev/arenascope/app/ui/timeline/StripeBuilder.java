package dev.arenascope.app.ui.timeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * Rasterises one lane's allocation stripes ({@link StripeLayer}) from the core's allocation table, in
 * the manner of PyTorch's memory_viz (one band per live allocation, stacked in allocation order) but
 * sampled like the rest of the timeline: one instant per pixel column (the column's last nanosecond).
 *
 * <p>Cost, independent of the number of allocations beyond one pass of the core's block-skipping
 * query ({@link Allocations#largestLiveAt}): the allocations seen at the columns' instants with at least
 * a quarter pixel of height are asked for, the {@value #MAX_STRIPES} largest kept; a sweep over the
 * columns keeps the live ones in stacking order (new ones only ever join on top, since allocation order
 * is time order) and fills their pixels. Every stripe is at least a quarter pixel high and the lane
 * holds at most its height in bytes, so a column costs at most four times its height: a frame costs
 * {@code 4 × width × height} at most. Pure; any thread.
 */
public final class StripeBuilder {
    /** The most stripes one lane draws one by one; the rest are folded into "others". */
    public static final int MAX_STRIPES = 8192;
    /** Stripes are drawn one by one from this many pixels of height up (1/4 px); smaller ones fold into others. */
    static final double MIN_STRIPE_PX = 0.25;

    private StripeBuilder() {}

    /**
     * @param analysis   the memory's site analysis
     * @param trace      the trace (strings, stacks)
     * @param r          the time range drawn
     * @param instants   per column, the instant sampled (ascending; the gauge bucket's last nanosecond, so
     *                   that the stripes and the bytes in use are read at the same instant)
     * @param width      columns
     * @param height     the gauge area's height in px
     * @param scaleBytes bytes at the gauge area's top
     * @param usedLast   per column, bytes in use at the column's end (-1 before the first event)
     * @param usedMax    per column, the most in use within it
     * @param options    colouring, groups switched off, highlight
     */
    public static StripeLayer build(SiteAnalysis analysis, TraceView trace, TimeRange r, long[] instants, int width, int height,
                                    long scaleBytes, long[] usedLast, long[] usedMax, StripeOptions options) {
        int w = Math.max(1, width);
        int h = Math.max(1, height);
        Allocations a = analysis.allocationTable();
        if (instants.length != w) {
            throw new IllegalArgumentException(instants.length + " instants for " + w + " columns");
        }
        double perByte = h / (double) Math.max(1, scaleBytes);
        // a quarter of a pixel: thinner stripes still stack exactly (their bytes move the ones above),
        // and together they show as lines of their colours rather than as a grey block
        long minBytes = Math.max(1, (long) Math.ceil(scaleBytes * MIN_STRIPE_PX / h));
        long[] counted = new long[2];
        int[] ids = LastQuery.ask(analysis, instants, minBytes, counted);
        int n = ids.length;

        // colour groups, largest first once their peaks are known
        SiteAnalysis.By by = options.colourBy();
        GroupNames names = GroupNames.of(analysis);
        int[] localOf = new int[by == SiteAnalysis.By.SITE ? a.pathCount() + 1 : a.categoryCount()];
        Arrays.fill(localOf, -1);
        List<String> keys = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<String> details = new ArrayList<>();
        int[] groupOf = new int[n];
        SiteSelection hl = options.highlight();
        boolean anyHighlight = hl != null && hl.memory() == analysis.memory().id();
        for (int k = 0; k < n; k++) {
            int key = by == SiteAnalysis.By.SITE ? a.path(ids[k]) + 1 : a.category(ids[k]);
            int g = localOf[key];
            if (g < 0) {
                g = keys.size();
                localOf[key] = g;
                if (by == SiteAnalysis.By.SITE) {
                    GroupNames.Name nm = names.path(key - 1);
                    keys.add(nm.key());
                    labels.add(nm.label());
                    details.add(nm.detail());
                } else {
                    String name = a.categoryName(key);
                    keys.add("category:" + name);
                    labels.add(name);
                    details.add("category " + name);
                }
            }
            groupOf[k] = g;
        }
        int groups = keys.size();
        boolean[] hidden = new boolean[groups];
        for (int g = 0; g < groups; g++) {
            hidden[g] = options.hidden().contains(keys.get(g));
        }
        boolean[] strong = new boolean[n];
        for (int k = 0; k < n; k++) {
            strong[k] = !anyHighlight || hl.highlights(a.startEvent(ids[k]));
        }

        // the sweep: first and last column of each stripe
        int[] firstCol = new int[n];
        int[] endCol = new int[n];
        int[] startsAt = new int[w + 1];
        int[] endsAt = new int[w + 1];
        for (int k = 0; k < n; k++) {
            int i = ids[k];
            firstCol[k] = firstAtOrAfter(instants, a.startNs(i));
            long end = a.endNs(i);
            endCol[k] = end == Allocations.NEVER ? w : firstAtOrAfter(instants, end);
            startsAt[firstCol[k]]++;
            endsAt[endCol[k]]++;
        }
        int[] slots = new int[w * h];
        Arrays.fill(slots, StripeLayer.EMPTY);
        long[] drawnBytes = new long[w];
        int[] drawnCount = new int[w];
        long[] groupPeak = new long[groups];
        long[] groupLive = new long[groups];
        int[] groupStripes = new int[groups];
        for (int k = 0; k < n; k++) {
            groupStripes[groupOf[k]]++;
        }
        long[] stripeBytes = new long[n];
        for (int k = 0; k < n; k++) {
            stripeBytes[k] = a.bytes(ids[k]);
        }
        int cap = Math.min(n, 1024) + 1;
        int[] active = new int[cap];   // live stripes in stacking order
        long[] posCum = new long[cap];  // bytes of the drawn stripes up to and including position j
        int[] posTop = new int[cap];    // their top pixel row, counted from the bottom
        int live = 0;
        int visible = 0;
        int next = 0; // the next stripe to join (stripes join in allocation order)
        for (int x = 0; x < w; x++) {
            int dirty = live; // the lowest position whose place changed in this column
            if (endsAt[x] > 0) {
                int m = 0;
                for (int j = 0; j < live; j++) {
                    int k = active[j];
                    if (endCol[k] > x) {
                        active[m++] = k;
                    } else {
                        dirty = Math.min(dirty, m);
                        groupLive[groupOf[k]] -= stripeBytes[k];
                        if (!hidden[groupOf[k]]) {
                            visible--;
                        }
                    }
                }
                live = m;
                dirty = Math.min(dirty, live);
            }
            while (next < n && firstCol[next] <= x) {
                if (endCol[next] > x) {
                    if (live == active.length) {
                        active = Arrays.copyOf(active, live * 2);
                        posCum = Arrays.copyOf(posCum, live * 2);
                        posTop = Arrays.copyOf(posTop, live * 2);
                    }
                    active[live++] = next;
                    int g = groupOf[next];
                    groupLive[g] += stripeBytes[next];
                    groupPeak[g] = Math.max(groupPeak[g], groupLive[g]);
                    if (!hidden[g]) {
                        visible++;
                    }
                }
                next++;
            }
            // positions below 'dirty' sit where they sat in the previous column: copy their pixels
            int keepTop = dirty == 0 ? 0 : posTop[dirty - 1];
            if (x > 0 && keepTop > 0) {
                System.arraycopy(slots, x * h - keepTop, slots, (x + 1) * h - keepTop, keepTop);
            }
            long cum = dirty == 0 ? 0 : posCum[dirty - 1];
            int prevTop = keepTop;
            for (int j = dirty; j < live; j++) {
                int k = active[j];
                if (!hidden[groupOf[k]]) {
                    long b = stripeBytes[k];
                    int top = (int) Math.min(h, Math.round((cum + b) * perByte));
                    fill(slots, w, h, x, prevTop, top, k + 1);
                    prevTop = Math.max(prevTop, top);
                    cum += b;
                }
                posCum[j] = cum;
                posTop[j] = prevTop;
            }
            prevTop = live == 0 ? 0 : posTop[live - 1];
            cum = live == 0 ? 0 : posCum[live - 1];
            int count = visible;
            drawnBytes[x] = cum;
            drawnCount[x] = count;
            if (usedLast[x] >= 0) {
                int othersTop = (int) Math.min(h, Math.round(usedLast[x] * perByte));
                if (othersTop > prevTop) {
                    fill(slots, w, h, x, prevTop, othersTop, StripeLayer.OTHERS);
                    prevTop = othersTop;
                }
                int envTop = (int) Math.min(h, Math.round(usedMax[x] * perByte));
                if (envTop > prevTop) {
                    fill(slots, w, h, x, prevTop, envTop, StripeLayer.ENVELOPE);
                }
            }
        }
        Integer[] order = new Integer[groups];
        for (int g = 0; g < groups; g++) {
            order[g] = g;
        }
        Arrays.sort(order, (p, q) -> groupPeak[p] != groupPeak[q] ? Long.compare(groupPeak[q], groupPeak[p]) : keys.get(p).compareTo(keys.get(q)));
        int[] rank = new int[groups];
        List<StripeLayer.Group> list = new ArrayList<>(groups);
        for (int j = 0; j < groups; j++) {
            int g = order[j];
            rank[g] = j;
            list.add(new StripeLayer.Group(keys.get(g), labels.get(g), details.get(g), groupStripes[g], groupPeak[g], hidden[g],
                    keys.get(g).hashCode()));
        }
        for (int k = 0; k < n; k++) {
            groupOf[k] = rank[groupOf[k]];
        }
        return new StripeLayer(w, h, slots, ids, groupOf, strong, list, instants, drawnBytes, drawnCount, usedLast, minBytes,
                counted[0], analysis, trace, by, anyHighlight);
    }

    /** {@code function (file:line)} with the file's folders left out: what the legend has room for. */
    static String shortLabel(StackFrame f) {
        String file = f.file();
        int cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
        if (file.isEmpty()) {
            return f.function();
        }
        return f.function() + " (" + file.substring(cut + 1) + (f.line() > 0 ? ":" + f.line() : "") + ")";
    }

    /**
     * The last query's answer, kept for the next frame: a frame that only changes the colouring, the
     * legend's switches or the highlight samples the same instants and asks the same question. Any
     * thread (one lock); the answer's array is shared, never written.
     */
    private static final class LastQuery {
        private static java.lang.ref.WeakReference<SiteAnalysis> analysis = new java.lang.ref.WeakReference<>(null);
        private static long[] instants;
        private static long minBytes;
        private static int[] ids;
        private static long[] counted;

        static synchronized int[] ask(SiteAnalysis sa, long[] at, long min, long[] countedOut) {
            if (sa != analysis.get() || min != minBytes || !Arrays.equals(at, instants)) {
                long[] c = new long[2];
                int[] r = sa.allocationTable().largestLiveAt(at, min, MAX_STRIPES, c);
                analysis = new java.lang.ref.WeakReference<>(sa); // a closed session's analysis is not kept alive
                instants = at.clone();
                minBytes = min;
                ids = r;
                counted = c;
            }
            countedOut[0] = counted[0];
            countedOut[1] = counted[1];
            return ids;
        }
    }

    /** The first column whose instant is at or after {@code ns} ({@code instants.length} if none). */
    static int firstAtOrAfter(long[] instants, long ns) {
        int lo = 0;
        int hi = instants.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (instants[mid] < ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Fills rows {@code [from, to)} counted up from the bottom of column {@code x} with {@code slot}. */
    private static void fill(int[] slots, int w, int h, int x, int from, int to, int slot) {
        int base = x * h + h - 1; // column-major: a column's pixels are contiguous, top row first
        for (int y = Math.max(0, from), e = Math.min(h, to); y < e; y++) {
            slots[base - y] = slot;
        }
    }
}
