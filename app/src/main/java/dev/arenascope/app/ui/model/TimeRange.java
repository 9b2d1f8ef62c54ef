package dev.arenascope.app.ui.model;


import dev.arenascope.core.format.Durations;
import dev.arenascope.core.format.TimeAxis;

/**
 * A half-open span of session time {@code [fromNs, toNs)} in nanoseconds since the session start.
 * Always {@code toNs > fromNs}.
 */
public record TimeRange(long fromNs, long toNs) {
    public TimeRange {
        if (toNs <= fromNs) {
            toNs = fromNs + 1;
        }
    }

    public long duration() {
        return toNs - fromNs;
    }

    public boolean contains(long ns) {
        return ns >= fromNs && ns < toNs;
    }

    public boolean overlaps(long from, long to) {
        return from < toNs && to > fromNs;
    }

    /** This range zoomed by {@code factor} ({@code factor < 1} zooms in) around {@code anchorNs}, kept inside {@code bounds}. */
    public TimeRange zoom(double factor, long anchorNs, TimeRange bounds, long minDurationNs) {
        double d = Math.max(minDurationNs, Math.min(bounds.duration(), duration() * factor));
        double t = (anchorNs - fromNs) / (double) duration();
        long from = Math.round(anchorNs - t * d);
        return new TimeRange(from, from + Math.round(d)).clampTo(bounds);
    }

    /** This range moved by {@code deltaNs}, kept inside {@code bounds}. */
    public TimeRange pan(long deltaNs, TimeRange bounds) {
        return new TimeRange(fromNs + deltaNs, toNs + deltaNs).clampTo(bounds);
    }

    /** Shifted (not shrunk, unless wider) to lie within {@code bounds}. */
    public TimeRange clampTo(TimeRange bounds) {
        long d = Math.min(duration(), bounds.duration());
        long from = Math.max(bounds.fromNs, Math.min(fromNs, bounds.toNs - d));
        return new TimeRange(from, from + d);
    }

    /** Formats a duration: {@code 1.25 ms}, {@code 3.000 s} (the core's one formatter, {@link Durations}). */
    public static String formatDuration(long ns) {
        return Durations.format(ns);
    }

    /** Formats an instant since the session start, e.g. {@code 12.345 ms}. */
    public static String formatTime(long ns) {
        return formatDuration(ns);
    }

    /**
     * This range as the status bar writes it, on the trace's axis: {@code 1.00 ms – 3.00 ms (2.00 ms)},
     * or {@code entry 0 – entry 5,162 (5,162 entries)} for a snapshot without timestamps.
     */
    public String describe(TimeAxis axis) {
        return axis.at(fromNs) + " – " + axis.at(toNs) + " (" + axis.span(duration()) + ")";
    }

    @Override
    public String toString() {
        return formatTime(fromNs) + " – " + formatTime(toNs) + " (" + formatDuration(duration()) + ")";
    }
}
