package dev.arenascope.app.ui.timeline;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.util.SortedLongs;

/**
 * Rasterises one lane's allocation stripes ({@link StripeLayer}) from the core's allocation table, in
 * the manner of PyTorch's memory_viz (one band per live allocation, stacked in allocation order) but
 * sampled like the rest of the timeline: one instant per pixel column (the column's last nanosecond).
 *
 * <p>Cost, independent of the number of allocations beyond one pass of the core's query over the
 * allocations large enough to draw ({@link Allocations#largest}: a size level of the table at a coarse
 * zoom, blocks skipped by time at a fine one): the allocations seen at the columns' instants with at
 * least a quarter pixel of height are asked for, the {@value #MAX_STRIPES} largest kept, with their
 * sizes, times and first columns (not gathered again from the table's columns); a sweep over the
 * columns keeps the live ones in stacking order (new ones only ever join on top, since allocation
 * order is time order; one that ends leaves a hole of no bytes, squeezed out once holes are half the
 * stack) and refills only the positions above the lowest that changed, into a tile of {@value #TILE}
 * columns copied row by row into the row-major raster. Every stripe is at least a quarter pixel high
 * and the lane holds at most its height in bytes, so at most four times its height in stripes are live
 * at a column, eight with the holes: a frame costs {@code 8 × width × height} steps at most. Pure; any
 * thread.
 */
public final class StripeBuilder {
    /** The most stripes one lane draws one by one; the rest are folded into "others". */
    public static final int MAX_STRIPES = 8192;
    /** Stripes are drawn one by one from this many pixels of height up (1/4 px); smaller ones fold into others. */
    static final double MIN_STRIPE_PX = 0.25;
    /** Columns the sweep fills before copying them into the row-major raster (16 ints: a cache line per row). */
    private static final int TILE = 16;

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
        Allocations.Largest q = LastQuery.ask(analysis, instants, minBytes);
        int[] ids = q.ids();
        int n = ids.length;

