package dev.arenascope.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

/** What every suite's test checks first: its group (what {@code --only} selects), that {@code bench} runs it, its quick figures. */
final class BenchTests {
    private BenchTests() {}

    /** Asserts {@code suite} is in group {@code group} and registered, then runs it quick and returns its figures. */
    static Map<String, Double> quickRun(BenchSuite suite, String group) throws Exception {
        assertEquals(group, suite.group(), "runs with --only " + group);
        assertTrue(BenchCommand.SUITES.stream().anyMatch(s -> s.getClass() == suite.getClass()), "registered");
        return suite.run(true);
    }
}
