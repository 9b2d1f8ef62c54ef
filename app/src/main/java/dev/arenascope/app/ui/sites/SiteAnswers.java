package dev.arenascope.app.ui.sites;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

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
 * anew. The shown session's analyses with internal frames hidden are the session's shared ones
 * ({@link dev.arenascope.app.ui.model.SiteAnalyses}, which the timeline's stripes use too), handed in
 * with the request; this class builds the rest (internal frames kept, the baseline's).
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

    private record Entry(Key key, FutureTask<SiteAnalysis> build) {}

    private final List<Entry> cache = new ArrayList<>();

    /**
     * Answers {@code r}.
     *
     * @throws SiteRequest.NotAskable when the question needs a cursor or selection that is not there
     * @throws IllegalArgumentException when the memory is not in the trace
     */
    public SiteAnswer answer(SiteRequest r) {
        long t0 = System.nanoTime();
        SiteAnalysis sa = r.analysis() != null ? r.analysis() : analysis(r.trace(), r.memory(), r.internal());
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

    /**
     * The analysis of {@code memory} in {@code trace}, built once per trace size and kept. A caller that
     * asks while another thread builds the same analysis waits for that build instead of making a second.
     *
     * @throws IllegalArgumentException when the memory is not in the trace
     * @throws CancellationException when the waiting thread is interrupted
     */
    public SiteAnalysis analysis(TraceView trace, int memory, boolean internal) {
        Key k = new Key(trace, memory, internal, trace.eventCount());
        MemoryInfo m = memory >= 0 && memory < trace.memories().size() ? trace.memories().get(memory) : null;
        if (m == null) {
            throw new IllegalArgumentException("memory " + memory + " is not in the trace (it has " + trace.memories().size() + ")");
        }
        Entry e = null;
        boolean mine = false;
        synchronized (cache) {
            for (Entry c : cache) {
                if (c.key.same(k)) {
                    e = c;
                    break;
                }
            }
            if (e != null) {
                cache.remove(e);
            } else {
                e = new Entry(k, new FutureTask<>(() -> SiteAnalysis.of(trace, m, internal)));
                mine = true;
                cache.removeIf(c -> c.key.trace == trace && c.key.memory == memory && c.key.internal == internal);
            }
            cache.addFirst(e);
            while (cache.size() > KEEP) {
                cache.removeLast();
            }
        }
        if (mine) {
            e.build.run();
        }
        try {
            return e.build.get();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while the site analysis was built");
        } catch (ExecutionException ex) {
            Entry failed = e;
            synchronized (cache) {
                cache.remove(failed);
            }
            if (ex.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("the site analysis failed: " + ex.getCause(), ex.getCause());
        }
    }

    /** Whether the analysis of {@code memory} in {@code trace} (at its current size) is built and kept. */
    public boolean ready(TraceView trace, int memory, boolean internal) {
        Key k = new Key(trace, memory, internal, trace.eventCount());
        synchronized (cache) {
            return cache.stream().anyMatch(c -> c.key.same(k) && c.build.isDone());
        }
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