        // colour groups, largest first once their peaks are known
        SiteAnalysis.By by = options.colourBy();
        GroupNames names = GroupNames.of(analysis);
        int[] localOf = new int[by == SiteAnalysis.By.SITE ? a.pathCount() + 1 : a.categoryCount()];
        Arrays.fill(localOf, -1);
        List<String> keys = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        List<String> details = new ArrayList<>();
        int[] seeds = new int[64]; // per group, its colour seed
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
                    seeds = seed(seeds, g, nm.seed());
                } else {
                    String name = a.categoryName(key);
                    String ck = "category:" + name;
                    keys.add(ck);
                    labels.add(name);
                    details.add("category " + name);
                    seeds = seed(seeds, g, ck.hashCode());
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
        int[] firstCol = q.firstInstant(); // the query's own: the first column at or after the start
        int[] endCol = new int[n];
        long[] ends = q.endNs();
        for (int k = 0; k < n; k++) {
            long end = ends[k];
            endCol[k] = end == Allocations.NEVER ? w : firstAtOrAfter(instants, firstCol[k], end);
        }
        int[] slots = new int[w * h];
        // the sweep fills a tile of TILE columns, column-major (a column's pixels contiguous), and each
        // full tile is copied into the row-major raster a cache line per row: filling the raster column
        // by column directly would touch a line (and a page) per pixel; position 0 holds the column before
        int[] tile = new int[(TILE + 1) * h];
        int tileX0 = 0;
        long[] drawnBytes = new long[w];
        int[] drawnCount = new int[w];
        long[] groupPeak = new long[groups];
        long[] groupLive = new long[groups];
        int[] groupStripes = new int[groups];
        for (int k = 0; k < n; k++) {
            groupStripes[groupOf[k]]++;
        }
        long[] stripeBytes = q.bytes();
        // stripes by the column they end at (a counting sort), so a column finds its ending ones directly
        int[] endFrom = new int[w + 2];
        for (int k = 0; k < n; k++) {
            endFrom[endCol[k] + 1]++;
        }
        for (int x = 0; x <= w; x++) {
            endFrom[x + 1] += endFrom[x];
        }
        int[] byEnd = new int[n];
        int[] fillAt = Arrays.copyOf(endFrom, w + 1);
        for (int k = 0; k < n; k++) {
            byEnd[fillAt[endCol[k]]++] = k;
        }
        int cap = Math.min(n, 1024) + 1;
        int[] active = new int[cap];   // live stripes in stacking order; -1: a hole where one ended
        long[] actBytes = new long[cap]; // their drawn bytes (0 for a group switched off)
        long[] posCum = new long[cap];  // bytes of the drawn stripes up to and including position j
        int[] posTop = new int[cap];    // their top pixel row, counted from the bottom
        int[] pos = new int[n];         // each live stripe's position
        int live = 0;
        int dead = 0; // holes among the live positions
        int firstHole = Integer.MAX_VALUE;
        int visible = 0;
        int next = 0; // the next stripe to join (stripes join in allocation order)
        for (int x = 0; x < w; x++) {
            int c = x - tileX0 + 1; // this column's place in the tile
            if (c > TILE) {
                flush(tile, h, slots, w, tileX0, TILE);
                System.arraycopy(tile, TILE * h, tile, 0, h);
                tileX0 = x;
                c = 1;
            }
            int dirty = live; // the lowest position whose place changed in this column
            for (int t = endFrom[x], e = endFrom[x + 1]; t < e; t++) {
                int k = byEnd[t];
                if (firstCol[k] >= x) {
                    continue; // never joined (seen at no instant of the view: not asked for, but harmless)
                }
                int at = pos[k];
                active[at] = -1;
                actBytes[at] = 0;
                dead++;
                firstHole = Math.min(firstHole, at);
                dirty = Math.min(dirty, at);
                groupLive[groupOf[k]] -= stripeBytes[k];
                if (!hidden[groupOf[k]]) {
                    visible--;
                }
            }
            // an ended one stays as a hole of no bytes (the ones above it fall by its bytes all the same)
            // until holes are half the positions; then they are squeezed out at once
            if (dead > live / 2 && dead > 32) {
                int m = firstHole;
                for (int j = firstHole; j < live; j++) {
                    int k = active[j];
                    if (k >= 0) {
                        active[m] = k;
                        actBytes[m] = actBytes[j];
                        pos[k] = m++;
                    }
                }
                live = m;
                dirty = Math.min(dirty, firstHole);
                dead = 0;
                firstHole = Integer.MAX_VALUE;
            }
            // positions below 'dirty' sit where they sat in the previous column: copy their pixels
            int keepTop = dirty == 0 ? 0 : posTop[dirty - 1];
            if (x > 0 && keepTop > 0) {
                System.arraycopy(tile, c * h - keepTop, tile, (c + 1) * h - keepTop, keepTop);
            }
            // from 'dirty' up: restack
            long cum = dirty == 0 ? 0 : posCum[dirty - 1];
            int prevTop = keepTop;
            for (int j = dirty; j < live; j++) {
                long b = actBytes[j];
                if (b > 0) {
                    cum += b;
                    int top = (int) Math.min(h, Math.round(cum * perByte));
                    if (top > prevTop) {
                        fill(tile, h, c, prevTop, top, active[j] + 1);
                        prevTop = top;
                    }
                }
                posCum[j] = cum;
                posTop[j] = prevTop;
            }
            // new ones join on top
            while (next < n && firstCol[next] <= x) {
                int k = next++;
                if (endCol[k] <= x) {
                    continue;
                }
                if (live == active.length) {
                    active = Arrays.copyOf(active, live * 2);
                    actBytes = Arrays.copyOf(actBytes, live * 2);
                    posCum = Arrays.copyOf(posCum, live * 2);
                    posTop = Arrays.copyOf(posTop, live * 2);
                }
                int g = groupOf[k];
                groupLive[g] += stripeBytes[k];
                groupPeak[g] = Math.max(groupPeak[g], groupLive[g]);
                long b = 0;
                if (!hidden[g]) {
                    visible++;
                    b = stripeBytes[k];
                    cum += b;
                    int top = (int) Math.min(h, Math.round(cum * perByte));
                    if (top > prevTop) {
                        fill(tile, h, c, prevTop, top, k + 1);
                        prevTop = top;
                    }
                }
                active[live] = k;
                actBytes[live] = b;
                pos[k] = live;
                posCum[live] = cum;
                posTop[live] = prevTop;
                live++;
            }
            int count = visible;
            drawnBytes[x] = cum;
            drawnCount[x] = count;
            if (usedLast[x] >= 0) {
                int othersTop = (int) Math.min(h, Math.round(usedLast[x] * perByte));
                if (othersTop > prevTop) {
                    fill(tile, h, c, prevTop, othersTop, StripeLayer.OTHERS);
                    prevTop = othersTop;
                }
                int envTop = (int) Math.min(h, Math.round(usedMax[x] * perByte));
                if (envTop > prevTop) {
                    fill(tile, h, c, prevTop, envTop, StripeLayer.ENVELOPE);
                    prevTop = envTop;
                }
            }
            // every row below prevTop was written (the kept ones copied, the rest filled upward without a
            // gap); the rest of the column is empty
            fill(tile, h, c, prevTop, h, StripeLayer.EMPTY);
        }
        flush(tile, h, slots, w, tileX0, w - tileX0);
        // the legend's figures: each group's bytes at the memory's peak, the Sites view's "At the peak"
        // answer itself (all allocations, not only those drawn: the same at any window size)
        Map<String, Long> peakOf = PeakAnswer.ask(analysis, by);
        long[] groupAtPeak = new long[groups];
        for (int g = 0; g < groups; g++) {
            groupAtPeak[g] = peakOf.getOrDefault(keys.get(g), 0L);
        }
        long peakEvent = analysis.peakEvent();
        int drawnAtPeak = 0;
        if (peakEvent >= 0) {
            for (int k = 0; k < n; k++) {
                long end = a.endEvent(ids[k]);
                if (!hidden[groupOf[k]] && a.startEvent(ids[k]) <= peakEvent && (end < 0 || end > peakEvent)) {
                    drawnAtPeak++;
                }
            }
        }
        StripeLayer.AtPeak atPeak = new StripeLayer.AtPeak(analysis.peakNs(), PeakAnswer.count(analysis, by), analysis.peakBytes(), drawnAtPeak);
        int[] order = byAtPeakThenPeakThenKey(groupAtPeak, groupPeak, keys);
        int[] rank = new int[groups];
        List<StripeLayer.Group> list = new ArrayList<>(groups);
        for (int j = 0; j < groups; j++) {
            int g = order[j];
            rank[g] = j;
            list.add(new StripeLayer.Group(keys.get(g), labels.get(g), details.get(g), groupStripes[g], groupPeak[g], hidden[g],
                    seeds[g], groupAtPeak[g]));
        }
        for (int k = 0; k < n; k++) {
            groupOf[k] = rank[groupOf[k]];
        }
        return new StripeLayer(w, h, slots, ids, groupOf, strong, list, instants, drawnBytes, drawnCount, usedLast, minBytes,
                q.qualified(), analysis, trace, by, anyHighlight, atPeak);
    }

    /**
     * Group order for the legend: by bytes at the peak (the legend's figure, the Sites view's order),
     * then by the most live at once in view (groups not live at the peak), then by key.
     */
    static int[] byAtPeakThenPeakThenKey(long[] atPeak, long[] peak, List<String> keys) {
        int[] inView = byPeakThenKey(peak, keys);
        int[] rankInView = new int[inView.length];
        for (int j = 0; j < inView.length; j++) {
            rankInView[inView[j]] = j;
        }
        Integer[] boxed = new Integer[inView.length];
        for (int g = 0; g < boxed.length; g++) {
            boxed[g] = g;
        }
        Arrays.sort(boxed, (p, r) -> atPeak[p] != atPeak[r] ? Long.compare(atPeak[r], atPeak[p]) : Integer.compare(rankInView[p], rankInView[r]));
        int[] out = new int[boxed.length];
        for (int j = 0; j < out.length; j++) {
            out[j] = boxed[j];
        }
        return out;
    }

    /**
     * The site analysis's answer at the peak as group key to bytes (the legend's keys: {@code site:}
     * and the frames one a line, or {@code category:} and the name), kept for the last analysis asked:
     * one pass over the allocations per analysis and colouring, not per frame.
     */
    static final class PeakAnswer {
        private static WeakReference<SiteAnalysis> analysis = new WeakReference<>(null);
        private static SiteAnalysis.By by;
        private static Map<String, Long> bytes = Map.of();
        private static long count;

        static synchronized Map<String, Long> ask(SiteAnalysis sa, SiteAnalysis.By b) {
            if (sa != analysis.get() || b != by) {
                Map<String, Long> m = new HashMap<>();
                long c = 0;
                if (sa.peakEvent() >= 0) {
                    SiteBreakdown sb = sa.ask(new SiteQuestion.AtPeak(), b);
                    for (SiteBreakdown.Row r : sb.rows()) {
                        m.merge(keyOf(r, b), r.bytes(), Long::sum);
                    }
                    c = sb.totalCount();
                }
                analysis = new WeakReference<>(sa);
                by = b;
                bytes = m;
                count = c;
            }
            return bytes;
        }

        static synchronized long count(SiteAnalysis sa, SiteAnalysis.By b) {
            ask(sa, b);
            return count;
        }

        /** A Sites row's legend key: the one {@link GroupNames} gives the same site path or category. */
        static String keyOf(SiteBreakdown.Row r, SiteAnalysis.By b) {
            if (b == SiteAnalysis.By.CATEGORY) {
                return "category:" + r.label();
            }
            if (r.frames().isEmpty()) {
                return "site:(no site)";
            }
            StringBuilder d = new StringBuilder("site:");
            for (int i = 0; i < r.frames().size(); i++) {
                d.append(i == 0 ? "" : "\n").append(r.frames().get(i).label());
            }
            return d.toString();
        }
    }

    /** {@code seeds} with {@code seeds[g] = seed}, grown when full. */
    private static int[] seed(int[] seeds, int g, int seed) {
        int[] out = g < seeds.length ? seeds : Arrays.copyOf(seeds, Math.max(g + 1, 2 * seeds.length));
        out[g] = seed;
        return out;
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
        private static WeakReference<SiteAnalysis> analysis = new WeakReference<>(null);
        private static long[] instants;
        private static long minBytes;
        private static Allocations.Largest answer;

        static synchronized Allocations.Largest ask(SiteAnalysis sa, long[] at, long min) {
            if (sa != analysis.get() || min != minBytes || !Arrays.equals(at, instants)) {
                Allocations.Largest r = sa.allocationTable().largest(at, min, MAX_STRIPES);
                analysis = new WeakReference<>(sa); // a closed session's analysis is not kept alive
                instants = at.clone();
                minBytes = min;
                answer = r;
            }
            return answer;
        }
    }

    /**
     * Group numbers ordered by peak bytes, largest first, then by key: the legend's order. Peaks are
     * sorted as primitives (a group's peak and number packed in one long where the number fits beside
     * it); only groups of equal peak compare their keys' text, which is long and shares its prefix.
     */
    static int[] byPeakThenKey(long[] peak, List<String> keys) {
        int groups = peak.length;
        long[] packed = new long[groups];
        int bits = 32 - Integer.numberOfLeadingZeros(Math.max(1, groups - 1));
        boolean fits = true;
        for (int g = 0; g < groups && fits; g++) {
            fits = peak[g] >= 0 && peak[g] < (1L << (63 - bits));
        }
        int[] order = new int[groups];
        if (!fits) {
            Integer[] boxed = new Integer[groups];
            for (int g = 0; g < groups; g++) {
                boxed[g] = g;
            }
            Arrays.sort(boxed, (p, r) -> peak[p] != peak[r] ? Long.compare(peak[r], peak[p]) : keys.get(p).compareTo(keys.get(r)));
            for (int g = 0; g < groups; g++) {
                order[g] = boxed[g];
            }
            return order;
        }
        long mask = (1L << bits) - 1;
        for (int g = 0; g < groups; g++) {
            packed[g] = ((1L << (63 - bits)) - 1 - peak[g]) << bits | g; // ascending = peak descending
        }
        Arrays.sort(packed);
        for (int j = 0; j < groups; j++) {
            order[j] = (int) (packed[j] & mask);
        }
        // runs of one peak: by key
        for (int j = 0; j < groups; ) {
            int e = j + 1;
            while (e < groups && peak[order[e]] == peak[order[j]]) {
                e++;
            }
            if (e - j > 1) {
                Integer[] run = new Integer[e - j];
                for (int t = j; t < e; t++) {
                    run[t - j] = order[t];
                }
                Arrays.sort(run, (p, r) -> keys.get(p).compareTo(keys.get(r)));
                for (int t = j; t < e; t++) {
                    order[t] = run[t - j];
                }
            }
            j = e;
        }
        return order;
    }

    /**
     * {@link #firstAtOrAfter(long[], long)} known to be at or after column {@code from}: galloping from
     * there, so a stripe that spans a few columns costs a few steps, not a search of the whole row.
     */
    static int firstAtOrAfter(long[] instants, int from, long ns) {
        int n = instants.length;
        if (from >= n || instants[from] >= ns) {
            return Math.min(from, n);
        }
        int lo = from + 1; // instants[lo - 1] < ns
        int step = 1;
        int hi = lo;
        while (hi < n && instants[hi] < ns) {
            lo = hi + 1;
            hi = Math.min(n, hi + step);
            step <<= 1;
        }
        return SortedLongs.firstAtOrAfter(instants, lo, hi, ns);
    }

    /** The first column whose instant is at or after {@code ns} ({@code instants.length} if none). */
    static int firstAtOrAfter(long[] instants, long ns) {
        return SortedLongs.firstAtOrAfter(instants, 0, instants.length, ns);
    }

    /** Fills rows {@code [from, to)} counted up from the bottom of tile column {@code c} with {@code slot}. */
    private static void fill(int[] tile, int h, int c, int from, int to, int slot) {
        int base = c * h + h - 1; // column-major: a column's pixels are contiguous, top row first
        for (int y = Math.max(0, from), e = Math.min(h, to); y < e; y++) {
            tile[base - y] = slot;
        }
    }

    /** Copies tile columns {@code 1 .. cols} into raster columns {@code x0 ..}: row by row, a run of {@code cols} each. */
    private static void flush(int[] tile, int h, int[] slots, int w, int x0, int cols) {
        for (int y = 0; y < h; y++) {
            int row = y * w + x0;
            for (int c = 0, at = h + y; c < cols; c++, at += h) {
                slots[row + c] = tile[at];
            }
        }
    }
}
