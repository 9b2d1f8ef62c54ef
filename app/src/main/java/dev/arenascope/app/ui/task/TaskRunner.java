package dev.arenascope.app.ui.task;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.arenascope.core.util.Progress;

/**
 * The one way the app runs background work. Work runs on daemon worker threads; every callback
 * ({@code onSuccess}, {@code onFailure}, {@code onCancelled}, progress) goes through the runner's
 * {@link UiExecutor}, so in the window it arrives on the FX thread and views may touch nodes in it.
 * Progress callbacks are coalesced: at most one is queued at a time and reports of one stage come at
 * most every 30 ms, so a tight loop never floods the FX thread; a report of a new stage is never dropped
 * (a queued callback shows the latest). Thread-safe.
 */
public final class TaskRunner {
    /** The name of every worker thread a runner starts. */
    public static final String WORKER_NAME = "arenascope-worker";
    private static final System.Logger LOG = System.getLogger(TaskRunner.class.getName());
    private final UiExecutor ui;
    private final ExecutorService workers;
    private final List<Handle> running = new CopyOnWriteArrayList<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    /** Tasks submitted whose last callback has not run yet (a finished task counts until its callback has run). */
    private final AtomicInteger unsettled = new AtomicInteger();

    public TaskRunner(UiExecutor ui) {
        this(ui, 2);
    }

    /**
     * @param ui      where callbacks run
     * @param threads worker threads; 0 runs each task inside {@link #submit} on the caller's thread
     *                (with {@link UiExecutor#DIRECT}: deterministic view-model tests without a toolkit)
     */
    public TaskRunner(UiExecutor ui, int threads) {
        this.ui = ui;
        this.workers = threads <= 0 ? null : Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, WORKER_NAME);
            t.setDaemon(true);
            return t;
        });
    }

    /** A runner that does everything on the calling thread, callbacks included. */
    public static TaskRunner sameThread() {
        return new TaskRunner(UiExecutor.DIRECT, 0);
    }

    /** A task in flight; {@link #cancel()} asks it to stop (it stops at its next check). */
    public final class Handle {
        private final String title;
        private final AtomicBoolean cancelled = new AtomicBoolean();
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile double fraction = -1;
        private volatile String message = "";

        Handle(String title) {
            this.title = title;
        }

        public String title() {
            return title;
        }

        public void cancel() {
            cancelled.set(true);
        }

        public boolean isCancelled() {
            return cancelled.get();
        }

        public boolean isDone() {
            return done.get();
        }

        /** Last reported fraction in [0, 1], or -1 when unknown. */
        public double fraction() {
            return fraction;
        }

        public String message() {
            return message;
        }
    }

    /** Starts {@code task}; returns a handle to cancel it. */
    public <T> Handle submit(BackgroundTask<T> task) {
        Handle h = new Handle(task.title);
        running.add(h);
        fire();
        AtomicBoolean progressQueued = new AtomicBoolean();
        AtomicLong lastNs = new AtomicLong();
        Progress progress = new Progress() {
            @Override
            public void update(long doneUnits, long total, String msg) {
                String stage = msg == null ? "" : msg;
                boolean newStage = !stage.equals(h.message);
                h.fraction = total > 0 ? Math.min(1.0, doneUnits / (double) total) : -1;
                h.message = stage;
                long now = System.nanoTime();
                if (!newStage && now - lastNs.get() < 30_000_000L) {
                    return; // a new stage is never coalesced away: the view would go on naming the one before
                }
                lastNs.set(now);
                if (progressQueued.compareAndSet(false, true)) {
                    ui.execute(() -> {
                        progressQueued.set(false);
                        if (!h.isDone()) {
                            task.onProgress.progress(h.fraction, h.message, h.title);
                        }
                    });
                }
            }

            @Override
            public boolean isCancelled() {
                return h.cancelled.get();
            }
        };
        if (workers != null && workers.isShutdown()) {
            // the window closed: late requests (a frame, a digest) have no one to report to
            h.cancelled.set(true);
            h.done.set(true);
            running.remove(h);
            return h;
        }
        unsettled.incrementAndGet();
        Executor exec = workers == null ? Runnable::run : workers;
        exec.execute(() -> {
            try {
                T result = task.work.run(progress);
                finish(h);
                if (h.isCancelled()) {
                    settle(task.onCancelled);
                } else {
                    settle(() -> task.onSuccess.accept(result));
                }
            } catch (CancellationException e) {
                finish(h);
                settle(task.onCancelled);
            } catch (Throwable e) {
                finish(h);
                if (h.isCancelled()) { // what the cancel's interrupt ended (a sleep, a blocked read): not a failure
                    settle(task.onCancelled);
                } else {
                    LOG.log(System.Logger.Level.INFO, () -> "background task '" + h.title + "' failed: " + e);
                    settle(() -> task.onFailure.accept(e));
                }
            }
        });
        return h;
    }

    /** Runs a task's last callback through the UI executor; the task is settled once it has run. */
    private void settle(Runnable callback) {
        ui.execute(() -> {
            try {
                callback.run();
            } finally {
                unsettled.decrementAndGet();
            }
        });
    }

    /**
     * Whether every task submitted has finished and its last callback ({@code onSuccess}, {@code onFailure}
     * or {@code onCancelled}) has run: what the tasks compute is applied. Read it where the callbacks run
     * (the FX thread in the window); a callback that submits a new task keeps the runner unsettled.
     * Tests wait on it beside the state they assert.
     */
    public boolean settled() {
        return unsettled.get() == 0;
    }

    private void finish(Handle h) {
        h.done.set(true);
        running.remove(h);
        fire();
    }

    /** Tasks still running. */
    public List<Handle> running() {
        return List.copyOf(running);
    }

    /** Called (through the UI executor) whenever a task starts or ends. */
    public void addListener(Runnable listener) {
        listeners.add(listener);
    }

    private void fire() {
        for (Runnable l : listeners) {
            ui.execute(l);
        }
    }

    /** Stops the workers (running work is interrupted). */
    public void shutdown() {
        running.forEach(Handle::cancel);
        if (workers != null) {
            workers.shutdownNow();
        }
    }
}
