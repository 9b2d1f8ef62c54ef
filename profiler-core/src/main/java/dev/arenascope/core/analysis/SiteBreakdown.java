package dev.arenascope.core.analysis;

import java.util.ArrayList;
import java.util.List;

import dev.arenascope.core.trace.StackFrame;

/**
 * The answer to one {@link SiteAnalysis} question: bytes and counts per allocation site (or per
 * category), largest first.
 *
 * @param memory         the memory's name
 * @param question       what was asked, in words ({@code live at the peak (12.97 GiB at 41.2 s)})
 * @param fromNs         start of the question's time range (an instant: equal to {@code toNs}), ns since the session start
 * @param toNs           end of the range
 * @param totalBytes     bytes the question covers (live at the instant, allocated in the range, ...): the sum of the rows' bytes
 * @param totalCount     allocations it covers: the sum of the rows' counts
 * @param source         where sites come from; {@link SiteSource#SCOPES} means no allocation carried a stack
 * @param sampling       how the program sampled its stacks ({@code one allocation in 16}), null when every allocation was walked
 * @param internalHidden whether frames marked {@link StackFrame#FLAG_INTERNAL} were left out of the paths
 * @param rows           per site or category, by bytes then count, largest first
 */
public record SiteBreakdown(String memory, String question, long fromNs, long toNs, long totalBytes, long totalCount,
                            SiteSource source, String sampling, boolean internalHidden, List<Row> rows) {

    public SiteBreakdown {
        rows = List.copyOf(rows);
    }

    /**
     * One site (or category).
     *
     * @param label          the innermost frame's {@link StackFrame#label()}, a category's name, or {@code (no site)}
     * @param frames         the site's frames, innermost first (empty for a category or an allocation without a site)
     * @param bytes          bytes of the allocations the question counts at this site
     * @param count          how many allocations
     * @param stillLiveBytes of those, the bytes still live at the end of the question's range (the same as
     *                       {@code bytes} for an instant)
     */
    public record Row(String label, List<StackFrame> frames, long bytes, long count, long stillLiveBytes) {
        public Row {
            frames = List.copyOf(frames);
        }
    }

    /** The first {@code n} rows, the rest folded into one {@code (N other sites)} row so totals still add up. */
    public SiteBreakdown top(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("top must not be negative, got " + n);
        }
        if (rows.size() <= n) {
            return this;
        }
        List<Row> kept = new ArrayList<>(rows.subList(0, n));
        long b = 0;
        long c = 0;
        long l = 0;
        for (Row r : rows.subList(n, rows.size())) {
            b += r.bytes;
            c += r.count;
            l += r.stillLiveBytes;
        }
        kept.add(new Row("(" + (rows.size() - n) + " other sites)", List.of(), b, c, l));
        return new SiteBreakdown(memory, question, fromNs, toNs, totalBytes, totalCount, source, sampling, internalHidden, kept);
    }
}
