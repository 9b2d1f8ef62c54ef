package dev.arenascope.core.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class SortedLongsTest {
    @Test
    void findsTheFirstOfEqualValuesAndTheEnds() {
        long[] a = {3, 5, 5, 5, 9};
        assertEquals(0, SortedLongs.firstAtOrAfter(a, Long.MIN_VALUE));
        assertEquals(0, SortedLongs.firstAtOrAfter(a, 3));
        assertEquals(1, SortedLongs.firstAtOrAfter(a, 4));
        assertEquals(1, SortedLongs.firstAtOrAfter(a, 5), "the first of the three 5s");
        assertEquals(4, SortedLongs.firstAtOrAfter(a, 6));
        assertEquals(5, SortedLongs.firstAtOrAfter(a, 10), "none: the length");
        assertEquals(0, SortedLongs.firstAtOrAfter(new long[0], 1));
        assertEquals(3, SortedLongs.firstAtOrAfter(a, 2, 3, 9), "none within the range: its end");
        assertEquals(2, SortedLongs.firstAtOrAfter(a, 2, 5, 5));
    }

    @Test
    void agreesWithALinearScan() {
        SplittableRandom r = new SplittableRandom(11);
        for (int round = 0; round < 500; round++) {
            long[] a = new long[r.nextInt(40)];
            long v = 0;
            for (int i = 0; i < a.length; i++) {
                v += r.nextInt(3);
                a[i] = v;
            }
            long key = r.nextLong(-1, v + 2);
            int expected = 0;
            while (expected < a.length && a[expected] < key) {
                expected++;
            }
            assertEquals(expected, SortedLongs.firstAtOrAfter(a, key), "key " + key);
        }
    }
}
