package dev.arenascope.core.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.testsupport.Await;

/** The session the JUnit extension makes for each test ({@link Session#shortLived}). */
class ShortLivedSessionTest {

    /** Records which threads delivered events and the events' times. */
    private static final class Watching implements EventSink {
        final List<Boolean> virtualDeliveries = new ArrayList<>();
        final List<Long> times = new ArrayList<>();
        final AtomicLong events = new AtomicLong();

        @Override
        public synchronized void onEvents(EventBatch batch) {
            virtualDeliveries.add(Thread.currentThread().isVirtual());
            for (int i = 0; i < batch.size(); i++) {
                times.add(batch.time(i));
            }
            events.addAndGet(batch.size());
        }
    }

    @Test
    void itsDrainDeliversEveryEventOnAVirtualThreadWithExactTimes() {
        Watching sink = new Watching();
        try (Session s = Session.shortLived("a test", 1 << 10)) {
            assertTrue(s.clock().isExact(), "a test's session reads the clock for every event");
            s.addSink(sink);
            long before = s.clock().now();
            for (int i = 0; i < 100; i++) {
                s.publish(EventKind.MARKER, 0, -1, 0, 0, 0, 0, 0, -1, -1);
            }
            long after = s.clock().now();
            // no flush: the drain's own thread delivers them
            Await.until("the drain to deliver 100 events", () -> sink.events.get() == 100);
            synchronized (sink) {
                assertFalse(sink.virtualDeliveries.isEmpty());
                assertTrue(sink.virtualDeliveries.stream().allMatch(v -> v),
                        "deliveries from the drain's own thread, which is virtual: " + sink.virtualDeliveries);
                for (long t : sink.times) {
                    assertTrue(t >= before && t <= after, "an exact time between the calls around the publish: " + t);
                }
            }
        }
        assertEquals(100, sink.events.get(), "nothing more after the close");
    }

    @Test
    void aSessionOfTheDefaultKindDrainsOnAPlatformThread() {
        Watching sink = new Watching();
        try (Session s = new Session("a recording", 1 << 10)) {
            s.addSink(sink);
            s.publish(EventKind.MARKER, 0, -1, 0, 0, 0, 0, 0, -1, -1);
            Await.until("the drain to deliver the event", () -> sink.events.get() == 1);
            synchronized (sink) {
                assertFalse(sink.virtualDeliveries.get(0), "a long recording's drain does not wait for a carrier thread");
            }
        }
    }

    @Test
    void aBufferCapacityThatIsNotAPowerOfTwoIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Session.shortLived("a test", 1000));
        assertTrue(e.getMessage().contains("1000"), e.getMessage());
    }
}
