package dev.arenascope.core.analysis;

import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.TraceView;

/**
 * Who held one memory at its peak, for reports: the {@link SiteAnalysis} answers at the peak, by site
 * and by category. Made for each memory whose allocations carry stacks ({@link SiteSource#STACKS}).
 *
 * @param memory     the memory's name
 * @param peakBytes  the memory's peak in use (the sum of {@code bySite}'s rows)
 * @param peakAtNs   when it was first reached
 * @param bySite     live at the peak, by site, every site (internal frames hidden)
 * @param byCategory live at the peak, by category
 */
public record MemorySites(String memory, long peakBytes, long peakAtNs, SiteBreakdown bySite, SiteBreakdown byCategory) {

    /** The sites of {@code memory} in {@code view}, or null when none of its allocations carries a stack. */
    public static MemorySites of(TraceView view, MemoryInfo memory) {
        SiteAnalysis sa = SiteAnalysis.stacksAtPeak(view, memory, false); // bounded: the live set, not every allocation
        if (sa == null || sa.source() != SiteSource.STACKS) {
            return null;
        }
        return new MemorySites(memory.name(), sa.peakBytes(), sa.peakNs(), sa.ask(new SiteQuestion.AtPeak(), SiteAnalysis.By.SITE),
                sa.ask(new SiteQuestion.AtPeak(), SiteAnalysis.By.CATEGORY));
    }
}
