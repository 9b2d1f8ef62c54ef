package dev.arenascope.app.ui.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;

import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * The window's one cache of the core's {@link SiteAnalysis}: keyed by trace, memory and whether internal
 * frames are kept, each built once per trace size and shared by every view that asks (the timeline's
 * stripes, the site view, its baseline and its internal-frames answers): one replay per analysis, not one
 * per view.
 *
 * <p>Two ways to ask. {@link #get} (FX thread, the shown session, internal frames hidden as views show them
 * by default) answers at once with what is built (null before the first build) and starts a build on the
 * task runner when there is none or the trace has grown since (a live session), at most one build per
 * memory at a time and, while live, not more often than every {@link #LIVE_REBUILD_NS} or four build
 * times; {@link #revisionProperty()} bumps when such a build arrives. {@link #analysis} (any thread, any
 * trace: a worker answering a question) returns the analysis of the trace at its current size, waiting
 * for a build of the same one already in flight instead of making a second. Besides the shown session's
 * analyses without internal frames (one per memory), the {@value #KEEP} most recently used are kept.
 *
 * <p>Thread-safety: the entries are guarded by this object's monitor; {@link #get}, {@link #reset} and
 * the revision are FX-thread confined, like {@link SessionModel}.
 */
public final class SiteAnalysisCache {
    /** The shortest interval between two builds of one memory while its trace grows. */
    static final long LIVE_REBUILD_NS = 1_000_000_000L;
    /** Analyses kept besides the shown session's shared ones. */
    static final int KEEP = 4;

    private final TaskRunner tasks;
    private final ReadOnlyLongWrapper revision = new ReadOnlyLongWrapper(this, "revision");
    private volatile TraceView trace;
    /** Per key: the newest build done and the build in flight; most recently used last. Guarded by {@code this}. */
    private final Map<Key, Slot> slots = new LinkedHashMap<>(16, 0.75f, true);

    private record Key(TraceView trace, int memory, boolean internal) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.trace == trace && k.memory == memory && k.internal == internal;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(trace) * 31 + memory * 2 + (internal ? 1 : 0);
        }
    }

    /** One build of one analysis, at one trace size. */
    private static final class Build {
        final long events;
        final FutureTask<SiteAnalysis> task;
        volatile long doneNs;
        volatile long costNs;

        Build(long events, FutureTask<SiteAnalysis> task) {
            this.events = events;
            this.task = task;
        }

        SiteAnalysis doneOrNull() {
            if (!task.isDone()) {
                return null;
            }
            try {
                return task.get();
            } catch (InterruptedException | ExecutionException | CancellationException e) {
                return null;
            }
        }
    }

    private static final class Slot {
        Build done;
        Build running;
    }

    SiteAnalysisCache(TaskRunner tasks) {
        this.tasks = tasks;
    }

    /** Forgets every analysis (a new session is shown); builds in flight for the old one are dropped. */
    void reset(TraceView view) {
        trace = view;
        synchronized (this) {
            slots.clear();
        }
        revision.set(revision.get() + 1);
    }

    /**
     * The shown session's analysis of {@code memory} (internal frames hidden) as last built, or null when
     * none is built yet; starts a build on the task runner when it is missing or stale. FX thread.
     */
    public SiteAnalysis get(MemoryInfo memory) {
        TraceView t = trace;
        if (t == null || memory == null) {
            return null;
        }
        Key k = new Key(t, memory.id(), false);
        long events = t.eventCount();
        Build done;
        Build start = null;
        synchronized (this) {
            Slot s = slots.computeIfAbsent(k, x -> new Slot());
            done = s.done;
            boolean stale = done == null || (done.events != events
                    && System.nanoTime() - done.doneNs >= Math.max(LIVE_REBUILD_NS, 4 * done.costNs));
            if (stale && s.running == null) {
                start = newBuild(k, memory, events);
                s.running = start;
            }
        }
        if (start != null) {
            Build b = start;
            tasks.submit(BackgroundTask.of("Indexing allocations of " + memory.name(), p -> {
                b.task.run();
                return b.task.get();
            }).onSuccess(r -> {
                if (t == trace) {
                    revision.set(revision.get() + 1);
                }
            }).onFailure(e -> dropRunning(k, b)).onCancelled(() -> {
                b.task.cancel(false); // never run: a worker waiting on it gets a CancellationException, not a hang
                dropRunning(k, b);
            }));
        }
        return done == null ? null : done.doneOrNull();
    }

    /** The shown session's analysis of {@code memory} (internal frames hidden) if built, without starting anything. */
    public SiteAnalysis peek(int memory) {
        TraceView t = trace;
        if (t == null) {
            return null;
        }
        synchronized (this) {
            Slot s = slots.get(new Key(t, memory, false));
            return s == null || s.done == null ? null : s.done.doneOrNull();
        }
    }

    /**
     * The analysis of {@code memory} in {@code trace} at its current size, built here (on the calling
     * thread) unless it is kept or being built, in which case this waits for that build. Any thread.
     *
     * @throws IllegalArgumentException when the memory is not in the trace
     * @throws CancellationException when the waiting thread is interrupted
     */
    public SiteAnalysis analysis(TraceView trace, int memory, boolean internal) {
        MemoryInfo m = memory >= 0 && memory < trace.memories().size() ? trace.memories().get(memory) : null;
        if (m == null) {
            throw new IllegalArgumentException("memory " + memory + " is not in the trace (it has " + trace.memories().size() + ")");
        }
        Key k = new Key(trace, memory, internal);
        long events = trace.eventCount();
        Build b;
        boolean mine = false;
        synchronized (this) {
            Slot s = slots.computeIfAbsent(k, x -> new Slot());
            if (s.done != null && s.done.events == events) {
                b = s.done;
            } else if (s.running != null && s.running.events == events) {
                b = s.running;
            } else {
                b = newBuild(k, m, events);
                s.running = b;
                mine = true;
            }
            evict();
        }
        if (mine) {
            b.task.run();
        }
        try {
            return b.task.get();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while the site analysis was built");
        } catch (ExecutionException ex) {
            dropRunning(k, b);
            if (ex.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("the site analysis failed: " + ex.getCause(), ex.getCause());
        }
    }

    /** Whether the analysis of {@code memory} in {@code trace} (at its current size) is built and kept. */
    public boolean ready(TraceView trace, int memory, boolean internal) {
        long events = trace.eventCount();
        synchronized (this) {
            Slot s = slots.get(new Key(trace, memory, internal));
            return s != null && s.done != null && s.done.events == events && s.done.doneOrNull() != null;
        }
    }

    /** A build that, once run, becomes its slot's newest done build (unless a newer one is done already). */
    private Build newBuild(Key k, MemoryInfo m, long events) {
        Build[] self = new Build[1];
        FutureTask<SiteAnalysis> task = new FutureTask<>(() -> {
            long t0 = System.nanoTime();
            SiteAnalysis sa = SiteAnalysis.of(k.trace, m, k.internal);
            Build b = self[0];
            b.costNs = System.nanoTime() - t0;
            b.doneNs = System.nanoTime();
            return sa;
        }) {
            @Override
            protected void set(SiteAnalysis v) {
                super.set(v);
                synchronized (SiteAnalysisCache.this) {
                    Slot s = slots.get(k);
                    if (s != null) {
                        if (s.done == null || s.done.events <= self[0].events) {
                            s.done = self[0];
                        }
                        if (s.running == self[0]) {
                            s.running = null;
                        }
                    }
                }
            }
        };
        self[0] = new Build(events, task);
        return self[0];
    }

    private void dropRunning(Key k, Build b) {
        synchronized (this) {
            Slot s = slots.get(k);
            if (s != null && s.running == b) {
                s.running = null;
            }
        }
    }

    /** Keeps the shown session's shared analyses and the {@value #KEEP} most recently used others. Holds the monitor. */
    private void evict() {
        TraceView shown = trace;
        List<Key> others = new ArrayList<>();
        for (Map.Entry<Key, Slot> e : slots.entrySet()) {
            Key k = e.getKey();
            if (!(k.trace == shown && !k.internal) && e.getValue().running == null) {
                others.add(k); // least recently used first
            }
        }
        for (int i = 0; i < others.size() - KEEP; i++) {
            slots.remove(others.get(i));
        }
    }

    /** Bumps when a shared analysis arrives (or the session changes). FX thread. */
    public ReadOnlyLongProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }

    /** Kept analyses (tests). */
    synchronized int kept() {
        return slots.size();
    }
}
