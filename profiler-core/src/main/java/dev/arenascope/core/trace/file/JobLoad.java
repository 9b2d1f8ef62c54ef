package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;

import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.util.Progress;

/**
 * Loads the ranks of a job in parallel, each file into its own store, and hands each loaded rank to a
 * function on the thread that loaded it (an analysis, a summary): what the function returns is kept, and
 * the store is dropped after it unless the function keeps it. So the memory a job takes is the stores
 * (and what the function keeps), never a merged one.
 *
 * <p>A member that cannot be read (missing, a directory, an extension no reader knows, malformed, damaged
 * past its first event) is a {@link Loaded} with its {@code failure} in one line, and the others still
 * load; a damaged member that still yielded events is loaded as far as it is sound and its
 * {@link ReadReport} says what was wrong. An exception the function throws is not a bad member: it is
 * thrown to the caller (a bug, or a cancel).
 *
 * <p>Threads: {@code threads} workers (one per core by default), each loading one member at a time;
 * results come back in the members' order whatever order they finished in.
 */
public final class JobLoad {
    private JobLoad() {}

    /**
     * One member's outcome.
     *
     * @param member  the member
     * @param result  what the function made of it, null when it failed
     * @param report  what the read found, null when it failed before reading
     * @param failure why it could not be loaded, in words (one line; for a file a reader refused, what the file is),
     *                null when it loaded
     * @param failureDetail the reader's exact words where a reader refused the file, null otherwise
     */
    public record Loaded<R>(JobMember member, R result, ReadReport report, String failure, String failureDetail) {
        /** Why it could not be loaded in one line, the reader's words after the reason ({@link MemberRefusal#line()}); null when it loaded. */
        public String failureLine() {
            return failure == null ? null : new MemberRefusal(failure, failureDetail).line();
        }

        /** Whether the member loaded (perhaps damaged). */
        public boolean ok() {
            return failure == null;
        }

        /** Whether it loaded but its file was damaged. */
        public boolean damaged() {
            return failure == null && report != null && report.damaged();
        }
    }

    /** Threads a job loads with by default: one per core. */
    public static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** Loads {@code members} with {@link #defaultThreads()} workers. */
    public static <R> List<Loaded<R>> load(List<JobMember> members, BiFunction<JobMember, LoadedTrace, R> perRank) {
        return load(members, defaultThreads(), perRank);
    }

    /**
     * Loads {@code members} with at most {@code threads} workers.
     *
     * @throws RuntimeException what {@code perRank} threw, unwrapped
     */
    public static <R> List<Loaded<R>> load(List<JobMember> members, int threads, BiFunction<JobMember, LoadedTrace, R> perRank) {
        return load(members, threads, Progress.NONE, perRank);
    }

    /**
     * Loads {@code members} with at most {@code threads} workers, telling {@code progress} how many members
     * are done (of all) as each finishes, and stopping when it is cancelled: a read in progress stops at its
     * next batch of events, and the load throws {@link CancellationException}. {@code progress} is called
     * on the workers (it is thread-safe, as every {@link Progress} is).
     *
     * @throws RuntimeException what {@code perRank} threw, unwrapped; {@link CancellationException} on a cancel
     */
    public static <R> List<Loaded<R>> load(List<JobMember> members, int threads, Progress progress,
                                           BiFunction<JobMember, LoadedTrace, R> perRank) {
        return load(members, threads, progress, m -> null, (m, t, tap) -> perRank.apply(m, t));
    }

    /** What is made of a loaded member, given the tap its events also went to. */
    @FunctionalInterface
    public interface Tapped<T extends EventSink, R> {
        R apply(JobMember member, LoadedTrace trace, T tap);
    }

    /**
     * Loads as {@link #load(List, int, Progress, BiFunction)} does, each member's memories and events
     * handed as they are stored to the sink {@code tapFor} makes for it (null: none), on the thread that
     * stores them ({@link TraceFormats#load(Path, EventSink, Progress)}); then
     * {@code perRank} gets that sink with the loaded trace, on the worker. What a rank's row needs is
     * then computed while the file is parsed, not by reading the store back.
     */
    public static <T extends EventSink, R> List<Loaded<R>> load(List<JobMember> members, int threads, Progress progress,
                                                                Function<JobMember, T> tapFor, Tapped<T, R> perRank) {
        AtomicInteger done = new AtomicInteger();
        int total = members.size();
        progress.update(0, total, "ranks");
        int n = Math.max(1, Math.min(threads, members.size()));
        AtomicInteger ids = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "job-load-" + ids.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Loaded<R>>> futures = new ArrayList<>();
            for (JobMember m : members) {
                futures.add(pool.submit(() -> {
                    progress.checkCancelled();
                    Loaded<R> l = one(m, progress, tapFor, perRank);
                    progress.update(done.incrementAndGet(), total, m.rank());
                    return l;
                }));
            }
            List<Loaded<R>> out = new ArrayList<>(members.size());
            for (Future<Loaded<R>> f : futures) {
                try {
                    out.add(f.get());
                } catch (ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof RuntimeException re) {
                        throw re;
                    }
                    if (c instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(c);
                }
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("job load interrupted");
        } finally {
            pool.shutdownNow();
        }
    }

    private static <T extends EventSink, R> Loaded<R> one(JobMember m, Progress progress, Function<JobMember, T> tapFor,
                                                          Tapped<T, R> perRank) {
        Path f = m.file();
        String wrong = !Files.exists(f) ? "no such file" : Files.isDirectory(f) ? "is a directory, not a file"
                : !Files.isRegularFile(f) ? "not a regular file" : !Files.isReadable(f) ? "permission denied" : null;
        if (wrong == null && TraceFormats.input(f) == null) {
            String ext = TraceFormats.extension(f);
            wrong = (ext.isEmpty() ? "no file extension to tell the format by" : "cannot read '" + ext + "' files")
                    + " (reads " + TraceFormats.inputExtensions() + ")";
        }
        if (wrong != null) {
            return new Loaded<>(m, null, null, f + ": " + wrong, null);
        }
        LoadedTrace t;
        T tap = tapFor.apply(m);
        try {
            t = TraceFormats.load(f, tap, progress == Progress.NONE ? null : (done, total, stage) -> progress.checkCancelled());
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage();
            MemberRefusal why = FileKind.memberRefusal(f, msg);
            return new Loaded<>(m, null, null, why.reason(), why.detail());
        }
        if (t.report().damaged() && t.report().events() == 0) {
            return new Loaded<>(m, null, t.report(), t.report().summary(), null);
        }
        return new Loaded<>(m, perRank.apply(m, t, tap), t.report(), null, null);
    }
}
