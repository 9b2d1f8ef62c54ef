package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;

import dev.arenascope.core.format.TimeAxis;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.TraceView;

/**
 * Who holds the memory: bytes and counts per allocation site of one memory, over any instant or time
 * range. The one site analysis the CLI ({@code arenascope sites}), the reports and the window use.
 *
 * <h2>Questions</h2>
 * One entry point, {@link #ask(SiteQuestion, By)}, for the five kinds of {@link SiteQuestion}:
 * <ul>
 *   <li>{@link SiteQuestion.LiveAt} / {@link SiteQuestion.AtPeak}: what is live at an instant (after every
 *       event at or before it). At the peak the rows add up to exactly the memory's peak in use.</li>
 *   <li>{@link SiteQuestion.AllocatedIn}: what was allocated in {@code [from, to]} (Tracy's limits),
 *       with the bytes of it still live at {@code to}.</li>
 *   <li>{@link SiteQuestion.Leaks}: live at the end of the trace, never freed.</li>
 *   <li>{@link SiteQuestion.Temporaries}: allocated and freed inside the range, alive for less
 *       than a threshold.</li>
 * </ul>
 * Each groups by {@link By#SITE} or {@link By#CATEGORY}; {@link SiteTree} turns a by-site answer into
 * top-down or bottom-up trees, {@link SiteDiff} compares two.
 *
 * <h2>Sites</h2>
 * An allocation's site is its stack ({@code Event#site()}), without the frames marked internal unless
 * asked for (a path of internal frames only keeps them, so nothing vanishes). An allocation without a
 * stack falls back to its chain of open scopes (arenas), and the answer says so
 * ({@link SiteSource#SCOPES}). Categories: the allocation's own, else an arena's innermost scope name,
 * a plan tensor's role, else {@code (none)}.
 *
 * <h2>Cost</h2>
 * Construction replays the trace once ({@link AllocationIndex}) and resolves every distinct site once;
 * each question is then one pass over primitive columns (about a millisecond per million allocations),
 * never a replay. Immutable and thread-safe once built.
 */
public final class SiteAnalysis {
    /** {@link SiteTable#SAMPLING_ATTRIBUTE}. */
    public static final String SAMPLING_ATTRIBUTE = SiteTable.SAMPLING_ATTRIBUTE;

    /** How a question's rows are grouped. */
    public enum By {
        SITE, CATEGORY
    }

    private final AllocationIndex x;
    private final boolean includeInternal;
    private final String sampling;
    private final SiteTable paths;
    private final int[] key;      // per allocation: node of 'paths', -1 for no site
    private final int[] cat;      // per allocation: index into categories
    private final List<String> categories;
    private final SiteSource source;
    private final Allocations allocations;

    private SiteAnalysis(TraceView view, MemoryInfo memory, boolean includeInternal) {
        this(AllocationIndex.build(view, memory), view, memory, includeInternal);
    }

    private SiteAnalysis(AllocationIndex x, TraceView view, MemoryInfo memory, boolean includeInternal) {
        this.x = x;
        this.includeInternal = includeInternal;
        this.sampling = view.session().attributes().get(SAMPLING_ATTRIBUTE);
        int n = x.size;
        key = new int[n];
        cat = new int[n];
        SiteKeys keys = new SiteKeys(x, view, memory, includeInternal);
        for (int i = 0; i < n; i++) {
            keys.resolve(x.site[i], x.scope[i], x.category[i]);
            key[i] = keys.key;
            cat[i] = keys.cat;
        }
        paths = keys.paths;
        categories = keys.categories;
        source = x.withSite > 0 ? SiteSource.STACKS : keys.anyScope ? SiteSource.SCOPES : SiteSource.NONE;
        allocations = new Allocations(this, x, key, cat);
    }

    /**
     * Builds the analysis of {@code memory}.
     *
     * @param includeInternal true: keep frames marked {@link StackFrame#FLAG_INTERNAL} in the paths
     */
    public static SiteAnalysis of(TraceView view, MemoryInfo memory, boolean includeInternal) {
        return new SiteAnalysis(view, memory, includeInternal);
    }

