package dev.arenascope.app.ui.model;

import dev.arenascope.core.analysis.SiteMembers;

/**
 * What the site view selected — one node of its tree or flame graph, one site, or one category — and the
 * allocations behind it, published in {@link SessionModel#selectedSiteProperty()} for the other views:
 * the timeline highlights these allocations' stripes, the events table lists their events.
 *
 * @param memory   the id of the memory the answer is about ({@code MemoryInfo#id()})
 * @param label    what was selected, in words: a frame's {@code function (file:line)}, a category's name
 * @param question the question the site view answered ({@code live at the peak (…)}), for tooltips and summaries
 * @param members  the allocations the question counted at the selection: their allocating and freeing
 *                 event indexes in the shown trace, bytes, count, and the trace's stack nodes they carry
 */
public record SiteSelection(int memory, String label, String question, SiteMembers members) {

    public SiteSelection {
        if (label == null || question == null || members == null) {
            throw new IllegalArgumentException("a site selection needs a label, a question and its members");
        }
    }

    /** Whether the allocation made by the event at {@code eventIndex} is selected (O(log n)). */
    public boolean highlights(long eventIndex) {
        return members.isAllocation(eventIndex);
    }
}
