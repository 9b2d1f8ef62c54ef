package dev.arenascope.core.plan;

/**
 * The steps over which a tensor holds a value, both ends inclusive: it is written at or before
 * {@code firstStep} and read for the last time at {@code lastStep}. In MiniMalloc's half-open
 * {@code [lower, upper)} terms, {@code lower = firstStep} and {@code upper = lastStep + 1}.
 *
 * @param firstStep first step the tensor is live (not negative)
 * @param lastStep  last step the tensor is live ({@code >= firstStep}, below {@link PlanProblem#MAX_STEP})
 */
public record TensorLifetime(long firstStep, long lastStep) {
    public TensorLifetime {
        if (firstStep < 0 || lastStep < firstStep) {
            throw new IllegalArgumentException("bad lifetime [" + firstStep + ", " + lastStep + "]: need 0 <= first <= last");
        }
        if (lastStep >= PlanProblem.MAX_STEP) {
            throw new IllegalArgumentException("bad lifetime [" + firstStep + ", " + lastStep + "]: the last step must be below 2^62");
        }
    }

    /** Whether the two lifetimes share at least one step. */
    public boolean overlaps(TensorLifetime other) {
        return firstStep <= other.lastStep && other.firstStep <= lastStep;
    }
}
