package dev.arenascope.core.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;

/** A sender that cannot deliver waits between attempts and counts every event it could not send. */
@Timeout(60)
class LiveSenderBackoffTest {

    @Test
    void aRefusedHelloIsRetriedAtTheLongestDelayEvenWhileEventsKeepComing() throws Exception {
        var options = new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, "right");
        try (LiveReceiver receiver = LiveReceiver.start(options, peer -> batch -> { });
             Session session = new Session("refused")) {
            LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", receiver.port(), "wrong"));
            session.addSink(sender);
            int memory = session.registerMemory("m", MemoryKind.POOL, "virtual", 0, Map.of());
            long start = System.nanoTime();
            long published = 0;
            // events all along, each handed to the sender at once (each batch wakes the sender thread): attempts
            // must still wait their delay. The bound below is one-sided: a loaded machine makes fewer attempts
            while (System.nanoTime() - start < 1_500_000_000L) {
                session.publish(EventKind.ALLOC, 0, memory, 1, 64, 0, 64, 0, 0, 0);
                published++;
                session.flush();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            int attempts = sender.connectAttempts();
            assertTrue(sender.refused(), sender.stats().toString());
            // 2 s between attempts after a refusal: at most one more than the whole seconds elapsed (a slow
            // machine makes fewer, never more; without the wait it was hundreds)
            assertTrue(attempts >= 1 && attempts <= (int) Math.ceil(seconds / 2.0) + 1, attempts + " attempts in " + seconds + " s");
            session.removeSink(sender);
            LiveSender.Stats st = sender.stats();
            assertEquals(0, st.deliveredEvents());
            assertEquals(published, st.droppedEvents(), "every event not delivered is counted: " + st);
            assertEquals(published, sender.handedEvents());
        }
    }
}
