package dev.arenascope.core.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;

/** The ring's two-record events: an allocation with its site and category. */
class SitedRingTest {
    private static final int KIND = EventBatch.pack(EventKind.ALLOC.code(), 0, 0);

    @Test
    void theRingCarriesSitesOnTheirOwnEventsAcrossWrapsAndDrainLimits() {
        ManyToOneEventRing ring = new ManyToOneEventRing(16);
        EventBatch all = new EventBatch();
        int expectedSited = 0;
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < 5; i++) {
                int seq = round * 5 + i;
                boolean ok = seq % 2 == 0 ? ring.offerSited(seq, KIND, 1, seq, 8, 8, 0, 0, -1, -1, seq, seq + 1)
                        : ring.offer(seq, KIND, 1, seq, 8, 8, 0, 0, -1, -1);
                assertTrue(ok);
                expectedSited += seq % 2 == 0 ? 1 : 0;
            }
            int limit = 1 + round % 4; // stop anywhere, also right after a sited event
            while (ring.drainTo(all, limit) > 0) {
                // drain in small steps
            }
        }
        assertEquals(250, all.size());
        int sited = 0;
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.a(i), "order kept");
            if (i % 2 == 0) {
                assertEquals(i, all.site(i));
                assertEquals(i + 1, all.category(i));
                sited++;
            } else {
                assertEquals(-1, all.site(i));
            }
        }
        assertEquals(expectedSited, sited);
        assertEquals(0, ring.lost());
    }

    @Test
    void aSitedEventNeedsTwoRecordsOrIsCountedLost() {
        ManyToOneEventRing ring = new ManyToOneEventRing(16);
        for (int i = 0; i < 15; i++) {
            assertTrue(ring.offer(i, KIND, 1, i, 8, 8, 0, 0, -1, -1));
        }
        assertFalse(ring.offerSited(15, KIND, 1, 15, 8, 8, 0, 0, -1, -1, 3, -1), "one record left: no room for two");
        assertEquals(1, ring.lost());
        assertTrue(ring.offer(15, KIND, 1, 15, 8, 8, 0, 0, -1, -1));
    }
}
