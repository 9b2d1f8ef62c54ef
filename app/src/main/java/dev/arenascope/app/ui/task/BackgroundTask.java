package dev.arenascope.app.ui.task;

import java.util.function.Consumer;

import dev.arenascope.core.util.Progress;

/**
 * One piece of work to run off the FX thread: loading a file, aggregating a trace, re-planning. The
 * work reports progress through its {@link Progress} and checks {@link Progress#checkCancelled()}
 * often; success, failure and progress callbacks all arrive through the {@link TaskRunner}'s
 * {@link UiExecutor} (the FX thread in the window).
 *
 * @param <T> what the work produces
 */
public final class BackgroundTask<T> {
    /** The work itself; runs on a worker thread. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Progress progress) throws Exception;
    }

    final String title;
    final Work<T> work;
    Consumer<? super T> onSuccess = t -> {};
    Consumer<Throwable> onFailure = e -> {};
    Runnable onCancelled = () -> {};
    ProgressListener onProgress = (d, t, m) -> {};

    /** Progress as the UI sees it: fraction in [0, 1] or -1 when unknown. */
    @FunctionalInterface
    public interface ProgressListener {
        void progress(double fraction, String message, String title);
    }

    private BackgroundTask(String title, Work<T> work) {
        this.title = title;
        this.work = work;
    }

    /** A task named {@code title} (shown while it runs) doing {@code work}. */
    public static <T> BackgroundTask<T> of(String title, Work<T> work) {
        return new BackgroundTask<>(title, work);
    }

    public String title() {
        return title;
    }

    public BackgroundTask<T> onSuccess(Consumer<? super T> callback) {
        this.onSuccess = callback;
        return this;
    }

    public BackgroundTask<T> onFailure(Consumer<Throwable> callback) {
        this.onFailure = callback;
        return this;
    }

    public BackgroundTask<T> onCancelled(Runnable callback) {
        this.onCancelled = callback;
        return this;
    }

    public BackgroundTask<T> onProgress(ProgressListener callback) {
        this.onProgress = callback;
        return this;
    }
}
