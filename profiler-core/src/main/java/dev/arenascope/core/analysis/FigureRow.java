package dev.arenascope.core.analysis;

import java.util.List;

/**
 * A row of an analysis table: a subject (a memory, a scope, a pool bin, a plan arena) and its
 * figures. Reports render rows as table rows; {@link TraceDiff} matches rows of two traces by
 * {@link #section()} and {@link #subject()} and compares their figures by key.
 */
public sealed interface FigureRow permits MemoryAnalysis, ScopeAnalysis, PoolBinAnalysis, PlanAnalysis {

    /** The table this row belongs to: {@code memories}, {@code scopes}, {@code poolBins}, {@code plans}. */
    String section();

    /** What the row is about, unique within its section of one trace, e.g. {@code frame-arena} or {@code pool / bin 37}. */
    String subject();

    /** The row's figures in display order; keys are unique within the row. */
    List<Figure> figures();

    /** The figure with this key, or null. */
    default Figure figure(String key) {
        for (Figure f : figures()) {
            if (f.key().equals(key)) {
                return f;
            }
        }
        return null;
    }
}
