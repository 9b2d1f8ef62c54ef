package dev.arenascope.core.plan;

/**
 * Assigns an offset to every buffer of a {@link PlanProblem} so that buffers live at a common step
 * never share bytes. Implementations are stateless and thread-safe.
 */
public sealed interface Planner permits AutoPlanner, GreedyBySizePlanner, SearchPlanner, SweepPlanner {

    /** The strategy {@code arenascope plan} takes without {@code --strategy}, and the window's Re-plan too. */
    String DEFAULT_STRATEGY = "auto";

    /** How long {@code arenascope plan} searches without {@code --time-limit} (10 s), and the window's Re-plan too. */
    long DEFAULT_TIME_LIMIT_NANOS = 10_000_000_000L;

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

    /**
     * The instant ({@link System#nanoTime()}) a search that began at {@code t0} with {@code timeLimitNanos} must stop
     * by: {@code t0} for no time (or less), {@link Long#MAX_VALUE} where the sum would overflow (no limit).
     */
    static long deadline(long t0, long timeLimitNanos) {
        long deadline = t0 + Math.max(0, timeLimitNanos);
        return deadline < t0 ? Long.MAX_VALUE : deadline;
    }

    /** The planner with this CLI name: {@code auto}, {@code greedy}, {@code search} or {@code sweep}. */
    static Planner named(String name) {
        return switch (name) {
            case "auto" -> new AutoPlanner();
            case "greedy" -> new GreedyBySizePlanner();
            case "search" -> new SearchPlanner();
            case "sweep" -> new SweepPlanner();
            default -> throw new IllegalArgumentException("unknown strategy '" + name + "' (expected auto, greedy, search or sweep)");
        };
    }

    /**
     * What {@code plan}'s default strategy {@code auto} takes for {@code problem}: the search up to
     * {@link SweepPlanner#AUTO_THRESHOLD} buffers, and above it too where the capacity leaves no slack at
     * any step (a tight problem, which the search cuts apart); else the sweep, whose cost stays
     * near-linear in the buffers.
     */
    static Planner auto(PlanProblem problem, long capacity) {
        if (problem.size() <= SweepPlanner.AUTO_THRESHOLD
                || (capacity != Long.MAX_VALUE && PerfectPacking.applies(problem, capacity))) {
            return new SearchPlanner();
        }
        return new SweepPlanner();
    }
}
