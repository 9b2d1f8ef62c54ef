package dev.arenascope.core.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** The core's long-keyed map against {@link HashMap} under random puts, gets and removes. */
class LongLongMapTest {

    @Test
    void agreesWithAHashMap() {
        SplittableRandom rnd = new SplittableRandom(19);
        LongLongMap m = new LongLongMap();
        Map<Long, Long> ref = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            // addresses that share low bits (512-byte aligned), as allocators hand them out, and a few negatives
            long key = (rnd.nextInt(5_000) - 100) * 512L;
            Long old;
            switch (rnd.nextInt(3)) {
                case 0 -> {
                    old = ref.put(key, (long) i);
                    assertEquals(old == null ? -7 : old, m.put(key, i, -7));
                }
                case 1 -> {
                    old = ref.remove(key);
                    assertEquals(old == null ? -7 : old, m.remove(key, -7));
                }
                default -> assertEquals(ref.getOrDefault(key, -7L), m.get(key, -7));
            }
            assertEquals(ref.size(), m.size());
            assertEquals(ref.containsKey(key), m.containsKey(key));
        }
        assertArrayEquals(ref.keySet().stream().mapToLong(Long::longValue).sorted().toArray(), m.sortedKeys());
        long[] sum = {0};
        m.forEachValue(v -> sum[0] += v);
        assertEquals(ref.values().stream().mapToLong(Long::longValue).sum(), sum[0]);
        m.clear();
        assertEquals(0, m.size());
        assertEquals(-7, m.get(ref.keySet().iterator().next(), -7));
        m.put(3, 4, -7);
        assertEquals(4, m.get(3, -7));
    }
}
