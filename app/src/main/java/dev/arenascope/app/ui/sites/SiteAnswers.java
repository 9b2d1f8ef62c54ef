package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.List;

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
 * once (about 0.3 s per million allocations); it is kept for the few most recent (trace, memory,
 * internal frames, event count) combinations, so asking another question, changing the shape or
 * moving the cursor costs one pass over the allocation columns. A live trace that grew is analysed
 * anew.
 *
 * <p>Thread-safe: {@link #answer} runs on worker threads, concurrently if need be.
 */
public final class SiteAnswers {
    private static final int KEEP = 4;

    private record Key(TraceView trace, int memory, boolean internal, long events) {
        boolean same(Key k) {
            return trace == k.trace && memory == k.memory && internal == k.internal && events == k.events;
        }
    }

    private record Entry(Key key, SiteAnalysis analysis) {}

    private final List<Entry> cache = new ArrayList<>();

    /**
     * Answers {@code r}.
     *
     * @throws SiteRequest.NotAskable when the question needs a cursor or selection that is not there
     * @throws IllegalArgumentException when the memory is not in the trace
     */
    public SiteAnswer answer(SiteRequest r) {
        long t0 = System.nanoTime();
        SiteAnalysis sa = analysis(r.trace(), r.memory(), r.internal());
        SiteQuestion q = r.coreQuestion(sa);
        SiteBreakdown sb = sa.ask(q, r.shape().by());
        SiteTree tree = tree(sb, r.shape());
        SiteBreakdown base = null;
        SiteTree baseTree = null;
        SiteDiff diff = null;
        if (r.baseline() != null && r.baselineMemory() >= 0) {
            SiteAnalysis bsa = analysis(r.baseline(), r.baselineMemory(), r.internal());
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

    /** The analysis of {@code memory} in {@code trace}, built once per trace size and kept. */
    public SiteAnalysis analysis(TraceView trace, int memory, boolean internal) {
        Key k = new Key(trace, memory, internal, trace.eventCount());
        synchronized (cache) {
            for (Entry e : cache) {
                if (e.key.same(k)) {
                    cache.remove(e);
                    cache.addFirst(e);
                    return e.analysis;
                }
            }
        }
        MemoryInfo m = memory >= 0 && memory < trace.memories().size() ? trace.memories().get(memory) : null;
        if (m == null) {
            throw new IllegalArgumentException("memory " + memory + " is not in the trace (it has " + trace.memories().size() + ")");
        }
        SiteAnalysis sa = SiteAnalysis.of(trace, m, internal);
        synchronized (cache) {
            cache.removeIf(e -> e.key.trace == trace && e.key.memory == memory && e.key.internal == internal);
            cache.addFirst(new Entry(k, sa));
            while (cache.size() > KEEP) {
                cache.removeLast();
            }
        }
        return sa;
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

    /** Forgets every analysis (a new session). */
    public void clear() {
        synchronized (cache) {
            cache.clear();
        }
    }
}
