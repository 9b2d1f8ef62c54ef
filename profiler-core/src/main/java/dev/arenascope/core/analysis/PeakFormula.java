package dev.arenascope.core.analysis;

import java.util.List;

/**
 * How a program's scopes add up to its peak bytes, the way the program allocates them: terms that
 * are live together are summed, temporaries that reuse the same bytes one after another take the
 * maximum. The program states this (it knows which regions are temporaries); calibration supplies
 * each term's fitted size.
 *
 * <pre>{@code
 * // outputs, tile state and raster precompute stay for the whole batch; the post-processing
 * // passes each run in a temp() scope over the same bytes
 * PeakFormula batch = PeakFormula.sum(term("output"), term("tiles"), term("raster"),
 *         PeakFormula.max(term("blur"), term("tonemap")));
 * }</pre>
 */
public sealed interface PeakFormula {

    /** The bytes of one scope name. */
    record Term(String scope) implements PeakFormula {}

    /** Parts live at the same time. */
    record Sum(List<PeakFormula> parts) implements PeakFormula {
        public Sum {
            parts = List.copyOf(parts);
        }
    }

    /** Parts that reuse the same bytes one after another. */
    record Max(List<PeakFormula> parts) implements PeakFormula {
        public Max {
            parts = List.copyOf(parts);
        }
    }

    static PeakFormula term(String scope) {
        return new Term(scope);
    }

    static PeakFormula sum(PeakFormula... parts) {
        return new Sum(List.of(parts));
    }

    static PeakFormula max(PeakFormula... parts) {
        return new Max(List.of(parts));
    }
}
