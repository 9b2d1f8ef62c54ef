package dev.arenascope.core.analysis;

/**
 * One question put to a {@link SiteAnalysis} (see {@link SiteAnalysis#ask(SiteQuestion, SiteAnalysis.By)}):
 * the same five the {@code arenascope sites} command and the window's site view ask. Times are ns since
 * the session start, as the trace's events carry them; a question outside the trace is refused when it
 * is asked ({@link IllegalArgumentException}), not when it is made.
 */
public sealed interface SiteQuestion {

    /** What is live right after the event that first reached the memory's peak ({@code --at peak}). */
    record AtPeak() implements SiteQuestion {}

    /** What is live at {@code atNs} ({@code --at TIME}). */
    record LiveAt(long atNs) implements SiteQuestion {}

    /** What was allocated in {@code [fromNs, toNs]}, both ends included ({@code --range FROM..TO}). */
    record AllocatedIn(long fromNs, long toNs) implements SiteQuestion {}

    /** What is live at the end of the trace ({@code --leaks}). */
    record Leaks() implements SiteQuestion {}

    /**
     * Allocated and freed inside {@code [fromNs, toNs]}, alive for less than {@code shorterThanNs}
     * ({@code --temporary [--range] [--shorter-than]}).
     */
    record Temporaries(long fromNs, long toNs, long shorterThanNs) implements SiteQuestion {}

    /** The default threshold of {@link Temporaries}: 1 ms, as the CLI's {@code --shorter-than}. */
    long DEFAULT_TEMPORARY_NS = 1_000_000L;
}
