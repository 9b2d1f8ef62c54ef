package dev.arenascope.core.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Every site question checked against a brute-force answer: the generator keeps each allocation's
 * true site, bytes and lifetime, and the expected answer is a plain scan over that list.
 */
class SiteAnalysisTest {

    /** What the generator knows about one allocation. */
    private static final class Truth {
        final List<String> path; // function names, innermost first, internal frames left out
        final String category;
        final long bytes;
        final long startNs;
        long endNs = Long.MAX_VALUE;

        Truth(List<String> path, String category, long bytes, long startNs) {
            this.path = path;
            this.category = category;
            this.bytes = bytes;
            this.startNs = startNs;
        }
    }

    private static final class Generated {
        final EventStore store = new EventStore("generated");
        final Map<Integer, List<Truth>> truths = new HashMap<>();
        long endNs;
    }

    private static final String[] FUNCS = {"main", "train", "forward", "attention", "mlp", "alloc_internal"};

    /** A trace of a segmented (import-like) memory, a pool and an arena with random sites and lifetimes. */
    private static Generated generate(long seed, int operations) {
        return generate(seed, operations, -1);
    }

    /** As above, the sizes of memory {@code larger}'s allocations (0, 1 or 2; -1: none) 64 times as large. */
    private static Generated generate(long seed, int operations, int larger) {
        Random rnd = new Random(seed);
        Generated g = new Generated();
        EventStore st = g.store;
        st.onSession(new SessionInfo("s", "h", 0, List.of(), Map.of()));
        st.onMemory(new MemoryInfo(0, "cuda:0", MemoryKind.SEGMENTED, "cuda:0", 0, Map.of()));
        st.onMemory(new MemoryInfo(1, "pool", MemoryKind.POOL, "cuda:0", 0, Map.of()));
        st.onMemory(new MemoryInfo(2, "arena", MemoryKind.ARENA, "cuda:0", 1 << 30, Map.of()));
        String[] cats = {"activation", "kv_cache", "weights"};
        for (int i = 0; i < cats.length; i++) {
            st.onString(i, cats[i]);
        }
        st.onString(3, "frame");
        st.onString(4, "layer");
        SiteTable sites = new SiteTable();
        int[] frameIds = new int[FUNCS.length];
        for (int i = 0; i < FUNCS.length; i++) {
            frameIds[i] = sites.frame(FUNCS[i], "model.py", 10 + i, i == FUNCS.length - 1 ? StackFrame.FLAG_INTERNAL : 0);
        }
        // a handful of paths; some end in the internal frame, which the analysis hides
        List<int[]> paths = new ArrayList<>();
        List<List<String>> visible = new ArrayList<>();
        for (int p = 0; p < 9; p++) {
            int depth = 1 + rnd.nextInt(4);
            int[] path = new int[depth + (p % 3 == 0 ? 1 : 0)];
            List<String> names = new ArrayList<>();
            for (int d = 0; d < depth; d++) {
                path[d] = d == 0 ? 0 : 1 + rnd.nextInt(4);
                names.addFirst(FUNCS[path[d]]);
            }
            if (p % 3 == 0) {
                path[depth] = frameIds.length - 1;
            }
            paths.add(path);
            visible.add(names);
        }
        int[] siteIds = paths.stream().mapToInt(sites::stack).toArray();
        sites.announceNew(st);

        EventBatch b = new EventBatch();
        long t = 0;
        TreeMap<Long, Truth> seg = new TreeMap<>();
        TreeMap<Long, Truth> pool = new TreeMap<>();
        List<long[]> fwd = new ArrayList<>(); // {offset, bytes}
        List<Truth> fwdTruth = new ArrayList<>();
        long segUsed = 0;
        long poolUsed = 0;
        long fwdPtr = 0;
        int scopeId = 0;
        List<Truth> segT = g.truths.computeIfAbsent(0, k -> new ArrayList<>());
        List<Truth> poolT = g.truths.computeIfAbsent(1, k -> new ArrayList<>());
        List<Truth> arenaT = g.truths.computeIfAbsent(2, k -> new ArrayList<>());
        // one open arena scope for the scope fallback check: arena allocations carry no stack
        b.add(new Event(t, EventKind.SCOPE_ENTER, 0, 2, 1, 0, 1 << 30, -1, 0, 0, 3, scopeId));
        b.add(new Event(++t, EventKind.SCOPE_ENTER, 0, 2, 1, 0, 1 << 30, scopeId, 0, 0, 4, scopeId + 1));
        for (int op = 0; op < operations; op++) {
            t += 1 + rnd.nextInt(1000);
            int which = rnd.nextInt(3);
            int ps = rnd.nextInt(siteIds.length);
            int cat = rnd.nextInt(4) - 1;
            long bytes = 16L * (1 + rnd.nextInt(1000)) * (which == larger ? 64 : 1);
            String catName = cat < 0 ? "(none)" : cats[cat];
            if (which == 0) {
                if (seg.isEmpty() || rnd.nextInt(10) < 6) {
                    long addr = rnd.nextInt(5000) * 16L;
                    Truth old = seg.remove(addr);
                    if (old != null) { // replaced at the same address
                        old.endNs = t;
                        segUsed -= old.bytes;
                    }
                    Truth tr = new Truth(visible.get(ps), catName, bytes, t);
                    seg.put(addr, tr);
                    segT.add(tr);
                    segUsed += bytes;
                    b.add(new Event(t, EventKind.ALLOC, 0, 0, 1, addr, bytes, bytes, segUsed, 0, -1, -1, siteIds[ps], cat));
                } else {
                    long addr = seg.keySet().stream().skip(rnd.nextInt(seg.size())).findFirst().orElseThrow();
                    Truth tr = seg.remove(addr);
                    tr.endNs = t;
                    segUsed -= tr.bytes;
                    b.add(new Event(t, EventKind.FREE, 0, 0, 1, addr, tr.bytes, 0, segUsed, 0, -1, -1));
                }
            } else if (which == 1) {
                if (pool.isEmpty() || rnd.nextBoolean()) {
                    long addr = 1_000_000 + op * 64L;
                    Truth tr = new Truth(visible.get(ps), catName, bytes, t);
                    pool.put(addr, tr);
                    poolT.add(tr);
                    poolUsed += bytes;
                    b.add(new Event(t, EventKind.POOL_REQUEST, 0, 1, 1, addr, bytes, bytes, poolUsed, poolUsed, 3, 0, siteIds[ps], cat));
                } else {
                    long addr = pool.firstKey();
                    Truth tr = pool.remove(addr);
                    tr.endNs = t;
                    poolUsed -= tr.bytes;
                    b.add(new Event(t, rnd.nextBoolean() ? EventKind.POOL_HOLD : EventKind.POOL_RELEASE, 0, 1, 1, addr, tr.bytes, 0,
                            poolUsed, poolUsed, 3, -1));
                }
            } else {
                if (fwd.isEmpty() || rnd.nextInt(10) < 7) {
                    Truth tr = new Truth(List.of("layer", "frame"), "layer", bytes, t);
                    fwd.add(new long[] {fwdPtr, bytes});
                    fwdTruth.add(tr);
                    arenaT.add(tr);
                    b.add(new Event(t, EventKind.ALLOC, 0, 2, 1, fwdPtr, bytes, bytes, fwdPtr + bytes, 0, 7, scopeId + 1));
                    fwdPtr += bytes;
                } else {
                    int keep = rnd.nextInt(fwd.size());
                    long p = fwd.get(keep)[0];
                    long released = fwdPtr - p;
                    while (fwd.size() > keep) {
                        fwd.removeLast();
                        fwdTruth.removeLast().endNs = t;
                    }
                    fwdPtr = p;
                    b.add(new Event(t, EventKind.POINTER_RESTORE, 0, 2, 1, p, released, 0, fwdPtr, 0, -1, -1));
                }
            }
        }
        st.onEvents(b);
        g.endNs = t;
        return g;
    }

