package dev.arenascope.app.ui.timeline;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

import dev.arenascope.core.analysis.SiteAnalysis;
import dev.arenascope.core.trace.StackFrame;

/**
 * The legend's words for each site path of one analysis (its key, short label and frames), made once
 * per path and kept while the analysis lives, so that a frame does not rebuild thousands of strings.
 * Thread-safe: a path's name may be made twice by two builders at once, to the same text.
 */
final class GroupNames {
    /**
     * @param key    {@code site:} and the frames, one a line
     * @param label  the innermost frame, folders left out
     * @param detail the frames, one a line
     * @param seed   the key's hash: the group's colour seed, kept so a frame need not read the key
     */
    record Name(String key, String label, String detail, int seed) {
        Name(String key, String label, String detail) {
            this(key, label, detail, key.hashCode());
        }
    }

    private static final Map<SiteAnalysis, GroupNames> CACHE = Collections.synchronizedMap(new WeakHashMap<>());
    private static final Name NO_SITE = new Name("site:(no site)", "(no site)", "(no site)");

    private final SiteAnalysis analysis;
    private final Name[] names;

    private GroupNames(SiteAnalysis analysis) {
        this.analysis = analysis;
        this.names = new Name[analysis.pathCount()];
    }

    static GroupNames of(SiteAnalysis analysis) {
        return CACHE.computeIfAbsent(analysis, GroupNames::new);
    }

    /** The name of path {@code p} (-1: no site). */
    Name path(int p) {
        if (p < 0 || p >= names.length) {
            return NO_SITE;
        }
        Name n = names[p];
        if (n == null) {
            List<StackFrame> frames = analysis.pathFrames(p);
            StringBuilder d = new StringBuilder();
            for (StackFrame f : frames) {
                d.append(d.isEmpty() ? "" : "\n").append(f.label());
            }
            n = frames.isEmpty() ? NO_SITE : new Name("site:" + d, StripeBuilder.shortLabel(frames.getFirst()), d.toString());
            names[p] = n;
        }
        return n;
    }
}
