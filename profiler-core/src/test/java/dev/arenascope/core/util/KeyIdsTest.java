package dev.arenascope.core.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class KeyIdsTest {

    @Test
    void idsAreDenseInTheOrderKeysCameAndEachKeyHasOne() {
        KeyIds t = new KeyIds(2);
        assertEquals(0, t.intern(7, 1));
        assertEquals(1, t.intern(7, 2));
        assertEquals(0, t.intern(7, 1));
        assertEquals(1, t.find(7, 2));
        assertEquals(-1, t.find(8, 2));
        assertEquals(2, t.size());
        assertEquals(7, t.key(1));
        assertEquals(2, t.key2(1));
        for (int i = 0; i < 100_000; i++) { // through many rehashes
            assertEquals(i + 2, t.intern(i, -i - 5));
        }
        for (int i = 0; i < 100_000; i += 997) {
            assertEquals(i + 2, t.find(i, -i - 5));
        }
    }

    @Test
    void appendedIdsAreFoundFirstIdFirstAndTheIndexComesBackAfterItIsDropped() {
        KeyIds t = new KeyIds(1);
        assertEquals(0, t.append(5, 0));
        assertEquals(1, t.append(6, 0));
        assertEquals(2, t.append(5, 0)); // announced again under another id: lookups keep the first
        assertEquals(0, t.find(5));
        assertEquals(3, t.intern(9));
        t.dropIndex();
        assertEquals(1, t.find(6));
        assertEquals(3, t.intern(9));
        assertEquals(4, t.size());
    }

    @Test
    void keysBuiltToShareLowBitsStayFast() {
        // a million keys equal in their low 40 bits (and in pairs of longs that differ only in high bits):
        // slots come from a seeded finalizer over the whole key, so they spread anyway
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            KeyIds t = new KeyIds(2);
            for (long i = 0; i < 1_000_000; i++) {
                t.intern(i << 40, i << 41);
            }
            assertEquals(1_000_000, t.size());
        });
    }

    @Test
    void aKeyAppendedManyTimesKeepsItsFirstIdAndNewKeysStillGetTheirs() {
        // appended ids run far past what a small index's id bits hold: the index grows to take them
        KeyIds t = new KeyIds(2);
        for (int i = 0; i < 5000; i++) {
            t.append(42, 7);
        }
        assertEquals(0, t.find(42, 7));
        assertEquals(5000, t.intern(1, 2));
        for (int i = 0; i < 300_000; i++) {
            assertEquals(5001 + i, t.intern(i, 99));
        }
        assertEquals(0, t.intern(42, 7));
        assertEquals(5000, t.find(1, 2));
        for (int i = 0; i < 300_000; i += 101) {
            assertEquals(5001 + i, t.find(i, 99));
        }
        t.trim();
        t.dropIndex();
        assertEquals(5001 + 777, t.find(777, 99));
        assertEquals(305_001, t.intern(-1, -1)); // appending after a trim grows the last page again
        assertEquals(305_002, t.size());
        assertEquals(-1, t.key(305_001));
    }

    @Test
    void widthIsOneOrTwo() {
        assertThrows(IllegalArgumentException.class, () -> new KeyIds(3));
    }
    @Test
    void aTableSizedAheadGivesTheSameIdsAndFindsEveryKey() {
        KeyIds plain = new KeyIds(2), sized = new KeyIds(2);
        sized.expect(50_000);
        for (int k = 0; k < 50_000; k++) {
            long a = k * 7919L % 30_011, b = k % 3; // some keys repeat
            assertEquals(plain.intern(a, b), sized.intern(a, b));
        }
        assertEquals(plain.size(), sized.size());
        for (int id = 0; id < sized.size(); id++) {
            assertEquals(id, sized.find(sized.key(id), sized.key2(id)));
        }
    }

    @Test
    void sizingAheadAfterKeysWereAddedKeepsThemAndTakesTheSmallestIndexThatFits() {
        KeyIds t = new KeyIds(1);
        for (int k = 0; k < 1_000; k++) {
            t.intern(k * 31L);
        }
        long before = t.bytes();
        t.expect(100_000);
        long grown = 4L * (1 << 18) - 4L * 2048; // 2^18 slots (the least power of two >= 2 x 100,000) in place of 1,000 keys' 2,048
        assertEquals(grown, t.bytes() - before);
        t.expect(10); // never shrinks
        assertEquals(grown, t.bytes() - before);
        for (int k = 0; k < 1_000; k++) {
            assertEquals(k, t.find(k * 31L));
        }
        for (int k = 1_000; k < 100_000; k++) {
            assertEquals(k, t.intern(k * 31L));
        }
        for (int k = 0; k < 100_000; k += 97) {
            assertEquals(k, t.find(k * 31L));
        }
    }
}
