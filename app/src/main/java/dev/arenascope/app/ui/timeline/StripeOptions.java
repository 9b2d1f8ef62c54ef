package dev.arenascope.app.ui.timeline;

import java.util.Map;
import java.util.Set;

import dev.arenascope.app.ui.model.SiteSelection;
import dev.arenascope.core.analysis.SiteAnalysis;

/**
 * What a frame draws as allocation stripes: which lanes (those with an analysis here), coloured by
 * site or category, which groups the legend switched off (folded into "others"), and the site to
 * highlight. Immutable.
 *
 * @param lanes     memory ids of the lanes switched to stripes
 * @param analyses  per memory id, the core's analysis of those lanes, where it is built (a lane without
 *                  one is drawn as an area until it is)
 * @param colourBy  {@link SiteAnalysis.By#SITE} or {@link SiteAnalysis.By#CATEGORY}
 * @param hidden    {@link StripeLayer.Group#key() group keys} the legend switched off
 * @param highlight the selected site's allocations (their stripes drawn strong, the rest faded), or null
 */
public record StripeOptions(Set<Integer> lanes, Map<Integer, SiteAnalysis> analyses, SiteAnalysis.By colourBy, Set<String> hidden,
                            SiteSelection highlight) {

    /** No lane drawn as stripes. */
    public static final StripeOptions NONE = new StripeOptions(Set.of(), Map.of(), SiteAnalysis.By.SITE, Set.of(), null);

    public StripeOptions {
        lanes = Set.copyOf(lanes);
        analyses = Map.copyOf(analyses);
        hidden = Set.copyOf(hidden);
    }
}