    private record Expected(long bytes, long count, long stillLive) {}

    private static Map<List<String>, Expected> expected(List<Truth> all, Predicate<Truth> take,
                                                        Predicate<Truth> live, boolean byCategory) {
        Map<List<String>, Expected> m = new HashMap<>();
        for (Truth tr : all) {
            if (take.test(tr)) {
                List<String> k = byCategory ? List.of(tr.category) : tr.path;
                Expected e = m.getOrDefault(k, new Expected(0, 0, 0));
                m.put(k, new Expected(e.bytes + tr.bytes, e.count + 1, e.stillLive + (live.test(tr) ? tr.bytes : 0)));
            }
        }
        return m;
    }

    private static Map<List<String>, Expected> actual(SiteBreakdown sb, boolean byCategory) {
        Map<List<String>, Expected> m = new HashMap<>();
        long bytes = 0;
        long count = 0;
        for (SiteBreakdown.Row r : sb.rows()) {
            List<String> k = byCategory ? List.of(r.label()) : r.frames().stream().map(StackFrame::function).toList();
            m.put(k, new Expected(r.bytes(), r.count(), r.stillLiveBytes()));
            bytes += r.bytes();
            count += r.count();
        }
        assertEquals(sb.totalBytes(), bytes, "rows add up to the total");
        assertEquals(sb.totalCount(), count);
        for (int i = 1; i < sb.rows().size(); i++) {
            assertTrue(sb.rows().get(i - 1).bytes() >= sb.rows().get(i).bytes(), "largest first");
        }
        return m;
    }

