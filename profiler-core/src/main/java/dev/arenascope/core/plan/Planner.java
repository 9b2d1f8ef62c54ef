package dev.arenascope.core.plan;

/**
 * Assigns an offset to every buffer of a {@link PlanProblem} so that buffers live at a common step
 * never share bytes. Implementations are stateless and thread-safe.
 */
public sealed interface Planner permits GreedyBySizePlanner, SearchPlanner {

    /** The strategy's name as the CLI spells it. */
    String name();

    /**
     * Plans {@code problem}.
     *
     * @param capacity       the bytes available ({@code Long.MAX_VALUE} for none): a search stops at the
     *                       first packing within it; greedy ignores it except to report {@link Packing#fits()}
     * @param timeLimitNanos how long a search may run before it returns the best packing found
     */
    Packing plan(PlanProblem problem, long capacity, long timeLimitNanos);

    /** The planner with this CLI name: {@code greedy} or {@code search}. */
    static Planner named(String name) {
        return switch (name) {
            case "greedy" -> new GreedyBySizePlanner();
            case "search" -> new SearchPlanner();
            default -> throw new IllegalArgumentException("unknown strategy '" + name + "' (expected greedy or search)");
        };
    }
}
