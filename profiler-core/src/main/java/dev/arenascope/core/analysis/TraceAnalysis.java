package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.TraceView;

/**
 * The analyses of one trace, computed in one pass over its events: the query model reports and views
 * share. Each section is a list of {@link FigureRow}s: memories, scopes (largest peak first), pool bins,
 * plan arenas.
 *
 * <p>Cost: one read of every event ({@link TraceView#event}) plus small per-memory, per-scope and
 * per-bin state (arena scopes are also sampled for calibration in that pass, at most {@code 2 * SAMPLES_PER_SCOPE} executions a scope name; the sites at each peak are replayed with the live set alone, {@link SiteAnalysis#stacksAtPeak}); a live store is analysed as far as it had grown when {@link #of} started. Immutable and
 * thread-safe once built.
 *
 * <pre>{@code
 * TraceAnalysis a = TraceAnalysis.of(store);
 * long peak = a.memory("frame-arena").peakUsedBytes();
 * List<ScopeAnalysis> top = a.topScopes(10);
 * }</pre>
 *
 * @param session  session facts
 * @param memories one row per memory, in id order
 * @param scopes   one row per scope path and memory, largest peak first
 * @param poolBins one row per pool bin that saw a request, hold or release, by pool then bin
 * @param plans    one row per plan arena, in id order
 * @param sites    who held each memory whose allocations carry stacks at its peak, in id order
 */
