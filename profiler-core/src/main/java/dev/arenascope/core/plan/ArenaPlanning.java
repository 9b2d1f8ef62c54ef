package dev.arenascope.core.plan;

import java.util.Objects;

/**
 * How one arena of a plan was laid out and how close its height is proved to the least possible:
 * what {@code plan} prints for the arena, kept in the plan JSON under {@code planning} (keyed by the
 * arena's label, e.g. {@code scratch:arena}). Immutable.
 *
 * @param strategy         the planner ({@code greedy}, {@code search})
 * @param heightBytes      the arena's height as laid out
 * @param lowerBoundBytes  the most bytes live at one step
 * @param provedBoundBytes a proved lower bound on every packing's height ({@link Packing#bound()})
 * @param proof            {@code optimal} or {@code gap <= X%} ({@link Packing#proof()})
 * @param gapPercent       the certified gap in percent, 0 when optimal
 * @param basis            what the proved bound rests on: {@code load}, {@code window} or {@code search}
 * @param timedOut         whether the search stopped at its time limit
 */
public record ArenaPlanning(String strategy, long heightBytes, long lowerBoundBytes, long provedBoundBytes, String proof,
                            double gapPercent, String basis, boolean timedOut) {
    public ArenaPlanning {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(proof, "proof");
        Objects.requireNonNull(basis, "basis");
    }

    /** The planning record of a packing. */
    public static ArenaPlanning of(Packing p) {
        return new ArenaPlanning(p.strategy(), p.height(), p.lowerBound(), p.bound(), p.proof(), p.gapPercent(),
                p.basis().label(), p.timedOut());
    }
}