    @Test
    void everyQuestionMatchesBruteForceAtRandomInstantsAndRanges() {
        for (long seed = 1; seed <= 3; seed++) {
            Generated g = generate(seed, 4000);
            Random rnd = new Random(seed * 31);
            for (int mem = 0; mem < 3; mem++) {
                SiteAnalysis sa = SiteAnalysis.of(g.store, g.store.memories().get(mem), false);
                assertEquals(0, sa.gaugeMismatches(), "live bytes follow the used gauge");
                assertEquals(g.store.peakUsed(mem), sa.peakBytes(), "peak");
                assertEquals(mem == 2 ? SiteSource.SCOPES : SiteSource.STACKS, sa.source());
                List<Truth> all = g.truths.get(mem);
                SiteBreakdown peak = sa.ask(new SiteQuestion.AtPeak());
                assertEquals(g.store.peakUsed(mem), peak.totalBytes(), "the peak's sites add up to the peak");
                for (boolean byCat : new boolean[] {false, true}) {
                    SiteAnalysis.By by = byCat ? SiteAnalysis.By.CATEGORY : SiteAnalysis.By.SITE;
                    for (int q = 0; q < 20; q++) {
                        long at = rnd.nextLong(g.endNs + 1);
                        assertEquals(expected(all, tr -> tr.startNs <= at && tr.endNs > at, tr -> true, byCat),
                                actual(sa.ask(new SiteQuestion.LiveAt(at), by), byCat), "live at " + at);
                        long a = rnd.nextLong(g.endNs + 1);
                        long c = rnd.nextLong(g.endNs + 1);
                        long from = Math.min(a, c);
                        long to = Math.max(a, c);
                        assertEquals(expected(all, tr -> tr.startNs >= from && tr.startNs <= to, tr -> tr.endNs > to, byCat),
                                actual(sa.ask(new SiteQuestion.AllocatedIn(from, to), by), byCat), "allocated in " + from + ".." + to);
                        long thr = 1 + rnd.nextLong(200_000);
                        assertEquals(expected(all, tr -> tr.startNs >= from && tr.endNs <= to && tr.endNs - tr.startNs < thr,
                                        tr -> false, byCat),
                                actual(sa.ask(new SiteQuestion.Temporaries(from, to, thr), by), byCat), "temporaries");
                    }
                    assertEquals(expected(all, tr -> tr.endNs == Long.MAX_VALUE, tr -> true, byCat), actual(sa.ask(new SiteQuestion.Leaks(), by), byCat), "leaks");
                }
            }
        }
    }

