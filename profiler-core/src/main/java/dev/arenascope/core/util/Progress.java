package dev.arenascope.core.util;

import java.util.concurrent.CancellationException;
import java.util.function.LongConsumer;

/**
 * How long work reports how far it got and learns whether to stop: the one progress type of ArenaScope,
 * used by the sample workloads (frames, steps), the trace readers and writers and the window's
 * background tasks. Called on the working thread; implementations are thread-safe and cheap enough to
 * call a few times per batch, step or megabyte.
 *
 * <p>The trace readers ({@code TraceFormats.load}, {@code AstraceReader.load}, {@code AstraceIndex.open},
 * {@code TorchSnapshotToTrace.convert}) report two things, told apart by the stage: {@link #EVENTS_READ}
 * with the events read so far (total -1), after each batch or chunk, on one thread in order; and, where the
 * reader can say it (a PyTorch snapshot's parse, the slow part of its import), {@link #BYTES_READ} with the
 * bytes of the file read so far against its size, then, while the parsed snapshot becomes events (the
 * import's second phase), {@link #ENTRIES_EMITTED} with the trace entries turned into events so far
 * against all the snapshot's entries, on the calling thread too. A report may throw an unchecked exception (a
 * {@link CancellationException} when the user cancels) to stop the read: it propagates with the file
 * closed and nothing kept. {@code GeneratedTrace.write} reports {@link #EVENTS_WRITTEN} against the count asked.
 */
@FunctionalInterface
public interface Progress {

    /** Ignores every report and never cancels. */
    Progress NONE = (done, total, stage) -> { };

    /** A reader's stage: events read so far (total -1). */
    String EVENTS_READ = "events read";
    /** A reader's stage: bytes of the file read so far, of its size. */
    String BYTES_READ = "bytes read";
    /** A PyTorch snapshot's second phase: trace entries turned into events so far, of the snapshot's entries. */
    String ENTRIES_EMITTED = "entries emitted";
    /** A writer's stage: events written so far, of the count asked. */
    String EVENTS_WRITTEN = "events written";

    /**
     * For a reader's inner loop: a counter that adds each batch's events and reports the sum to
     * {@code p} as {@link #EVENTS_READ}; null when {@code p} is null or {@link #NONE} (nothing to tell, no
     * cost per batch). One thread at a time, as the readers call it.
     */
    static LongConsumer eventsRead(Progress p) {
        if (p == null || p == NONE) {
            return null;
        }
        long[] sum = {0};
        return n -> {
            sum[0] += n;
            p.update(sum[0], -1, EVENTS_READ);
        };
    }

    /** For a reader's inner loop: bytes read so far reported to {@code p} as {@link #BYTES_READ} of {@code size}; null as {@link #eventsRead}. */
    static LongConsumer bytesRead(Progress p, long size) {
        return p == null || p == NONE ? null : bytes -> p.update(bytes, size, BYTES_READ);
    }

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