public record TraceAnalysis(SessionSummary session, List<MemoryAnalysis> memories, List<ScopeAnalysis> scopes,
                            List<PoolBinAnalysis> poolBins, List<PlanAnalysis> plans, List<MemorySites> sites) {

    /**
     * Executions per scope name the calibration fit reads at most twice this many of (spread evenly over
     * the trace, {@link ScopeSampler#bounded}): below it, every execution.
     */
    public static final int SAMPLES_PER_SCOPE = 4_096;

    /** Occupancy buckets per memory when none are asked for. */
    public static final int DEFAULT_BUCKETS = 400;

    /**
     * The most memories given occupancy charts in their buckets: those with the largest footprints (ties
     * in the trace's order), as reports chart and list them; the others' occupancy is one bucket, their peaks.
     */
    public static final int MAX_CHARTED = 256;

    /** An analysis without allocation sites. */
    public TraceAnalysis(SessionSummary session, List<MemoryAnalysis> memories, List<ScopeAnalysis> scopes,
                         List<PoolBinAnalysis> poolBins, List<PlanAnalysis> plans) {
        this(session, memories, scopes, poolBins, plans, List.of());
    }

    public TraceAnalysis {
        sites = List.copyOf(sites);
        memories = List.copyOf(memories);
        scopes = List.copyOf(scopes);
        poolBins = List.copyOf(poolBins);
        plans = List.copyOf(plans);
    }

    /** Analyses {@code view} with {@link #DEFAULT_BUCKETS} occupancy buckets per memory. */
    public static TraceAnalysis of(TraceView view) {
        return of(view, DEFAULT_BUCKETS);
    }

    /**
     * Analyses {@code view}.
     *
     * @param buckets occupancy buckets per memory, at least 1
     * @throws IllegalArgumentException when {@code buckets < 1}
     */
    public static TraceAnalysis of(TraceView view, int buckets) {
        if (buckets < 1) {
            throw new IllegalArgumentException("occupancy buckets must be at least 1, got " + buckets);
        }
        long n = view.eventCount();
        long from = view.startNs();
        long to = view.endNs();
        int maxId = view.memories().stream().mapToInt(MemoryInfo::id).max().orElse(-1);
        MemoryAnalysis.Accumulator[] byMemory = new MemoryAnalysis.Accumulator[maxId + 1];
        List<MemoryAnalysis.Accumulator> ordered = new ArrayList<>();
        for (MemoryInfo m : view.memories()) {
            MemoryAnalysis.Accumulator acc = new MemoryAnalysis.Accumulator(m, from, to, buckets);
            if (m.id() >= 0) {
                byMemory[m.id()] = acc;
            }
            ordered.add(acc);
        }
        ScopeAnalysis.Accumulator scopes = new ScopeAnalysis.Accumulator(view, false);
        PoolBinAnalysis.Accumulator bins = new PoolBinAnalysis.Accumulator();
        PlanAnalysis.Accumulator plans = new PlanAnalysis.Accumulator(view);
        // calibration samples arena scopes in the same pass
        ScopeSampler sampler = null;
        EventBatch batch = null;
        if (view.memories().stream().anyMatch(m -> m.kind() == MemoryKind.ARENA)) {
            sampler = ScopeSampler.bounded(SAMPLES_PER_SCOPE); // a trace's millions of executions: a spread sample
            view.memories().forEach(sampler::onMemory);
            batch = new EventBatch(4096);
        }
        for (long i = 0; i < n; i++) {
            Event e = view.event(i);
            if (sampler != null) {
                batch.add(e);
                if (batch.size() == 4096) {
                    sampler.consume(batch, view::string);
                    batch.clear();
                }
            }
            int id = e.memory();
            if (id >= 0 && id < byMemory.length && byMemory[id] != null) {
                byMemory[id].accept(e);
            }
            scopes.accept(e);
            bins.accept(e);
            plans.accept(e);
        }
        // occupancy charts for the MAX_CHARTED memories with the largest footprints (all, usually); the others
        // get one bucket each, so a trace naming tens of thousands of memories costs its events, not charts
        boolean[] charted = new boolean[ordered.size()];
        if (ordered.size() <= MAX_CHARTED) {
            java.util.Arrays.fill(charted, true);
        } else {
            Integer[] order = new Integer[ordered.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            java.util.Arrays.sort(order, (x, y) -> Long.compare(ordered.get(y).footprint(), ordered.get(x).footprint()));
            for (int i = 0; i < MAX_CHARTED; i++) {
                charted[order[i]] = true;
            }
        }
        List<MemoryAnalysis> memories = new ArrayList<>();
        for (int i = 0; i < ordered.size(); i++) {
            memories.add(ordered.get(i).finish(charted[i]));
        }
        List<ScopeSample> samples = List.of();
        if (sampler != null) {
            if (!batch.isEmpty()) {
                sampler.consume(batch, view::string);
            }
            samples = sampler.samples();
        }
        List<MemorySites> sites = new ArrayList<>();
        if (view.stackNodeCount() > 0) {
            for (MemoryInfo m : view.memories()) {
                MemorySites ms = MemorySites.of(view, m);
                if (ms != null) {
                    sites.add(ms);
                }
            }
        }
        return new TraceAnalysis(SessionSummary.of(view), disambiguate(memories), calibrate(samples, scopes.finish(to)),
                bins.snapshot(view.memories()), plans.finish(), sites);
    }

    /** Attaches each scope name's calibrated model, fitted from the arena scopes' samples. */
    private static List<ScopeAnalysis> calibrate(List<ScopeSample> samples, List<ScopeAnalysis> scopes) {
        if (scopes.isEmpty() || samples.isEmpty()) {
            return scopes;
        }
        MemoryModel model;
        try {
            model = MemoryModel.fit(samples);
        } catch (RuntimeException e) {
            return scopes; // a recording calibration cannot fit: the report shows no model
        }
        List<ScopeAnalysis> out = new ArrayList<>(scopes.size());
        for (ScopeAnalysis s : scopes) {
            if (model.has(s.name())) {
                ScopeModel m = model.scope(s.name());
                out.add(s.withModel(m.formula(), m.worstRelative()));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** Memories with equal names get {@code #2}, {@code #3}, ... so rows stay unique for baselines. */
    private static List<MemoryAnalysis> disambiguate(List<MemoryAnalysis> in) {
        Map<String, Integer> seen = new HashMap<>();
        List<MemoryAnalysis> out = new ArrayList<>();
        for (MemoryAnalysis m : in) {
            int k = seen.merge(m.name(), 1, Integer::sum);
            out.add(k == 1 ? m : new MemoryAnalysis(m.id(), m.name() + " #" + k, m.kind(), m.device(), m.capacityBytes(),
                    m.peakUsedBytes(), m.peakUsedAtNs(), m.highWaterMarks(), m.footprintBytes(), m.fragmentation(),
                    m.roundingWaste(), m.allocations(), m.allocatedBytes(), m.requestedBytes(), m.releases(),
                    m.outOfMemory(), m.occupancy()));
        }
        return out;
    }

    /** The memory with this name (as listed, after disambiguation), or null. */
    public MemoryAnalysis memory(String name) {
        return memories.stream().filter(m -> m.name().equals(name)).findFirst().orElse(null);
    }

    /** The memory with this id, or null. */
    public MemoryAnalysis memory(int id) {
        return memories.stream().filter(m -> m.id() == id).findFirst().orElse(null);
    }

    /** The {@code n} scopes with the largest peaks. */
    public List<ScopeAnalysis> topScopes(int n) {
        return scopes.subList(0, Math.min(n, scopes.size()));
    }

    /** Scopes matching {@code filter}, largest peak first. */
    public List<ScopeAnalysis> scopes(Predicate<ScopeAnalysis> filter) {
        return scopes.stream().filter(filter).toList();
    }

    /** The bins of one pool, by bin number. */
    public List<PoolBinAnalysis> bins(int memory) {
        return poolBins.stream().filter(b -> b.memory() == memory).sorted(Comparator.comparingInt(PoolBinAnalysis::bin)).toList();
    }

    /** The plan arena with this memory id, or null. */
    public PlanAnalysis plan(int memory) {
        return plans.stream().filter(p -> p.memory() == memory).findFirst().orElse(null);
    }

    /** Every row of every section, in report order. */
    public List<FigureRow> rows() {
        List<FigureRow> rows = new ArrayList<>(memories);
        rows.addAll(scopes);
        rows.addAll(poolBins);
        rows.addAll(plans);
        return rows;
    }

    /** This analysis with its plan rows replaced (e.g. with search heights attached). */
    public TraceAnalysis withPlans(List<PlanAnalysis> newPlans) {
        return new TraceAnalysis(session, memories, scopes, poolBins, newPlans, sites);
    }
}