    /**
     * Builds the analysis of {@code memory} for the questions {@code only} alone: the replay keeps just the
     * allocations they take (and those live at once), so its memory is bounded by the trace's live set
     * plus their answers, not by its allocations; what a command asking one question of a trace bigger
     * than memory wants. Those questions (and any they cover: the same instant, a range or threshold
     * within theirs) answer as from {@link #of(TraceView, MemoryInfo, boolean)}; others, the allocation
     * table and the members of a row throw {@link IllegalStateException}.
     */
    public static SiteAnalysis of(TraceView view, MemoryInfo memory, boolean includeInternal, List<SiteQuestion> only) {
        return new SiteAnalysis(AllocationIndex.build(view, memory, only), view, memory, includeInternal);
    }

    /**
     * Who held {@code memory} at its peak, by its allocations' stacks, with bounded memory (as
     * {@link #of(TraceView, MemoryInfo, boolean, List)} for {@link SiteQuestion.AtPeak}); null when none
     * of its allocations carries a stack (the answer would not be {@link SiteSource#STACKS}). A memory
     * without stacks costs one replay and no table of its scopes.
     */
    public static SiteAnalysis stacksAtPeak(TraceView view, MemoryInfo memory, boolean includeInternal) {
        List<SiteQuestion> peak = List.of(new SiteQuestion.AtPeak());
        AllocationIndex x = AllocationIndex.buildWithoutScopes(view, memory, peak);
        if (x.withSite == 0) {
            return null;
        }
        if (x.scopesSkipped > 0) {
            x = AllocationIndex.build(view, memory, peak); // allocations without a stack fall back to their scopes
        }
        return new SiteAnalysis(x, view, memory, includeInternal);
    }

    /** The analysis of an index its caller built by its own pass ({@link AllocationIndex#fed}). */
    static SiteAnalysis of(AllocationIndex x, TraceView view, boolean includeInternal) {
        return new SiteAnalysis(x, view, x.memory, includeInternal);
    }

    /** As {@link #of(TraceView, MemoryInfo, boolean, List)}, compacting from {@code compactFrom} allocations (tests). */
    static SiteAnalysis of(TraceView view, MemoryInfo memory, boolean includeInternal, List<SiteQuestion> only, int compactFrom) {
        return new SiteAnalysis(AllocationIndex.build(view, memory, only, compactFrom), view, memory, includeInternal);
    }

    /** Allocations a bounded analysis's replay dropped as no question of its took them (0 when not bounded). */
    public long droppedAllocations() {
        return x.dropped;
    }

    /** Allocations this analysis holds. */
    public int heldAllocations() {
        return x.size;
    }

    /** As {@link #of(TraceView, MemoryInfo, boolean, List)} for the memory named {@code name}. */
    public static SiteAnalysis of(TraceView view, String name, boolean includeInternal, List<SiteQuestion> only) {
        return of(view, named(view, name), includeInternal, only);
    }

