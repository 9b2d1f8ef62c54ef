package dev.arenascope.core.util;

import java.util.concurrent.CancellationException;

/**
 * How long work reports how far it got and learns whether to stop: the one progress type of ArenaScope,
 * used by the sample workloads (frames, steps), the trace readers (bytes of the file) and the window's
 * background tasks. Called on the working thread; implementations are thread-safe and cheap enough to
 * call a few times per batch, step or megabyte.
 */
@FunctionalInterface
public interface Progress {

    /** Ignores every report and never cancels. */
    Progress NONE = (done, total, stage) -> { };

    /**
     * Another part is done.
     *
     * @param done   units done so far (frames, steps, bytes read)
     * @param total  units planned, or -1 when open-ended
     * @param stage  what is being done, e.g. {@code "frame"} or {@code "reading run.pickle"}
     */
    void update(long done, long total, String stage);

    /** Whether the work should stop at its next boundary (the user cancelled, a live demo closed). */
    default boolean isCancelled() {
        return false;
    }

    /** Throws {@link CancellationException} once {@link #isCancelled()}. */
    default void checkCancelled() {
        if (isCancelled()) {
            throw new CancellationException("cancelled");
        }
    }
}
