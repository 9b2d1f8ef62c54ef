package dev.arenascope.app.ui.sites;

import dev.arenascope.app.ui.model.SiteAnalysisCache;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.analysis.SiteTree;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * Answers the site view's requests with profiler-core's {@link SiteAnalysis} — the same code, and so the
 * same figures, as {@code arenascope sites} and the reports. Building an analysis replays the trace
 * once (about 0.3 s per million allocations); every analysis comes from the window's one cache,
 * {@link SiteAnalysisCache} (which the timeline's stripes use too): the shown session's analysis with
 * internal frames hidden is handed in with the request, the rest (internal frames kept, the
 * baseline's) are asked of the cache, which builds each once per trace size. So asking another
 * question, changing the shape or moving the cursor costs one pass over the allocation columns; a live
 * trace that grew is analysed anew.
 *
 * <p>Thread-safe: {@link #answer} runs on worker threads, concurrently if need be.
 */
public final class SiteAnswerBuilder {
    private final SiteAnalysisCache cache;

    /** Answers from {@code cache} (the session's). */
    public SiteAnswerBuilder(SiteAnalysisCache cache) {
        this.cache = cache;
    }

    /**
     * Answers {@code r}.
     *
     * @throws SiteRequest.NotAskable when the question needs a cursor or selection that is not there
     * @throws IllegalArgumentException when the memory is not in the trace
     */
    public SiteAnswer answer(SiteRequest r) {
        long t0 = System.nanoTime();
        SiteAnalysis sa = r.analysis() != null ? r.analysis() : cache.analysis(r.trace(), r.memory(), r.internal());
        SiteQuestion q = r.coreQuestion(sa);
        SiteBreakdown sb = sa.ask(q, r.shape().by());
        SiteTree tree = tree(sb, r.shape());
        SiteBreakdown base = null;
        SiteTree baseTree = null;
        SiteDiff diff = null;
        if (r.baseline() != null && r.baselineMemory() >= 0) {
            SiteAnalysis bsa = cache.analysis(r.baseline(), r.baselineMemory(), r.internal());
            SiteQuestion bq;
            try {
                bq = r.coreQuestion(bsa);
            } catch (IllegalArgumentException e) {
                bq = null;
            }
            if (bq != null) {
                base = bsa.ask(bq, r.shape().by());
                baseTree = tree(base, r.shape());
                diff = SiteDiff.between(base, sb);
            }
        }
        return new SiteAnswer(r, sa, q, sb, tree, base, baseTree, diff, System.nanoTime() - t0);
    }

    private static SiteTree tree(SiteBreakdown sb, SiteRequest.Shape shape) {
        return switch (shape) {
            case SITES, TOP_DOWN -> SiteTree.topDown(sb);
            case BOTTOM_UP -> SiteTree.bottomUp(sb);
            case CATEGORY -> null;
        };
    }

    /** The memory {@code arenascope sites} picks without {@code --memory}: the largest peak, the first of equals. */
    public static int defaultMemory(TraceView trace) {
        int best = -1;
        long bestPeak = -1;
        for (MemoryInfo m : trace.memories()) {
            long p = trace.peakUsed(m.id());
            if (p > bestPeak) {
                best = m.id();
                bestPeak = p;
            }
        }
        return best;
    }
}
