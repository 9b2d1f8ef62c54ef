package dev.arenascope.app.ui.model;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;

import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * The core's {@link SiteAnalysis} of each memory of the shown session, built on request off the FX
 * thread and shared by every view that asks (the timeline's stripes, the site view): one replay per
 * memory, not one per view. Internal frames are hidden, as views show them by default.
 *
 * <p>{@link #get} answers at once with what is built (null before the first build) and starts a build
 * when there is none or the trace has grown since (a live session), at most one build per memory at a
 * time and, while live, not more often than every {@link #LIVE_REBUILD_NS} or four build times;
 * {@link #revisionProperty()} bumps when a build arrives. FX-thread confined, like {@link SessionModel}.
 */
public final class SiteAnalyses {
    /** The shortest interval between two builds of one memory while its trace grows. */
    static final long LIVE_REBUILD_NS = 1_000_000_000L;

    private final TaskRunner tasks;
    private final ReadOnlyLongWrapper revision = new ReadOnlyLongWrapper(this, "revision");
    private TraceView trace;
    private final Map<Integer, Built> built = new HashMap<>();
    private final Set<Integer> building = new HashSet<>();

    private record Built(SiteAnalysis analysis, long events, long doneNs, long costNs) {}

    SiteAnalyses(TaskRunner tasks) {
        this.tasks = tasks;
    }

    /** Forgets every analysis (a new session is shown); builds in flight for the old one are dropped. */
    void reset(TraceView view) {
        trace = view;
        built.clear();
        building.clear();
        revision.set(revision.get() + 1);
    }

    /**
     * The analysis of {@code memory} as last built, or null when none is built yet; starts a build when
     * it is missing or stale.
     */
    public SiteAnalysis get(MemoryInfo memory) {
        TraceView t = trace;
        if (t == null || memory == null) {
            return null;
        }
        Built b = built.get(memory.id());
        long events = t.eventCount();
        boolean stale = b == null || (b.events != events
                && System.nanoTime() - b.doneNs >= Math.max(LIVE_REBUILD_NS, 4 * b.costNs));
        if (stale && building.add(memory.id())) {
            tasks.submit(BackgroundTask.of("Indexing allocations of " + memory.name(), p -> {
                long t0 = System.nanoTime();
                SiteAnalysis sa = SiteAnalysis.of(t, memory, false);
                return new Built(sa, events, System.nanoTime(), System.nanoTime() - t0);
            }).onSuccess(r -> {
                if (t != trace) {
                    return;
                }
                building.remove(memory.id());
                built.put(memory.id(), r);
                revision.set(revision.get() + 1);
            }).onFailure(e -> {
                if (t == trace) {
                    building.remove(memory.id());
                }
            }).onCancelled(() -> {
                if (t == trace) {
                    building.remove(memory.id());
                }
            }));
        }
        return b == null ? null : b.analysis;
    }

    /** The analysis of {@code memory} if built, without starting anything. */
    public SiteAnalysis peek(int memory) {
        Built b = built.get(memory);
        return b == null ? null : b.analysis;
    }

    /** Bumps when an analysis arrives (or the session changes). */
    public ReadOnlyLongProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }
}
