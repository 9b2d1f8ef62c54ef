package dev.arenascope.core.live;

import java.util.Map;

import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.testsupport.Await;

/**
 * A profiled process for the live tests, run as a child JVM: records {@code events} allocations of
 * 64 bytes each on one pool memory (a = the allocation's ordinal) into a session streamed to
 * {@code port}, pausing {@code pauseEveryEvents} / 1 ms as it goes, then closes the session (goodbye).
 * Prints {@code ready} once streaming and {@code done} at the end.
 *
 * <p>Arguments: name port events pauseEveryEvents [token]
 */
public final class LiveSenderMain {
    public static void main(String[] args) throws Exception {
        String name = args[0];
        int port = Integer.parseInt(args[1]);
        long events = Long.parseLong(args[2]);
        int pauseEvery = Integer.parseInt(args[3]);
        String token = args.length > 4 ? args[4] : null;
        try (Session session = new Session(name)) {
            int mem = session.registerMemory(name + "-pool", MemoryKind.POOL, "virtual", 1L << 40, Map.of("child", name));
            int label = session.intern("block of " + name);
            LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", port, token));
            session.addSink(sender);
            System.out.println("ready");
            System.out.flush();
            for (long i = 0; i < events; i++) {
                session.publish(EventKind.ALLOC, 0, mem, i, 64, 64, (i + 1) * 64, 0, label, -1);
                if (pauseEvery > 0 && i % pauseEvery == pauseEvery - 1) {
                    // paced by the link, not a clock: hand what is published to the sender and wait until its
                    // queue is empty (taken to the socket, or counted as dropped) before publishing more
                    session.flush();
                    Await.until("the sender's queue drained", () -> sender.stats().queuedEvents() == 0);
                }
            }
            session.flush();
        }
        System.out.println("done");
    }
}
