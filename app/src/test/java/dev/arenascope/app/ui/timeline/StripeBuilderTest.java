package dev.arenascope.app.ui.timeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.arenascope.app.ui.model.BaselinePairing;
import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.app.ui.model.TimeRange;
import dev.arenascope.app.ui.model.TraceAggregate;
import dev.arenascope.core.analysis.Allocations;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.store.EventStore;

/**
 * The stripes' raster checked column by column against a plain restacking: at each column's instant,
 * the drawn allocations live then, in allocation order, each from the sum of those beneath it; the
 * others band up to the bytes in use; groups switched off folded into others; the highlight.
 */
class StripeBuilderTest {

    /** A caching-allocator memory with random sizes, sites and lifetimes (some never freed). */
    static EventStore store(long seed, int operations) {
        return store(seed, operations, 6, 8);
    }

    /**
     * As {@link #store(long, int)}: an operation allocates {@code allocTenths} times in ten (else frees
     * the oldest or newest live block), and one allocation in {@code bigOneIn} is 1–32 MiB (0: none).
     */
    static EventStore store(long seed, int operations, int allocTenths, int bigOneIn) {
        Random r = new Random(seed);
        EventStore st = new EventStore("stripes");
        st.onSession(new SessionInfo("stripes", "h", 0, List.of(), Map.of()));
        st.onMemory(new MemoryInfo(0, "cuda:0", MemoryKind.SEGMENTED, "cuda:0", 0, Map.of()));
        st.onString(0, "activation");
        st.onString(1, "weights");
        SiteTable sites = new SiteTable();
        int main = sites.frame("main", "train.py", 1, 0);
        int[] leaf = new int[6];
        for (int i = 0; i < leaf.length; i++) {
            leaf[i] = sites.stack(main, sites.frame("layer" + i, "model.py", 10 + i, 0));
        }
        sites.announceNew(st);
        EventBatch b = new EventBatch();
        TreeMap<Long, Long> live = new TreeMap<>();
        long used = 0;
        long t = 0;
        for (int op = 0; op < operations; op++) {
            t += 1 + r.nextInt(2000);
            if (live.isEmpty() || r.nextInt(10) < allocTenths) {
                long addr = (op + 1) * 1_048_576L;
                long bytes = bigOneIn > 0 && r.nextInt(bigOneIn) == 0 ? 1L << (20 + r.nextInt(6)) : 512L * (1 + r.nextInt(4000));
                live.put(addr, bytes);
                used += bytes;
                b.add(new Event(t, EventKind.ALLOC, 0, 0, 0, addr, bytes, bytes, used, used, -1, -1, leaf[r.nextInt(leaf.length)], r.nextInt(2)));
            } else {
                long addr = r.nextBoolean() ? live.firstKey() : live.lastKey();
                long bytes = live.remove(addr);
                used -= bytes;
                b.add(new Event(t, EventKind.FREE, 0, 0, 0, addr, bytes, 0, used, used, -1, -1));
            }
        }
        st.onEvents(b);
        return st;
    }

    private static StripeLayer layer(EventStore st, SiteAnalysis sa, TimeRange r, int w, int h, StripeOptions base) {
        StripeOptions o = new StripeOptions(Set.of(0), Map.of(0, sa), base.colourBy(), base.hidden(), base.highlight());
        DrawList d = DrawListBuilder.build(new DrawListBuilder.Frame(st, r, w, h, TraceAggregate.Snapshot.EMPTY, null, null,
                BaselinePairing.NONE, false, o));
        SCALES.put(d.lanes().getFirst().stripes(), d.lanes().getFirst().scaleBytes());
        return d.lanes().getFirst().stripes();
    }

    /** The lane's scale each layer was built at (a lane is scaled to what its view shows). */
    private static final Map<StripeLayer, Long> SCALES = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