    /**
     * Built for some questions alone, the analysis drops what they do not take while it replays (here
     * from 64 allocations on, so it compacts many times) and answers them as the whole analysis does,
     * holding far fewer allocations; a question it was not built for is refused.
     */
    @Test
    void aBoundedAnalysisAnswersItsQuestionsAsTheWholeOneWithFewerAllocations() {
        Generated g = generate(13, 20000);
        Random rnd = new Random(13);
        int compacted = 0;
        for (int mem = 0; mem < 3; mem++) {
            MemoryInfo m = g.store.memories().get(mem);
            SiteAnalysis whole = SiteAnalysis.of(g.store, m, false);
            long at = rnd.nextLong(g.endNs + 1);
            long from = rnd.nextLong(g.endNs / 2);
            long to = from + g.endNs / 10;
            List<SiteQuestion> qs = List.of(new SiteQuestion.AtPeak(), new SiteQuestion.Leaks(), new SiteQuestion.LiveAt(at),
                    new SiteQuestion.AllocatedIn(from, to), new SiteQuestion.Temporaries(from, to, 100_000));
            for (SiteQuestion q : qs) {
                SiteAnalysis b = SiteAnalysis.of(g.store, m, false, List.of(q), 64);
                assertTrue(b.bounded());
                if (whole.heldAllocations() > 1024) { // the index's first arrays, which a replay fills before it compacts
                    assertTrue(b.droppedAllocations() > 0, "compacted: " + q);
                    assertTrue(b.heldAllocations() < whole.heldAllocations(), b.heldAllocations() + " of " + whole.heldAllocations() + ": " + q);
                    compacted++;
                }
                assertEquals(whole.peakBytes(), b.peakBytes());
                assertEquals(whole.peakEvent(), b.peakEvent());
                assertEquals(whole.source(), b.source());
                for (SiteAnalysis.By by : SiteAnalysis.By.values()) {
                    assertEquals(comparable(whole.ask(q, by)), comparable(b.ask(q, by)), q + " by " + by);
                }
                SiteQuestion other = q instanceof SiteQuestion.Leaks ? new SiteQuestion.AtPeak() : new SiteQuestion.Leaks();
                assertThrows(IllegalStateException.class, () -> b.ask(other));
                assertThrows(IllegalStateException.class, b::allocationTable);
            }
            SiteAnalysis peak = SiteAnalysis.stacksAtPeak(g.store, m, false);
            if (mem == 2) {
                assertEquals(null, peak, "an arena without stacks: nothing to say by stacks");
            } else {
                assertEquals(comparable(whole.ask(new SiteQuestion.AtPeak())), comparable(peak.ask(new SiteQuestion.AtPeak())));
            }
        }
        assertTrue(compacted >= 5, "compactions checked: " + compacted);
    }

    /**
     * A rank's row ({@link RankSummary}) replays its main memory into the site index in its own one pass
     * over the events: its sites at the peak are those of the memory's whole analysis, its peak the
     * gauge's, on traces whose main memory is each of the three kinds in turn.
     */
    @Test
    void aRankRowsSitesAtThePeakAreTheWholeAnalysisOfItsMainMemory() {
        Set<String> mains = new HashSet<>();
        for (long seed = 1; seed <= 6; seed++) {
            Generated g = generate(seed, 3000, (int) (seed % 3));
            MemoryInfo main = null;
            for (MemoryInfo m : g.store.memories()) {
                if (main == null || g.store.peakUsed(m.id()) > g.store.peakUsed(main.id())) {
                    main = m;
                }
            }
            RankSummary row = RankSummary.of("rank0", 0, "f", false, null, g.store);
            assertEquals(main.name(), row.memory(), "seed " + seed);
            assertEquals(g.store.peakUsed(main.id()), row.peakLiveBytes());
            SiteAnalysis whole = SiteAnalysis.of(g.store, main, false);
            assertEquals(whole.peakNs(), row.peakAtNs(), "the events are in time order here: the peak's time is its event's");
            assertEquals(comparable(whole.ask(new SiteQuestion.AtPeak(), SiteAnalysis.By.SITE)), comparable(row.sitesAtPeak()),
                    "seed " + seed + ", main " + main.name());
            mains.add(main.name());
        }
        assertEquals(Set.of("cuda:0", "pool", "arena"), mains, "each kind was the main memory of some trace");
    }

