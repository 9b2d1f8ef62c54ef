package dev.arenascope.core.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A count agrees with its noun: the window said "1 tensors". */
class CountsTest {

    @Test
    void oneThingIsSingularAndEveryOtherCountPlural() {
        assertEquals("1 tensor", Counts.of(1, "tensor"));
        assertEquals("0 tensors", Counts.of(0, "tensor"));
        assertEquals("2 tensors", Counts.of(2, "tensor"));
        assertEquals("1,024 tensors", Counts.of(1024, "tensor"));
        assertEquals("1 entry", Counts.of(1, "entry", "entries"));
        assertEquals("2,200,000 entries", Counts.of(2_200_000, "entry", "entries"));
        assertEquals("memory", Counts.noun(1, "memory", "memories"));
        assertEquals("memories", Counts.noun(11, "memory", "memories"));
    }
}
