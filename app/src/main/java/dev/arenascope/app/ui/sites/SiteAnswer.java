package dev.arenascope.app.ui.sites;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.analysis.SiteBreakdown;
import dev.arenascope.core.analysis.SiteDiff;
import dev.arenascope.core.analysis.SiteQuestion;
import dev.arenascope.core.analysis.SiteTree;

/**
 * The site view's answer to one {@link SiteRequest}, computed off the FX thread by {@link SiteAnswerBuilder}.
 * Immutable.
 *
 * @param request      what was asked
 * @param analysis     the analysis that answered (kept to find a selection's allocations)
 * @param question     the question as asked of the analysis
 * @param sites        the answer: by site, or by category for {@link SiteRequest.Shape#CATEGORY}
 * @param tree         the call tree of the view's shape (top-down for {@link SiteRequest.Shape#SITES}, which the
 *                     flame graph draws), null by category
 * @param baseline     the baseline's answer to the same question (compare mode), else null
 * @param baselineTree the baseline's tree of the same shape, else null
 * @param diff         site by site against the baseline (by site shapes), else null
 * @param computeNs    how long the answer took, analysis build included when it was built for it
 */
public record SiteAnswer(SiteRequest request, SiteAnalysis analysis, SiteQuestion question, SiteBreakdown sites, SiteTree tree,
                         SiteBreakdown baseline, SiteTree baselineTree, SiteDiff diff, long computeNs) {

    /** Whether a baseline was compared. */
    public boolean comparing() {
        return baseline != null;
    }
}