    @Test
    void everyColumnIsTheDrawnAllocationsRestackedAtItsInstant() {
        EventStore st = store(3, 6000);
        SiteAnalysis sa = SiteAnalysis.of(st, st.memories().getFirst(), false);
        Allocations a = sa.allocationTable();
        Random r = new Random(5);
        for (int round = 0; round < 12; round++) {
            long from = round == 0 ? st.startNs() : r.nextLong(st.endNs());
            long to = round == 0 ? st.endNs() + 1 : from + 1000 + r.nextLong(Math.max(1, st.endNs() - from));
            TimeRange range = new TimeRange(from, to);
            int w = 50 + r.nextInt(400);
            Set<String> hidden = round % 3 == 2 ? Set.of("site:layer2 (model.py:12)\nmain (train.py:1)") : Set.of();
            StripeLayer s = layer(st, sa, range, w, 300, new StripeOptions(Set.of(), Map.of(), SiteAnalysis.By.SITE, hidden, null));
            boolean sawHidden = assertRestacked(st, a, s, "round " + round);
            if (!hidden.isEmpty()) {
                assertTrue(sawHidden, "the switched-off group had stripes in view");
                assertTrue(s.groups().stream().anyMatch(g -> g.hidden() && g.stripes() > 0), "and the legend still lists it");
            }
        }
    }

    /**
     * Asserts every column of {@code s} is the plain restacking at its instant of the allocations it
     * draws (in allocation order, each from the sum of those beneath it, switched-off groups left out),
     * the others band up to the bytes live then, and the envelope only above both; returns whether a
     * switched-off group had a live stripe.
     */
    static boolean assertRestacked(EventStore st, Allocations a, StripeLayer s, String what) {
        int w = s.width;
        int h = s.height();
        boolean[] drawn = new boolean[a.size()];
        for (int k = 0; k < s.stripes(); k++) {
            drawn[s.allocation(k)] = true;
        }
        boolean sawHidden = false;
        Long built = SCALES.get(s);
        long scale = built != null ? built : DrawListBuilder.scale(st.memories().getFirst(), st.peakUsed(0), st.peakAux(0), -1);
        double perByte = h / (double) scale;
        long[] instants = s.instants;
        int stripeOfAlloc[] = new int[a.size()];
        for (int k = 0; k < s.stripes(); k++) {
            stripeOfAlloc[s.allocation(k)] = k;
        }
        for (int x = 0; x < w; x++) {
            long at = instants[x];
            int[] expect = new int[h];
            Arrays.fill(expect, StripeLayer.EMPTY);
            long cum = 0;
            int prevTop = 0;
            long liveBytes = 0;
            for (int i = 0; i < a.size(); i++) {
                if (a.startNs(i) > at || a.endNs(i) <= at) {
                    continue;
                }
                liveBytes += a.bytes(i);
                if (!drawn[i]) {
                    continue;
                }
                int k = stripeOfAlloc[i];
                if (s.groupOfStripe(k).hidden()) {
                    sawHidden = true;
                    continue;
                }
                int top = (int) Math.min(h, Math.round((cum + a.bytes(i)) * perByte));
                for (int y = prevTop; y < top; y++) {
                    expect[h - 1 - y] = k + 1;
                }
                prevTop = Math.max(prevTop, top);
                cum += a.bytes(i);
            }
            int othersTop = (int) Math.min(h, Math.round(liveBytes * perByte));
            for (int y = prevTop; y < othersTop; y++) {
                expect[h - 1 - y] = StripeLayer.OTHERS;
            }
            for (int row = 0; row < h; row++) {
                int got = s.slotAt(x, row);
                if (got == StripeLayer.ENVELOPE) {
                    assertTrue(row <= h - 1 - Math.max(prevTop, othersTop), "the envelope lies above what is live at the instant");
                    continue;
                }
                assertEquals(expect[row], got, what + ", column " + x + " of " + w + ", row " + row);
            }
        }
        return sawHidden;
    }

