package dev.arenascope.core.format;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Every way a user writes a byte count (the events table's min-size field, CLI sizes). */
class BytesParseTest {
    @Test
    void acceptsEverySpellingOfTheBinaryUnits() {
        for (String s : new String[] {"1MiB", "1Mi", "1MB", "1M", "1 MiB", "1mi", "1mb", "1048576", "1048576B", "1048576 b"}) {
            assertEquals(1L << 20, Bytes.parse(s), s);
        }
        assertEquals(300L << 20, Bytes.parse("300Mi"));
        assertEquals(4L << 10, Bytes.parse("4KiB"));
        assertEquals(4L << 10, Bytes.parse("4Ki"));
        assertEquals(4L << 10, Bytes.parse("4KB"));
        assertEquals(2L << 30, Bytes.parse("2GiB"));
        assertEquals(2L << 30, Bytes.parse("2Gi"));
        assertEquals(2L << 30, Bytes.parse("2GB"));
        assertEquals(3L << 29, Bytes.parse("1.5G"));
    }

    @Test
    void rejectsWhatIsNotAByteCountWithTheAcceptedForms() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Bytes.parse("12 parsecs"));
        assertTrue(e.getMessage().contains("'12 parsecs'") && e.getMessage().contains("300Mi"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Bytes.parse("MiB"));
        assertThrows(IllegalArgumentException.class, () -> Bytes.parse("99999999999999999999G"));
    }
}
