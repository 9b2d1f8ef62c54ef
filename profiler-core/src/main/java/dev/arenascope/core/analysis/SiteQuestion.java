package dev.arenascope.core.analysis;

/**
 * One question put to a {@link SiteAnalysis} (see {@link SiteAnalysis#ask(SiteQuestion, SiteAnalysis.By)}, the one way to ask):
 * the same five the {@code arenascope sites} command and the window's site view ask. Times are ns since
 * the session start, as the trace's events carry them; a question outside the trace is refused when it
 * is asked ({@link IllegalArgumentException}), not when it is made.
 */
public sealed interface SiteQuestion {

    /**
     * What is live right after the event that first reached the memory's peak ({@code --at peak}): the rows
     * add up to {@link SiteAnalysis#peakBytes()} exactly, even when other events share the peak's timestamp.
     */
    record AtPeak() implements SiteQuestion {}

    /** What is live at {@code atNs} ({@code --at TIME}): allocated at or before it and not freed at or before it. */
    record LiveAt(long atNs) implements SiteQuestion {}

    /**
     * What was allocated in {@code [fromNs, toNs]}, both ends included ({@code --range FROM..TO}); each row's
     * {@link SiteBreakdown.Row#stillLiveBytes()} is what of it was still live at {@code toNs}.
     */
    record AllocatedIn(long fromNs, long toNs) implements SiteQuestion {}

    /** What was never freed: live at the end of the trace ({@code --leaks}). */
    record Leaks() implements SiteQuestion {}

    /**
     * Allocated and freed inside {@code [fromNs, toNs]}, alive for less than {@code shorterThanNs}
     * ({@code --temporary [--range] [--shorter-than]}).
     */
    record Temporaries(long fromNs, long toNs, long shorterThanNs) implements SiteQuestion {}

    /** The default threshold of {@link Temporaries}: 1 ms, as the CLI's {@code --shorter-than}. */
    long DEFAULT_TEMPORARY_NS = 1_000_000L;
}
