package dev.arenascope.core.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import dev.arenascope.testsupport.CollectingSink;

class ForwardingSinkTest {
    @Test
    void everyCallReachesTheWrappedSinkAndAnOverrideSeesTheEvents() {
        CollectingSink direct = new CollectingSink();
        SyntheticTrace.write(3, 5_000, direct);
        CollectingSink behind = new CollectingSink();
        long[] counted = {0};
        SyntheticTrace.write(3, 5_000, new ForwardingSink(behind) {
            @Override
            public void onEvents(EventBatch batch) {
                counted[0] += batch.size();
                super.onEvents(batch);
            }
        });
        assertEquals(5_000, counted[0]);
        assertEquals(direct.session, behind.session);
        assertEquals(direct.memories, behind.memories);
        assertEquals(direct.strings, behind.strings);
        assertEquals(direct.threads, behind.threads);
        assertEquals(direct.events, behind.events);
        assertEquals(direct.lost, behind.lost);
        assertTrue(behind.closed);
    }
}