    private static MemoryInfo named(TraceView view, String name) {
        for (MemoryInfo m : view.memories()) {
            if (m.name().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("no memory named '" + name + "' (the trace has: "
                + String.join(", ", view.memories().stream().map(MemoryInfo::name).toList()) + ")");
    }

    /** Whether this analysis was built for some questions alone (see {@link #of(TraceView, MemoryInfo, boolean, List)}). */
    public boolean bounded() {
        return x.only != null;
    }

    /** Whether a bounded analysis can answer {@code q}: one of its questions covers it. Always true when not bounded. */
    public boolean answers(SiteQuestion q) {
        if (x.only == null) {
            return true;
        }
        for (SiteQuestion o : x.only) {
            boolean covers = switch (o) {
                case SiteQuestion.AtPeak p -> q instanceof SiteQuestion.AtPeak;
                case SiteQuestion.Leaks l -> q instanceof SiteQuestion.Leaks;
                case SiteQuestion.LiveAt l -> q instanceof SiteQuestion.LiveAt w && w.atNs() == l.atNs();
                case SiteQuestion.AllocatedIn r -> q instanceof SiteQuestion.AllocatedIn w && w.fromNs() >= r.fromNs() && w.toNs() <= r.toNs();
                case SiteQuestion.Temporaries t -> q instanceof SiteQuestion.Temporaries w && w.fromNs() >= t.fromNs()
                        && w.toNs() <= t.toNs() && w.shorterThanNs() <= t.shorterThanNs();
            };
            if (covers) {
                return true;
            }
        }
        return false;
    }

    private void covered(SiteQuestion q) {
        if (!answers(q)) {
            throw new IllegalStateException("this site analysis was built for " + x.only + " alone, not for " + q);
        }
    }

    /**
     * Builds the analysis of the memory named {@code name}.
     *
     * @throws IllegalArgumentException naming the trace's memories when none is called so
     */
    public static SiteAnalysis of(TraceView view, String name, boolean includeInternal) {
        for (MemoryInfo m : view.memories()) {
            if (m.name().equals(name)) {
                return of(view, m, includeInternal);
            }
        }
        throw new IllegalArgumentException("no memory named '" + name + "' (the trace has: "
                + String.join(", ", view.memories().stream().map(MemoryInfo::name).toList()) + ")");
    }

    // ---------------------------------------------------------------- facts

    /** The memory analysed. */
    public MemoryInfo memory() {
        return x.memory;
    }

    /** Allocations of the memory in the trace. */
    public long allocations() {
        return x.size;
    }

    /** Where this memory's sites come from. */
    public SiteSource source() {
        return source;
    }

    /** The sampling the recorder declared, or null. */
    public String sampling() {
        return sampling;
    }

    /** The most bytes live at once. */
    public long peakBytes() {
        return x.peakBytes;
    }

    /** When that peak was first reached (effective time, ns since the session start), -1 if never. */
    public long peakNs() {
        return x.peakNs;
    }

    /**
     * The event index after which the peak was first reached, -1 if never: what is live "at the peak" is
     * what was allocated at or before it and freed after it ({@link SiteQuestion.AtPeak}).
     */
    public long peakEvent() {
        return x.peakIndex;
    }

    /** Events whose {@code used} gauge disagreed with the live allocations (0 for every producer of this project). */
    public long gaugeMismatches() {
        return x.gaugeMismatches();
    }

    /** Time of the trace's last event. */
    public long endNs() {
        return x.endTimeNs;
    }

    /** Every allocation one by one, with its site path and category as this analysis groups them. */
    public Allocations allocationTable() {
        if (x.only != null) {
            throw new IllegalStateException("this site analysis was built for " + x.only + " alone: it holds no allocation table");
        }
        return allocations;
    }

    /** The frames of site path {@code p} ({@link Allocations#path(int)}), innermost first; empty for -1 or an unknown path. */
    public List<StackFrame> pathFrames(int p) {
        return p < 0 || p >= paths.nodeCount() ? List.of() : paths.frames(p);
    }

    /** Site paths known to this analysis. */
    public int pathCount() {
        return paths.nodeCount();
    }

    /** The name of category number {@code c} ({@link Allocations#category(int)}). */
    public String categoryName(int c) {
        return categories.get(c);
    }

    /** Categories known to this analysis. */
    public int categoryCount() {
        return categories.size();
    }

    // ---------------------------------------------------------------- questions

    /** {@link #ask(SiteQuestion, By)} by site. */
    public SiteBreakdown ask(SiteQuestion question) {
        return ask(question, By.SITE);
    }

    /**
     * Answers {@code question} (each kind says what it counts: {@link SiteQuestion}), grouped {@code by}
     * site or category. One pass over the allocation table; the CLI, the reports and the window all ask
     * here.
     *
     * @throws IllegalArgumentException when the question's time or range lies outside the trace, its range
     *         is reversed, or a temporaries threshold is not positive
     */
    public SiteBreakdown ask(SiteQuestion question, By by) {
        covered(question);
        return aggregate(query(question), by);
    }

    /** Picks the rows of an answer: a site by its label and frames (innermost first), a category by its name (no frames). */
    @FunctionalInterface
    public interface RowMatcher {
        boolean matches(String label, List<StackFrame> frames);
    }

    /**
     * The allocations {@code question} counts in the rows {@code rows} picks (grouped {@code by} site or
     * category): their events, bytes and count. With {@link SiteTree#matcher} these are the allocations of
     * one tree node. One pass over the allocations, like a question.
     *
     * @throws IllegalArgumentException when the question's time or range lies outside the trace
     */
    public SiteMembers members(SiteQuestion question, By by, RowMatcher rows) {
        covered(question);
        Query q = query(question);
        boolean[] pick;
        int[] group;
        int offset;
        if (by == By.SITE) {
            pick = new boolean[paths.nodeCount() + 1];
            for (int g = 0; g < pick.length; g++) {
                List<StackFrame> frames = paths.frames(g - 1);
                pick[g] = rows.matches(frames.isEmpty() ? "(no site)" : frames.getFirst().label(), frames);
            }
            group = key;
            offset = 1;
        } else {
            pick = new boolean[categories.size()];
            for (int g = 0; g < pick.length; g++) {
                pick[g] = rows.matches(categories.get(g), List.of());
            }
            group = cat;
            offset = 0;
        }
        long[] allocs = new long[64];
        long[] frees = new long[64];
        int na = 0;
        int nf = 0;
        long bytes = 0;
        BitSet stacks = new BitSet();
        for (int i = 0, n = x.size; i < n; i++) {
            if (pick[group[i] + offset] && q.take.test(i)) {
                if (na == allocs.length) {
                    allocs = Arrays.copyOf(allocs, na * 2);
                }
                allocs[na++] = x.start[i];
                if (x.end[i] != AllocationIndex.NEVER) {
                    if (nf == frees.length) {
                        frees = Arrays.copyOf(frees, nf * 2);
                    }
                    frees[nf++] = x.end[i];
                }
                bytes += x.bytes[i];
                if (x.site[i] >= 0) {
                    stacks.set(x.site[i]);
                }
            }
        }
        long[] a = Arrays.copyOf(allocs, na); // allocation order is event order: already ascending
        long[] f = Arrays.copyOf(frees, nf);
        Arrays.sort(f);
        int u = 0;
        for (int k = 0; k < f.length; k++) {
            if (u == 0 || f[u - 1] != f[k]) {
                f[u++] = f[k];
            }
        }
        return new SiteMembers(a, Arrays.copyOf(f, u), stacks, bytes, na);
    }

    /** A question as the pass over the allocations runs it. */
    private record Query(String text, long fromNs, long toNs, Test take, Test stillLive) {}

    private Query query(SiteQuestion question) {
        return switch (question) {
            case SiteQuestion.AtPeak p -> {
                long pi = x.peakIndex;
                long at = Math.max(0, x.peakNs);
                yield new Query("live at the peak (" + bytes(x.peakBytes) + " at " + seconds(at) + ")", at, at,
                        i -> x.start[i] <= pi && x.end[i] > pi, i -> true);
            }
            case SiteQuestion.LiveAt l -> {
                long atNs = l.atNs();
                if (atNs < 0 || atNs > x.endTimeNs) {
                    throw new IllegalArgumentException("time " + seconds(atNs) + " is outside the trace (0 .. " + seconds(x.endTimeNs) + ")");
                }
                yield new Query("live at " + seconds(atNs), atNs, atNs, i -> x.startNs[i] <= atNs && x.endNs[i] > atNs, i -> true);
            }
            case SiteQuestion.AllocatedIn r -> {
                long fromNs = r.fromNs();
                long toNs = r.toNs();
                checkRange(fromNs, toNs);
                yield new Query("allocated from " + seconds(fromNs) + " to " + seconds(toNs), fromNs, toNs,
                        i -> x.startNs[i] >= fromNs && x.startNs[i] <= toNs, i -> x.endNs[i] > toNs);
            }
            case SiteQuestion.Leaks l -> {
                long end = x.endTimeNs;
                yield new Query("live at the end of the trace (" + seconds(end) + ")", end, end,
                        i -> x.end[i] == AllocationIndex.NEVER, i -> true);
            }
            case SiteQuestion.Temporaries t -> {
                long fromNs = t.fromNs();
                long toNs = t.toNs();
                long shorterThanNs = t.shorterThanNs();
                checkRange(fromNs, toNs);
                if (shorterThanNs <= 0) {
                    throw new IllegalArgumentException("the temporary threshold must be positive, got " + shorterThanNs + " ns");
                }
                yield new Query("temporaries (freed within " + span(shorterThanNs) + ") from " + seconds(fromNs)
                        + " to " + seconds(toNs), fromNs, toNs,
                        i -> x.startNs[i] >= fromNs && x.end[i] != AllocationIndex.NEVER && x.endNs[i] <= toNs
                                && x.endNs[i] - x.startNs[i] < shorterThanNs,
                        i -> false);
            }
        };
    }

    private void checkRange(long fromNs, long toNs) {
        if (fromNs > toNs) {
            throw new IllegalArgumentException("the range " + seconds(fromNs) + " .. " + seconds(toNs) + " is reversed");
        }
        if (fromNs < 0 || toNs > x.endTimeNs) {
            throw new IllegalArgumentException("the range " + seconds(fromNs) + " .. " + seconds(toNs)
                    + " is outside the trace (0 .. " + seconds(x.endTimeNs) + ")");
        }
    }

    private interface Test {
        boolean test(int allocation);
    }

    private SiteBreakdown aggregate(Query query, By by) {
        String question = query.text();
        long fromNs = query.fromNs();
        long toNs = query.toNs();
        Test take = query.take();
        Test stillLive = query.stillLive();
        int groups = by == By.SITE ? paths.nodeCount() + 1 : categories.size();
        long[] bytes = new long[groups];
        long[] count = new long[groups];
        long[] live = new long[groups];
        long totalBytes = 0;
        long totalCount = 0;
        int[] group = by == By.SITE ? key : cat;
        int offset = by == By.SITE ? 1 : 0;
        long[] b = x.bytes;
        for (int i = 0, n = x.size; i < n; i++) {
            if (take.test(i)) {
                int g = group[i] + offset;
                bytes[g] += b[i];
                count[g]++;
                if (stillLive.test(i)) {
                    live[g] += b[i];
                }
                totalBytes += b[i];
                totalCount++;
            }
        }
        List<SiteBreakdown.Row> rows = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            if (count[g] == 0) {
                continue;
            }
            String label;
            List<StackFrame> frames;
            if (by == By.CATEGORY) {
                label = categories.get(g);
                frames = List.of();
            } else {
                frames = paths.frames(g - 1);
                label = frames.isEmpty() ? "(no site)" : frames.getFirst().label();
            }
            rows.add(new SiteBreakdown.Row(label, frames, bytes[g], count[g], live[g]));
        }
        rows.sort((r, s) -> r.bytes() != s.bytes() ? Long.compare(s.bytes(), r.bytes())
                : r.count() != s.count() ? Long.compare(s.count(), r.count()) : r.label().compareTo(s.label()));
        String q = by == By.CATEGORY ? question + ", by category" : question;
        return new SiteBreakdown(x.memory.name(), q, fromNs, toNs, totalBytes, totalCount, source, sampling,
                !includeInternal, rows);
    }

    private static String bytes(long n) {
        return String.format(Locale.ROOT, "%,d B", n);
    }

    /** An instant in the memory's own terms: {@code 0.003697 s}, or {@code entry 3697} where it has no timestamps. */
    private String seconds(long ns) {
        return TimeAxis.of(x.memory.attributes()).plain(ns);
    }

    private String span(long ns) {
        TimeAxis axis = TimeAxis.of(x.memory.attributes());
        return axis == TimeAxis.TIME ? String.format(Locale.ROOT, "%.6f s", ns / 1e9) : axis.span(ns);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "SiteAnalysis[%s, %d allocations, %d with a stack, %s]", x.memory.name(), x.size,
                x.withSite, source);
    }
}
