package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * Memory models fitted from an ordinary recording: one {@link ScopeModel} per scope name, and from
 * them the peak bytes of a batch and the largest batch that fits.
 *
 * <p>Calibration needs no special run: any recording whose arena scopes carry the shape parameters
 * their sizes are driven by will do. For each scope name, every recorded execution is one sample
 * (params → bytes requested directly inside it); the fit is exact where the samples allow it
 * ({@link LinearFit}). A parameter enters a scope's model only when every execution of that scope
 * annotated it.
 *
 * <pre>{@code
 * MemoryModel model = MemoryModel.fit(ScopeSampler.of(trace));
 * PeakFormula batch = PeakFormula.sum(term("output"), term("raster"), PeakFormula.max(term("blur"), term("tonemap")));
 * int frames = model.largestBatch(batch, n -> Map.of("frames", n, "num_triangles", 12_000L),
 *         arena.getNumBytesRemaining(), 0.10, 1024);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class MemoryModel {
    private final Map<String, ScopeModel> scopes;

    private MemoryModel(Map<String, ScopeModel> scopes) {
        this.scopes = scopes;
    }

    /** Fits one model per scope name found in {@code samples}; names in first-seen order. */
    public static MemoryModel fit(Collection<ScopeSample> samples) {
        Map<String, List<ScopeSample>> byName = new LinkedHashMap<>();
        for (ScopeSample s : samples) {
            byName.computeIfAbsent(s.name(), n -> new ArrayList<>()).add(s);
        }
        Map<String, ScopeModel> out = new LinkedHashMap<>();
        byName.forEach((name, list) -> out.put(name, fitScope(name, list)));
        return new MemoryModel(Collections.unmodifiableMap(out));
    }

    /** Fits the executions of one scope name (all samples must carry that name). */
    public static ScopeModel fitScope(String name, List<ScopeSample> samples) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("scope '" + name + "' has no samples to fit");
        }
        Set<String> names = new LinkedHashSet<>(samples.getFirst().params().keySet());
        for (ScopeSample s : samples) {
            names.retainAll(s.params().keySet());
        }
        List<String> params = List.copyOf(names);
        long[][] x = new long[samples.size()][params.size()];
        long[] y = new long[samples.size()];
        int maxAllocs = 0;
        String overflow = null;
        long maxPadding = 0;
        long largestOne = 0;
        for (int i = 0; i < samples.size(); i++) {
            ScopeSample s = samples.get(i);
            for (int j = 0; j < params.size(); j++) {
                x[i][j] = s.params().get(params.get(j));
            }
            y[i] = s.ownBytes();
            if (s.ownBytes() == Long.MAX_VALUE && overflow == null) {
                overflow = "an execution requested 2^63 - 1 bytes or more (past what 64 bits hold)";
            }
            maxAllocs = Math.max(maxAllocs, s.ownAllocations());
            maxPadding = Math.max(maxPadding, s.ownPadding());
            largestOne = Math.max(largestOne, s.largestPadding());
        }
        LinearFit.Result r = LinearFit.fit(x, y);
        long alignment = largestOne == 0 ? 1 : Long.highestOneBit(largestOne) << 1; // smallest power of two > the largest padding seen
        long slack = Math.max(maxPadding, maxAllocs * (alignment - 1));
        List<String> unidentified = r.unidentified().stream().map(params::get).toList();
        if (overflow == null && r.outOfRange() >= 0) {
            overflow = (r.outOfRange() == 0 ? "the constant" : "the coefficient of " + params.get(r.outOfRange() - 1))
                    + " is past what a model holds exactly (2^63 bytes or more, or a whole number past 2^53 that a double rounds): the recorded sizes are near 2^63";
        }
        boolean sound = overflow == null;
        return new ScopeModel(name, params, r.intercept(), r.coefficients(), sound && r.exact(), sound && r.integral(), unidentified,
                samples.size(), r.worstResidual(), r.worstUnder(), r.worstRelative(), slack, maxPadding, overflow);
    }

    /** Every fitted scope, by name, in first-seen order. */
    public Map<String, ScopeModel> scopes() {
        return scopes;
    }

    /** The model of one scope name. */
    public ScopeModel scope(String name) {
        ScopeModel m = scopes.get(name);
        if (m == null) {
            throw new IllegalArgumentException("no scope named '" + name + "' was recorded (recorded: " + String.join(", ", scopes.keySet()) + ")");
        }
        return m;
    }

    /** Whether a scope of this name was recorded. */
    public boolean has(String name) {
        return scopes.containsKey(name);
    }

    /** The predicted peak bytes of {@code formula} at these params (point estimate, no slack). */
    public long predict(PeakFormula formula, Map<String, Long> params) {
        return evaluate(formula, params, false);
    }

    /** A safe upper bound of the peak bytes: every term's {@link ScopeModel#bound}. */
    public long bound(PeakFormula formula, Map<String, Long> params) {
        return evaluate(formula, params, true);
    }

    private long evaluate(PeakFormula f, Map<String, Long> params, boolean bound) {
        return switch (f) {
            case PeakFormula.Term t -> bound ? scope(t.scope()).bound(params) : scope(t.scope()).predict(params);
            case PeakFormula.Sum s -> {
                long total = 0;
                for (PeakFormula p : s.parts()) {
                    total = Math.addExact(total, evaluate(p, params, bound));
                }
                yield total;
            }
            case PeakFormula.Max m -> {
                long best = 0;
                for (PeakFormula p : m.parts()) {
                    best = Math.max(best, evaluate(p, params, bound));
                }
                yield best;
            }
        };
    }

    /**
     * The largest batch size n in {@code [1, maxBatch]} whose {@linkplain #bound bound} fits in
     * {@code freeBytes × (1 − margin)}, or 0 when not even one fits. Assumes the bound does not shrink
     * as n grows (true for non-negative coefficients); searched by doubling, then bisection.
     *
     * @param paramsForBatch the params of a batch of n
     * @param margin         the fraction of free memory kept back, in [0, 1)
     * @throws IllegalArgumentException on a margin outside [0, 1), negative free bytes or {@code maxBatch < 1}
     */
    public int largestBatch(PeakFormula formula, LongFunction<Map<String, Long>> paramsForBatch, long freeBytes,
                            double margin, int maxBatch) {
        if (!(margin >= 0 && margin < 1) || freeBytes < 0 || maxBatch < 1) {
            throw new IllegalArgumentException("largestBatch: margin " + margin + " must be in [0, 1), free bytes "
                    + freeBytes + " >= 0, max batch " + maxBatch + " >= 1");
        }
        long budget = (long) Math.floor(freeBytes * (1 - margin));
        if (bound(formula, paramsForBatch.apply(1)) > budget) {
            return 0;
        }
        long lo = 1;
        long hi = 2;
        while (hi <= maxBatch && bound(formula, paramsForBatch.apply(hi)) <= budget) {
            lo = hi;
            hi *= 2;
        }
        hi = Math.min(hi, (long) maxBatch + 1); // lo fits, hi does not (or is past the limit)
        while (hi - lo > 1) {
            long mid = (lo + hi) >>> 1;
            if (bound(formula, paramsForBatch.apply(mid)) <= budget) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (int) lo;
    }
}
