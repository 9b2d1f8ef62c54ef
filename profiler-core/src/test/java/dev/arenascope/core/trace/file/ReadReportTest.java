package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Saturating;

class ReadReportTest {

    @Test
    void aFooterThatClaimsFewerEventsThanWereRecoveredIsNamedNotDividedBy() {
        ReadReport r = new ReadReport("f.astrace", 1882, 3, "chunks", 4096, 0, 0, 1, List.of("f.astrace: no footer"));
        assertEquals("f.astrace: no footer; recovered 1882 events in 3 chunks (the footer says 0)", r.summary());
        ReadReport fine = new ReadReport("f.astrace", 10, 1, "chunks", 4096, 12, 0, 1, List.of("f.astrace: cut"));
        assertEquals("f.astrace: cut; recovered 10 of 12 events in 1 chunks", fine.summary());
    }

    @Test
    void countsSaturateInsteadOfWrapping() {
        assertEquals(Long.MAX_VALUE, Saturating.add(Long.MAX_VALUE, Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, Saturating.add(Long.MAX_VALUE, 1));
        assertEquals(7, Saturating.add(3, 4));
    }
}
