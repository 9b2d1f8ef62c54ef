package dev.arenascope.app.commands.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import dev.arenascope.app.cli.CliRun;


class PoolBinsCommandTest {
    /** The last run of the command line: its exit code and both streams. */
    private CliRun last;

    private int run(String... args) {
        last = CliRun.of(args);
        return last.code();
    }

    private String out() {
        return last.out();
    }

    private String err() {
        return last.err();
    }

    @Test
    void printsSizeBinAndAllocSizeInDecimal() {
        assertEquals(0, run("pool-bins", "--mantissa-bits", "2", "1000", "1024"));
        assertEquals("1000 39 1023\n1024 40 1279\n", out());
        assertEquals("", err());
    }

    @Test
    void issueExamplesWithFourBits() {
        assertEquals(0, run("pool-bins", "--mantissa-bits=4", "1000", "4097", "4294967297", "0"));
        assertEquals("1000 159 1023\n4097 192 4351\n4294967297 512 4563402751\n0 0 1\n", out());
    }

    @Test
    void defaultsToFourBitsAndAcceptsUnits() {
        assertEquals(0, run("pool-bins", "4KiB", "9223372036854775807"));
        assertEquals("4096 192 4351\n9223372036854775807 1007 9223372036854775807\n", out());
    }

    @Test
    void badSizesExitTwoWithOneLine() {
        for (String bad : new String[] {"-5", "abc", "12x", "", "99999999999999999999", "1.2.3"}) {
            assertEquals(2, run("pool-bins", "--mantissa-bits", "4", "100", bad), bad);
            assertEquals("", out(), "nothing printed for a bad command line: " + bad);
            String e = err();
            assertTrue(e.startsWith("arenascope pool-bins: SIZE 2: "), e);
            assertEquals(1, e.lines().count(), e);
            assertTrue(!e.contains("Exception"), e);
        }
    }

    @Test
    void negativeSizeIsNamedAsSuch() {
        assertEquals(2, run("pool-bins", "-3"));
        assertEquals("arenascope pool-bins: SIZE 1: '-3' is negative; sizes are byte counts >= 0\n", err());
    }

    @Test
    void badOptionsExitTwo() {
        assertEquals(2, run("pool-bins", "--mantissa-bits", "17", "100"));
        assertTrue(err().contains("--mantissa-bits must be in 0..16, got 17"), err());
        assertEquals(2, run("pool-bins", "--mantissa-bits", "four", "100"));
        assertTrue(err().contains("--mantissa-bits expects an integer"), err());
        assertEquals(2, run("pool-bins"));
        assertTrue(err().contains("no SIZE given"), err());
        assertEquals(2, run("pool-bins", "--bits", "3", "100"));
        assertTrue(err().contains("unknown option --bits"), err());
    }

    @Test
    void helpDescribesTheColumns() {
        assertEquals(0, run("pool-bins", "--help"));
        assertTrue(out().contains("SIZE BIN ALLOC_SIZE"));
        assertEquals(0, run("--help"));
        assertTrue(out().contains("pool-bins"));
    }
}
