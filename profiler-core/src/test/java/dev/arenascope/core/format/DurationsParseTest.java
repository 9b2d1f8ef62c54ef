package dev.arenascope.core.format;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Durations as people type them: every unit, a bare number in the caller's unit, and what is not a number. */
class DurationsParseTest {

    @Test
    void everyUnitAndTheBareUnit() {
        assertEquals(5, Durations.parse("5ns", 1e9));
        assertEquals(12_000, Durations.parse("12us", 1e9));
        assertEquals(12_000, Durations.parse("12 µs", 1e9));
        assertEquals(350e6, Durations.parse("350ms", 1e9));
        assertEquals(41.2e9, Durations.parse(" 41.2S ", 1e9), 1e-3);
        assertEquals(2 * 6e10, Durations.parse("2min", 1e9));
        assertEquals(3e9, Durations.parse("3", 1e9), "a bare number in seconds");
        assertEquals(3e6, Durations.parse("3", 1e6), "a bare number in milliseconds");
    }

    @Test
    void notANumberIsRefused() {
        assertThrows(NumberFormatException.class, () -> Durations.parse("fast", 1e9));
        assertThrows(NumberFormatException.class, () -> Durations.parse("ms", 1e9));
        assertThrows(NumberFormatException.class, () -> Durations.parse(null, 1e9));
    }
}
