package dev.arenascope.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BinsTest {

    @ParameterizedTest(name = "m={0}: {1} -> bin {2}, {3} bytes")
    @CsvSource({
            "2, 1000, 39, 1023",
            "2, 1024, 40, 1279",
            "4, 1000, 159, 1023",
            "4, 4097, 192, 4351",
            "4, 4294967297, 512, 4563402751",
            "4, 0, 0, 1",
            "4, 1, 0, 1",
            "4, 5, 36, 5",
            "4, 15, 62, 15",
            "4, 16, 64, 16",
            "4, 17, 65, 17",
            "4, 31, 79, 31",
            "4, 32, 80, 33",
            "0, 1000, 9, 1023",
            "4, 9223372036854775807, 1007, 9223372036854775807",
    })
    void examples(int m, long size, int bin, long allocSize) {
        assertEquals(bin, Bins.binNumber(size, m));
        assertEquals(allocSize, Bins.allocSize(bin, m));
    }

    @ParameterizedTest(name = "mantissa bits {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 6, 8, 12, 16})
    void propertiesOverRandomSizesUpTo2Pow62(int m) {
        SplittableRandom rnd = new SplittableRandom(0xA5C0_9E + m);
        for (int i = 0; i < 200_000; i++) {
            // a log-uniform size in [0, 2^62], so small and huge sizes are both well covered
            int bits = rnd.nextInt(63);
            long size = bits == 0 ? rnd.nextLong(2) : (1L << (bits - 1)) + rnd.nextLong(1L << (bits - 1)) + (bits == 62 ? rnd.nextLong(2) : 0);
            check(size, m);
        }
        for (int e = 0; e <= 62; e++) {
            long p = 1L << e;
            check(p, m);
            check(p - 1, m);
            if (e < 62) {
                check(p + 1, m);
            }
        }
        check(Long.MAX_VALUE, m);
    }

    private static void check(long x, int m) {
        int b = Bins.binNumber(x, m);
        long alloc = Bins.allocSize(b, m);
        assertTrue(alloc >= x, () -> "allocSize(binNumber(" + x + ")) = " + alloc + " < " + x + " (m=" + m + ")");
        assertEquals(b, Bins.binNumber(alloc, m), () -> "binNumber(allocSize(" + b + ")) != " + b + " (m=" + m + ")");
        // the bin's size is the largest in it: one more byte falls in the next bin
        if (alloc < Long.MAX_VALUE) {
            assertTrue(Bins.binNumber(alloc + 1, m) > b);
        }
        // rounding waste is below 2^-m of the request (exact bins below 2^m)
        if (x >= (1L << m)) {
            assertTrue((alloc - x) < Math.max(1, Long.highestOneBit(x) >>> m), () -> "waste too large for " + x);
        } else {
            assertEquals(Math.max(1, x), alloc);
        }
    }

    @Test
    void sizesPast32BitsAreNotTruncated() {
        long x = (1L << 32) + 1;
        assertEquals(4563402751L, Bins.allocSize(Bins.binNumber(x, 4), 4));
        long big = 3L << 40;
        assertEquals(big, Bins.allocSize(Bins.binNumber(big, 4), 4) - ((1L << 37) - 1));
    }

    @Test
    void badInput() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Bins.binNumber(-1, 4));
        assertEquals("negative size: -1 bytes", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Bins.binNumber(1, -1));
        assertThrows(IllegalArgumentException.class, () -> Bins.binNumber(1, 17));
        assertThrows(IllegalArgumentException.class, () -> Bins.allocSize(-1, 4));
        assertThrows(IllegalArgumentException.class, () -> Bins.allocSize(63 << 4, 4));
    }
}
