package dev.arenascope.core.plan;

/**
 * {@code plan}'s default strategy: hands each problem to the planner {@link Planner#auto} picks for it
 * (the search up to {@link SweepPlanner#AUTO_THRESHOLD} buffers or on a tight problem, else the sweep);
 * the packing names the planner that made it. Stateless and thread-safe.
 */
public record AutoPlanner() implements Planner {

    @Override
    public String name() {
        return "auto";
    }

    @Override
    public Packing plan(PlanProblem problem, long capacity, long timeLimitNanos) {
        return Planner.auto(problem, capacity).plan(problem, capacity, timeLimitNanos);
    }
}