    /** An answer as a reader sees it: frames by function, file and line (their ids are the analysis's own numbering). */
    private static List<String> comparable(SiteBreakdown b) {
        List<String> out = new ArrayList<>();
        out.add(b.memory() + " | " + b.question() + " | " + b.fromNs() + ".." + b.toNs() + " | " + b.totalBytes() + " | " + b.totalCount()
                + " | " + b.source() + " | " + b.sampling() + " | " + b.internalHidden());
        for (SiteBreakdown.Row r : b.rows()) {
            out.add(r.label() + " | " + r.bytes() + " | " + r.count() + " | " + r.stillLiveBytes() + " | "
                    + r.frames().stream().map(f -> f.function() + "@" + f.file() + ":" + f.line() + "/" + f.flags()).toList());
        }
        return out;
    }

    @Test
    void allocationsOneByOneMatchTheTruthAndTheSampledQueryMatchesAScan() {
        Generated g = generate(5, 6000);
        Random rnd = new Random(77);
        for (int mem = 0; mem < 3; mem++) {
            SiteAnalysis sa = SiteAnalysis.of(g.store, g.store.memories().get(mem), false);
            Allocations a = sa.allocationTable();
            List<Truth> truth = g.truths.get(mem);
            assertEquals(truth.size(), a.size(), "allocations of memory " + mem);
            for (int i = 0; i < a.size(); i++) {
                Truth tr = truth.get(i);
                assertEquals(tr.bytes, a.bytes(i), "bytes of " + i);
                assertEquals(tr.startNs, a.startNs(i), "start of " + i);
                assertEquals(tr.endNs, a.endNs(i), "end of " + i);
                assertEquals(tr.endNs == Long.MAX_VALUE, a.endEvent(i) < 0, "a never-freed allocation has no free event");
                assertEquals(tr.category, a.categoryName(a.category(i)));
                if (mem < 2) {
                    assertEquals(tr.path, a.pathFrames(a.path(i)).stream().map(StackFrame::function).toList(), "path of " + i);
                }
                assertTrue(g.store.event(a.startEvent(i)).b() == tr.bytes, "the allocation's event is at its row");
            }
            for (int round = 0; round < 30; round++) {
                int cols = 1 + rnd.nextInt(200);
                long from = rnd.nextLong(g.endNs + 1);
                long step = 1 + rnd.nextLong(Math.max(1, (g.endNs - from) / cols + 1));
                long[] instants = new long[cols];
                for (int c = 0; c < cols; c++) {
                    instants[c] = from + c * step;
                }
                long minBytes = rnd.nextBoolean() ? 0 : 16L * rnd.nextInt(800);
                int limit = rnd.nextInt(4) == 0 ? 3 : 1 + rnd.nextInt(400);
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < a.size(); i++) {
                    if (a.bytes(i) < minBytes) {
                        continue;
                    }
                    for (long at : instants) {
                        if (a.startNs(i) <= at && a.endNs(i) > at) {
                            expected.add(i);
                            break;
                        }
                    }
                }
                Allocations.Largest largest = a.largest(instants, minBytes, limit);
                int[] got = largest.ids();
                assertEquals(expected.size(), largest.qualified(), "qualifying allocations");
                List<Integer> want = new ArrayList<>(expected);
                want.sort((p, q) -> a.bytes(p) != a.bytes(q) ? Long.compare(a.bytes(q), a.bytes(p)) : Integer.compare(p, q));
                want = new ArrayList<>(want.subList(0, Math.min(limit, want.size())));
                want.sort(Integer::compare);
                assertEquals(want, Arrays.stream(got).boxed().toList(), "the largest, in allocation order");
                long at = instants[0];
                long count = 0;
                long bytes = 0;
                for (int i = 0; i < a.size(); i++) {
                    if (a.startNs(i) <= at && a.endNs(i) > at) {
                        count++;
                        bytes += a.bytes(i);
                    }
                }
                assertEquals(List.of(count, bytes), Arrays.stream(a.liveAt(at)).boxed().toList(), "live at " + at);
            }
        }
    }

    @Test
    void internalFramesAreHiddenUnlessAsked() {
        Generated g = generate(7, 500);
        MemoryInfo m = g.store.memories().getFirst();
        boolean sawInternal = SiteAnalysis.of(g.store, m, true).ask(new SiteQuestion.Leaks()).rows().stream()
                .anyMatch(r -> r.frames().stream().anyMatch(StackFrame::internal));
        assertTrue(sawInternal, "with internals asked for, the internal frame is there");
        assertTrue(SiteAnalysis.of(g.store, m, false).ask(new SiteQuestion.Leaks()).rows().stream()
                .noneMatch(r -> r.frames().stream().anyMatch(StackFrame::internal)));
    }

    @Test
    void treesAddUpAndDiffMatchesSitesByLocation() {
        Generated g = generate(11, 3000);
        SiteAnalysis sa = SiteAnalysis.of(g.store, "cuda:0", false);
        SiteBreakdown peak = sa.ask(new SiteQuestion.AtPeak());
        for (SiteTree tree : List.of(SiteTree.topDown(peak), SiteTree.bottomUp(peak))) {
            assertEquals(peak.totalBytes(), tree.root().totalBytes());
            checkSums(tree.root());
        }
        // bottom-up first level: the innermost frames, whose totals are what was allocated right there
        Map<String, Long> inner = new HashMap<>();
        for (SiteBreakdown.Row r : peak.rows()) {
            inner.merge(r.frames().getFirst().function(), r.bytes(), Long::sum);
        }
        Map<String, Long> level = new HashMap<>();
        SiteTree.bottomUp(peak).root().children().forEach(n -> level.put(n.frame().function(), n.totalBytes()));
        assertEquals(inner, level);

        Generated other = generate(12, 3000);
        SiteBreakdown base = SiteAnalysis.of(other.store, "cuda:0", false).ask(new SiteQuestion.AtPeak());
        SiteDiff d = SiteDiff.between(base, peak);
        long deltas = d.entries().stream().mapToLong(SiteDiff.Entry::deltaBytes).sum();
        assertEquals(peak.totalBytes() - base.totalBytes(), deltas, "per-site deltas add up to the total's");
        SiteDiff self = SiteDiff.between(peak, peak);
        assertTrue(self.entries().stream().allMatch(e -> e.status() == SiteDiff.Status.SAME));
        SiteBreakdown none = SiteAnalysis.of(g.store, "cuda:0", false).ask(new SiteQuestion.LiveAt(0));
        assertTrue(SiteDiff.between(none, peak).entries().stream().allMatch(e -> e.status() == SiteDiff.Status.ADDED));
    }

    @Test
    void membersOfEveryTreeNodeAreItsAllocations() {
        Generated g = generate(13, 3000);
        for (int mem = 0; mem < 3; mem++) {
            MemoryInfo m = g.store.memories().get(mem);
            SiteAnalysis sa = SiteAnalysis.of(g.store, m, false);
            long end = sa.endNs();
            List<SiteQuestion> questions = List.of(new SiteQuestion.AtPeak(), new SiteQuestion.LiveAt(end / 2),
                    new SiteQuestion.AllocatedIn(end / 4, end / 2), new SiteQuestion.Leaks(),
                    new SiteQuestion.Temporaries(0, end, 50_000));
            for (SiteQuestion q : questions) {
                SiteBreakdown sb = sa.ask(q, SiteAnalysis.By.SITE);
                for (SiteTree tree : List.of(SiteTree.topDown(sb), SiteTree.bottomUp(sb))) {
                    SiteMembers all = sa.members(q, SiteAnalysis.By.SITE, tree.matcher(List.of()));
                    assertEquals(sb.totalBytes(), all.bytes(), "the root holds the whole answer");
                    assertEquals(sb.totalCount(), all.count());
                    checkMembers(sa, q, tree, tree.root(), new ArrayList<>(), g.store, mem);
                }
                SiteBreakdown cats = sa.ask(q, SiteAnalysis.By.CATEGORY);
                for (SiteBreakdown.Row r : cats.rows()) {
                    SiteMembers c = sa.members(q, SiteAnalysis.By.CATEGORY, (label, frames) -> label.equals(r.label()));
                    assertEquals(r.bytes(), c.bytes(), "category " + r.label());
                    assertEquals(r.count(), c.count());
                }
            }
        }
    }

    private static void checkMembers(SiteAnalysis sa, SiteQuestion q, SiteTree tree, SiteTree.Node n, List<StackFrame> path,
                                     EventStore store, int mem) {
        SiteMembers ms = sa.members(q, SiteAnalysis.By.SITE, tree.matcher(path));
        assertEquals(n.totalBytes(), ms.bytes(), "bytes of " + path);
        assertEquals(n.count(), ms.count(), "count of " + path);
        long[] allocs = ms.allocationEvents();
        assertEquals(n.count(), allocs.length);
        long sum = 0;
        for (int k = 0; k < allocs.length; k++) {
            Event e = store.event(allocs[k]);
            assertEquals(mem, e.memory());
            assertTrue(e.kind() == EventKind.ALLOC || e.kind() == EventKind.POOL_REQUEST, "an allocating event: " + e);
            assertTrue(k == 0 || allocs[k - 1] < allocs[k], "ascending");
            assertTrue(ms.isAllocation(allocs[k]) && ms.isAllocationOrFree(allocs[k]));
            sum += e.b();
        }
        assertEquals(n.totalBytes(), sum, "the events' bytes add up to the node's");
        for (long f : ms.freeEvents()) {
            assertTrue(ms.isAllocationOrFree(f));
            assertEquals(mem, store.event(f).memory());
        }
        long[] some = ms.eventsIn(store.eventCount() / 3, 2 * store.eventCount() / 3);
        for (long v : some) {
            assertTrue(v >= store.eventCount() / 3 && v < 2 * store.eventCount() / 3 && ms.isAllocationOrFree(v));
        }
        for (SiteTree.Node c : n.children()) {
            path.add(c.frame());
            checkMembers(sa, q, tree, c, path, store, mem);
            path.removeLast();
        }
    }

    private static void checkSums(SiteTree.Node n) {
        long kids = n.children().stream().mapToLong(SiteTree.Node::totalBytes).sum();
        assertEquals(n.totalBytes(), n.selfBytes() + kids, "total = self + children at " + n.frame());
        n.children().forEach(SiteAnalysisTest::checkSums);
    }

    @Test
    void badQuestionsSayWhatWasWrong() {
        Generated g = generate(3, 100);
        SiteAnalysis sa = SiteAnalysis.of(g.store, "pool", false);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> sa.ask(new SiteQuestion.LiveAt(g.endNs + 1))).getMessage().contains("outside the trace"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> sa.ask(new SiteQuestion.AllocatedIn(10, 5))).getMessage().contains("reversed"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SiteAnalysis.of(g.store, "nope", false))
                .getMessage().contains("cuda:0, pool, arena"));
    }

    @Test
    void thePeakIsExactWhenEventsShareItsTimestamp() {
        EventStore st = new EventStore("t");
        st.onMemory(new MemoryInfo(0, "m", MemoryKind.SEGMENTED, "d", 0, Map.of()));
        EventBatch b = new EventBatch();
        b.add(new Event(5, EventKind.ALLOC, 0, 0, 0, 0, 100, 100, 100, 0, -1, -1));
        b.add(new Event(5, EventKind.ALLOC, 0, 0, 0, 100, 50, 50, 150, 0, -1, -1));
        b.add(new Event(5, EventKind.FREE, 0, 0, 0, 100, 50, 0, 100, 0, -1, -1));
        st.onEvents(b);
        SiteAnalysis sa = SiteAnalysis.of(st, "m", false);
        assertEquals(150, sa.ask(new SiteQuestion.AtPeak()).totalBytes());
        assertEquals(100, sa.ask(new SiteQuestion.LiveAt(5)).totalBytes(), "at the time itself: after every event stamped then");
        assertEquals(SiteSource.NONE, sa.source());
    }
}
