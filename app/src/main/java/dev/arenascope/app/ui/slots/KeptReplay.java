package dev.arenascope.app.ui.slots;

import dev.arenascope.app.ui.task.BackgroundTask;
import dev.arenascope.app.ui.task.TaskRunner;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.util.Progress;

/**
 * The Slot map's one kept {@link AddressMapReplay} (the trace open, the memory the map shows) and the
 * background build of its checkpoints ({@link AddressMapReplay#prepare}), started as soon as the replay
 * is made, so that the first move of the allocator state (a cursor, a step) costs what a later one
 * does. The view makes it when a trace opens and when the memory changes, whether or not the map is
 * shown; a new one cancels the previous build, and so does {@link #forget}. FX thread.
 */
final class KeptReplay {
    private final TaskRunner tasks;
    private AddressMapReplay replay;
    private TaskRunner.Handle build;

    KeptReplay(TaskRunner tasks) {
        this.tasks = tasks;
    }

    /** The replay of {@code memory} in {@code trace}: the kept one, or a new one whose build starts now. */
    AddressMapReplay keep(TraceView trace, MemoryInfo memory) {
        if (replay != null && replay.trace() == trace && replay.memory().id() == memory.id()) {
            return replay;
        }
        forget();
        AddressMapReplay r = new AddressMapReplay(trace, memory);
        replay = r;
        build = tasks.submit(BackgroundTask.of(TITLE, p -> {
            yieldToOpen(p);
            return r.prepare(p::isCancelled);
        }));
        return r;
    }

    private static final String TITLE = "Allocator state checkpoints";
    /** How long the build lets the open's own work go first, at most (ms). */
    private static final long YIELD_MS = 5_000;

    /**
     * Lets the open's own work go first: the timeline's first frames and the allocation index a new trace
     * asks for (on a two-core machine the build beside them delayed the first full frame by a few tenths
     * of a second): a short pause for them to start, then waits while another task of the runner is in
     * flight, {@value #YIELD_MS} ms at most (a live session's tasks never end). A move asked meanwhile
     * replays by itself, as without the build.
     */
    private void yieldToOpen(Progress p) throws InterruptedException {
        long until = System.nanoTime() + YIELD_MS * 1_000_000;
        Thread.sleep(300);
        while (System.nanoTime() < until && tasks.running().stream().anyMatch(h -> !h.isDone() && !TITLE.equals(h.title()))) {
            p.checkCancelled();
            Thread.sleep(50);
        }
        p.checkCancelled();
    }

    /** The kept replay, or null. */
    AddressMapReplay replay() {
        return replay;
    }

    /** Whether the kept replay's build has finished (or stopped). */
    boolean prepared() {
        return build != null && build.isDone();
    }

    /** Drops the kept replay and cancels its build (a trace closed). */
    void forget() {
        if (build != null) {
            build.cancel();
        }
        build = null;
        replay = null;
    }
}
