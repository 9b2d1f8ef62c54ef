package dev.arenascope.app.bench;

import java.util.Map;

/**
 * A group of figures {@code arenascope bench} measures, e.g. the arena's allocation costs. Figures are
 * named {@code group.figure_unit} ({@code arena.alloc_ns}) and kept stable: CI jobs read them.
 */
public interface BenchSuite {

    /** The figures' common prefix, e.g. {@code arena}; {@code --only} selects suites by it. */
    String group();

    /**
     * Measures and returns figure name to value. Each figure is the median of several timed rounds run
     * after a warm-up, so a noisy shared machine moves it little.
     *
     * @param quick fewer and shorter rounds (for smoke tests), same figures
     */
    Map<String, Double> run(boolean quick) throws Exception;
}