    /**
     * The whole session of many more allocations than are drawn one by one (a coarse zoom: the query
     * skips nothing by time, it reads the size levels and keeps the largest): the drawn allocations are
     * exactly the {@link StripeBuilder#MAX_STRIPES} largest of those of at least the lane's quarter
     * pixel seen at a column's instant (ties to the earlier), and every column their exact restacking.
     */
    @Test
    void theWholeSessionOfManyAllocationsIsTheLargestRestackedExactly() {
        boolean cut = false;
        boolean thinned = false;
        // store 0: sizes up to 2 MB (many more than are drawn qualify); store 1: one in four of 1-32 MiB
        // (size levels of 2 MiB and up are kept, and a low lane asks for that much)
        EventStore[] stores = {store(11, 60_000, 5, 0), store(12, 90_000, 5, 4)};
        for (int[] cfg : new int[][] {{0, 1600, 800}, {0, 317, 800}, {1, 1600, 800}, {1, 1600, 150}, {1, 640, 120}}) {
            EventStore st = stores[cfg[0]];
            SiteAnalysis sa = SiteAnalysis.of(st, st.memories().getFirst(), false);
            Allocations a = sa.allocationTable();
            assertTrue(a.size() > 3 * StripeBuilder.MAX_STRIPES, a.size() + " allocations");
            TimeRange full = new TimeRange(st.startNs(), st.endNs() + 1);
            int w = cfg[1];
            StripeLayer s = layer(st, sa, full, w, cfg[2], StripeOptions.NONE);
            long min = s.minBytes();
            String what = "store " + cfg[0] + ", whole session " + w + " px wide, " + s.height() + " high, from " + min + " B";
            List<Integer> seen = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                if (a.bytes(i) < min) {
                    continue;
                }
                int col = StripeBuilder.firstAtOrAfter(s.instants, a.startNs(i));
                if (col < s.instants.length && s.instants[col] < a.endNs(i)) {
                    seen.add(i);
                }
            }
            assertEquals(seen.size(), s.qualified(), "qualifying allocations, " + what);
            List<Integer> want = new ArrayList<>(seen);
            want.sort((p, q) -> a.bytes(p) != a.bytes(q) ? Long.compare(a.bytes(q), a.bytes(p)) : Integer.compare(p, q));
            want = new ArrayList<>(want.subList(0, Math.min(want.size(), StripeBuilder.MAX_STRIPES)));
            want.sort(Integer::compare);
            List<Integer> got = new ArrayList<>();
            for (int k = 0; k < s.stripes(); k++) {
                got.add(s.allocation(k));
            }
            assertEquals(want, got, "the largest, in allocation order, " + what);
            assertRestacked(st, a, s, what);
            cut |= seen.size() > StripeBuilder.MAX_STRIPES;
            thinned |= a.scannedFloor(min) > 0;
        }
        assertTrue(cut, "some view had more allocations than are drawn one by one");
        assertTrue(thinned, "some view's query read a size level, not the whole table");
    }

    @Test
    void theLegendsFiguresAreTheSitesAtThePeakAtAnyLaneSizeAndAddUpToTheRawEvents() {
        EventStore st = store(11, 6000);
        SiteAnalysis sa = SiteAnalysis.of(st, st.memories().getFirst(), false);
        TimeRange full = new TimeRange(st.startNs(), st.endNs() + 1);
        var sites = sa.ask(new SiteQuestion.AtPeak(), SiteAnalysis.By.SITE);
        Map<String, Long> expected = new TreeMap<>();
        for (var row : sites.rows()) {
            expected.merge(StripeBuilder.PeakAnswer.keyOf(row, SiteAnalysis.By.SITE), row.bytes(), Long::sum);
        }
        // the raw events: the used gauge right after the peak's event is the peak, and the sites add up to it
        long peakEvent = sa.peakEvent();
        assertTrue(peakEvent >= 0);
        long usedAfterPeak = st.event(peakEvent).used();
        assertEquals(usedAfterPeak, sites.totalBytes(), "the Sites answer at the peak is the gauge's peak");
        assertEquals(usedAfterPeak, expected.values().stream().mapToLong(Long::longValue).sum());
        Map<String, Long> big = null;
        for (int[] size : new int[][] {{1400, 600}, {300, 60}}) {
            StripeLayer s = layer(st, sa, full, size[0], size[1], StripeOptions.NONE);
            Map<String, Long> shown = new TreeMap<>();
            for (StripeLayer.Group g : s.groups()) {
                shown.put(g.key(), g.atPeakBytes());
                assertEquals(expected.getOrDefault(g.key(), 0L), g.atPeakBytes(), size[0] + "x" + size[1] + ": " + g.label() + " at the peak, as Sites says");
            }
            assertEquals(sites.totalCount(), s.atPeak().live(), "allocations live at the peak");
            assertEquals(sites.totalBytes(), s.atPeak().bytes());
            assertTrue(s.atPeak().drawn() <= s.atPeak().live());
            // the drawn ones counted at the peak: exactly the stripes live after the peak's event
            int drawn = 0;
            Allocations a = sa.allocationTable();
            for (int k = 0; k < s.stripes(); k++) {
                int id = s.allocation(k);
                if (a.startEvent(id) <= peakEvent && (a.endEvent(id) < 0 || a.endEvent(id) > peakEvent)) {
                    drawn++;
                }
            }
            assertEquals(drawn, s.atPeak().drawn());
            if (big == null) {
                big = shown;
            } else {
                for (var e : shown.entrySet()) {
                    if (big.containsKey(e.getKey())) {
                        assertEquals(big.get(e.getKey()), e.getValue(), "a group's figure does not change with the lane's size: " + e.getKey());
                    }
                }
            }
        }
        // the lane's label counts what is drawn in the legend's words, never "N of M seen"
        StripeOptions o = new StripeOptions(Set.of(0), Map.of(0, sa), SiteAnalysis.By.SITE, Set.of(), null);
        DrawList.Lane lane = DrawListBuilder.build(new DrawListBuilder.Frame(st, full, 800, 300, TraceAggregate.Snapshot.EMPTY, null, null,
                BaselinePairing.NONE, false, o)).lanes().getFirst();
        String label = TimelinePainter.laneLabel(lane);
        assertTrue(label.contains(String.format(java.util.Locale.ROOT, "stripes by site: %,d drawn one by one in view, the rest in the grey band",
                lane.stripes().stripes())) && !label.contains("seen"), label);
        String line = StripeLegend.countsText(1, sites.totalCount(), sites.totalBytes(), 10, 3, 3);
        assertTrue(line.startsWith("bytes at the peak: "), line);
        assertTrue(line.contains(String.format(java.util.Locale.ROOT, "%,d in the grey band", sites.totalCount() - 10)), line);
    }

    @Test
    void theLargestAreDrawnAndTheGroupsComeLargestFirst() {
        EventStore st = store(9, 4000);
        SiteAnalysis sa = SiteAnalysis.of(st, st.memories().getFirst(), false);
        TimeRange full = new TimeRange(st.startNs(), st.endNs() + 1);
        StripeLayer s = layer(st, sa, full, 600, 400, StripeOptions.NONE);
        assertTrue(s.stripes() > 0 && s.stripes() <= StripeBuilder.MAX_STRIPES);
        assertTrue(s.qualified() >= s.stripes());
        for (int g = 1; g < s.groups().size(); g++) {
            StripeLayer.Group x = s.groups().get(g - 1);
            StripeLayer.Group y = s.groups().get(g);
            assertTrue(x.atPeakBytes() > y.atPeakBytes() || x.atPeakBytes() == y.atPeakBytes() && x.peakBytes() >= y.peakBytes(),
                    "largest at the peak first, then largest in view");
        }
        assertTrue(s.groups().stream().allMatch(g -> g.key().startsWith("site:") && g.label().contains("model.py")), s.groups().toString());
        // by category: two groups, named
        StripeLayer c = layer(st, sa, full, 600, 400, new StripeOptions(Set.of(), Map.of(), SiteAnalysis.By.CATEGORY, Set.of(), null));
        assertEquals(Set.of("activation", "weights"), Set.copyOf(c.groups().stream().map(StripeLayer.Group::label).toList()));
        // a highlighted site: its stripes strong, the rest not
        var frames = sa.pathFrames(sa.allocationTable().path(s.allocation(0)));
        var members = sa.members(new SiteQuestion.AllocatedIn(0, sa.endNs()), SiteAnalysis.By.SITE,
                (label, fr) -> fr.equals(frames));
        StripeLayer h = layer(st, sa, full, 600, 400, new StripeOptions(Set.of(), Map.of(), SiteAnalysis.By.SITE, Set.of(),
                new SiteSelection(0, frames.getFirst().label(), "every allocation made at this site", members)));
        int strong = 0;
        for (int k = 0; k < h.stripes(); k++) {
            boolean same = sa.pathFrames(sa.allocationTable().path(h.allocation(k))).equals(frames);
            assertEquals(same, h.strong[k], "stripe " + k);
            strong += same ? 1 : 0;
        }
        assertTrue(strong > 0 && strong < h.stripes());
        String card = s.describeStripe(0);
        assertTrue(card.contains("allocation ") && card.contains("site layer") && card.contains("main (train.py:1)"), card);
    }
}
