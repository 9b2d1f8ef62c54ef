package dev.arenascope.core.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.MetaRecord;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SitedTrace;
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.Await;
import dev.arenascope.testsupport.CollectingSink;

/** Live streaming between real processes, and the failure modes a receiver must survive. */
@Timeout(60)
class LiveStreamingTest {
    private final Map<Integer, CollectingSink> sinks = new ConcurrentHashMap<>();

    private LiveSinkFactory collect() {
        return peer -> {
            CollectingSink s = new CollectingSink();
            sinks.put(peer.connection(), s);
            return s;
        };
    }

    static void await(String what, BooleanSupplier cond) {
        Await.until(what, cond);
    }

    private static Process child(String name, int port, long events, int pauseEvery) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                LiveSenderMain.class.getName(), name, Integer.toString(port), Long.toString(events), Integer.toString(pauseEvery));
        pb.redirectErrorStream(true);
        return pb.start();
    }

    private static ConnectionStats byName(LiveReceiver r, String name) {
        return r.stats().stream().filter(c -> c.peer() != null && c.peer().session().name().equals(name)).findFirst().orElse(null);
    }

    @Test
    void twoProcessesStreamToOneReceiverAndOneIsKilledMidStream() throws Exception {
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), collect())) {
            long steadyEvents = 200_000;
            Process steady = child("steady", receiver.port(), steadyEvents, 2_000);
            Process doomed = child("doomed", receiver.port(), Long.MAX_VALUE, 500);
            try {
                double[] rate = {0};
                await("both processes connected and streaming", () -> {
                    ConnectionStats d = byName(receiver, "doomed");
                    if (d != null) {
                        rate[0] = Math.max(rate[0], d.eventsPerSecond());
                    }
                    return byName(receiver, "steady") != null && d != null && d.events() > 20_000 && rate[0] > 0;
                });
                assertTrue(rate[0] > 0, "the connection shows its events per second while streaming");
                doomed.destroyForcibly().waitFor();
                String out = new String(steady.getInputStream().readAllBytes());
                assertEquals(0, steady.waitFor(), out);
                await("both connections ended", () -> receiver.stats().stream().allMatch(c -> c.state().ended()));
            } finally {
                steady.destroyForcibly();
                doomed.destroyForcibly();
            }
            List<ConnectionStats> stats = receiver.stats();
            assertEquals(2, stats.size(), stats.toString());

            ConnectionStats s = byName(receiver, "steady");
            assertEquals(ConnectionStats.State.CLOSED, s.state(), s.toString());
            CollectingSink steadySink = sinks.get(s.connection());
            assertEquals(steadyEvents, s.events() + s.lostEvents(), "every event arrived or was counted lost: " + s);
            assertEquals(s.events(), steadySink.events.size());
            assertEquals(s.lostEvents(), steadySink.lost);
            assertTrue(steadySink.closed);
            MemoryInfo m = steadySink.memory("steady-pool");
            assertEquals(MemoryKind.POOL, m.kind());
            assertEquals("steady", m.attributes().get("child"));
            assertEquals("block of steady", steadySink.strings.get(steadySink.events.getFirst().ref()));
            assertOrdinalsIncrease(steadySink.events);
            if (s.lostEvents() == 0) {
                assertEquals(steadyEvents * 64, steadySink.events.getLast().used());
            }

            ConnectionStats d = byName(receiver, "doomed");
            assertTrue(d.state() == ConnectionStats.State.DISCONNECTED || d.state() == ConnectionStats.State.CUT, d.toString());
            CollectingSink doomedSink = sinks.get(d.connection());
            assertTrue(doomedSink.closed, "the dead process's sink was closed");
            assertTrue(d.events() > 20_000, d.toString());
            assertEquals(d.events(), doomedSink.events.size(), "everything complete was kept");
            assertOrdinalsIncrease(doomedSink.events);
            assertNotNull(d.detail());
            assertTrue(d.peer().processId() != ProcessHandle.current().pid());
            assertTrue(d.peer().processId() != s.peer().processId());
        }
    }

    /** The child allocates with a = 0, 1, 2, ...: what arrives is that sequence, with gaps only where events were lost. */
    private static void assertOrdinalsIncrease(List<Event> events) {
        long prev = -1;
        for (Event e : events) {
            assertTrue(e.a() > prev, "ordinal " + e.a() + " after " + prev);
            prev = e.a();
        }
    }

    @Test
    void allocationSitesTravelTheWire() throws Exception {
        ConcurrentHashMap<Integer, EventStore> stores = new ConcurrentHashMap<>();
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), peer -> {
            var s = new EventStore("live");
            stores.put(peer.connection(), s);
            return s;
        })) {
            var src = SitedTrace.store(7, 40_000);
            LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", receiver.port(), null));
            src.replayTo(sender); // ends with onClose: the sender drains and says goodbye
            assertEquals(src.eventCount(), sender.stats().deliveredEvents());
            await("closed", () -> !receiver.stats().isEmpty() && receiver.stats().getFirst().state().ended());
            var got = stores.values().iterator().next();
            assertEquals(src.eventCount(), got.eventCount());
            assertEquals(src.frameCount(), got.frameCount());
            assertEquals(src.stackNodeCount(), got.stackNodeCount());
            for (long i = 0; i < src.eventCount(); i++) {
                assertEquals(src.event(i), got.event(i), "event " + i);
            }
            assertEquals(src.stack(src.event(1).site()), got.stack(got.event(1).site()));
        }
    }

    @Test
    void aVersionTwoSenderIsStillAccepted() throws Exception {
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), collect())) {
            SessionInfo info = new SessionInfo("old", "test", 0, List.of(), Map.of());
            try (Socket sock = new Socket(InetAddress.getLoopbackAddress(), receiver.port())) {
                sock.getOutputStream().write(LiveProtocol.encodeHello(new LiveProtocol.Hello(2, "", 9, 1, 1, info)));
                assertEquals(LiveProtocol.ACCEPTED, LiveProtocol.readAck(sock.getInputStream(), "test").status());
            }
            try (Socket sock = new Socket(InetAddress.getLoopbackAddress(), receiver.port())) {
                sock.getOutputStream().write(LiveProtocol.encodeHello(new LiveProtocol.Hello(1, "", 9, 1, 1, info)));
                LiveProtocol.Ack ack = LiveProtocol.readAck(sock.getInputStream(), "test");
                assertEquals(LiveProtocol.BAD_VERSION, ack.status());
                assertTrue(ack.message().contains("speaks 2 to 3"), ack.message());
            }
        }
    }

    @Test
    void aConnectionCutMidChunkKeepsEveryCompleteChunk() throws Exception {
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), collect());
             ChunkCodec codec = new ChunkCodec()) {
            SessionInfo info = new SessionInfo("raw", "test", 0, List.of(), Map.of());
            MemoryInfo mem = new MemoryInfo(0, "arena", MemoryKind.ARENA, "host", 1 << 20, Map.of());
            Socket sock = new Socket(InetAddress.getLoopbackAddress(), receiver.port());
            OutputStream out = sock.getOutputStream();
            out.write(LiveProtocol.encodeHello(new LiveProtocol.Hello(LiveProtocol.VERSION, "", 7, 1, 1234, info)));
            LiveProtocol.Ack ack = LiveProtocol.readAck(sock.getInputStream(), "test");
            assertEquals(LiveProtocol.ACCEPTED, ack.status());
            EventBatch b = new EventBatch();
            for (int i = 0; i < 1000; i++) {
                b.add(new Event(i * 10L, EventKind.ALLOC, 0, 0, 1, i * 16L, 16, 16, (i + 1) * 16L, 0, -1, -1));
            }
            out.write(LiveProtocol.RECORD_CHUNK);
            codec.writeFrame(out, List.of(new MetaRecord.Memory(mem), new MetaRecord.Thread(1, "main")), b, 0, 600);
            out.write(LiveProtocol.RECORD_CHUNK);
            codec.writeFrame(out, List.of(new MetaRecord.Loss(5)), b, 600, 900);
            byte[] third = codec.encodeFrame(List.of(), b, 900, 1000);
            out.write(LiveProtocol.RECORD_CHUNK);
            out.write(third, 0, third.length / 2);
            out.flush();
            await("two chunks delivered", () -> receiver.stats().getFirst().events() == 900);
            sock.setSoLinger(true, 0); // reset, as a killed process's kernel would
            sock.close();
            await("connection ended", () -> receiver.stats().getFirst().state().ended());
            ConnectionStats c = receiver.stats().getFirst();
            assertEquals(ConnectionStats.State.CUT, c.state(), c.toString());
            assertEquals(900, c.events());
            assertEquals(5, c.lostEvents());
            assertTrue(c.detail().startsWith("live connection 1 from "), c.detail());
            assertTrue(c.detail().contains("byte "), c.detail());
            CollectingSink sink = sinks.get(1);
            assertEquals(900, sink.events.size());
            assertEquals(5, sink.lost);
            assertEquals(900 * 16, sink.events.getLast().used());
            assertTrue(sink.closed);
            assertEquals("raw", sink.session.name());
        }
    }

    @Test
    void anyAddressButLoopbackNeedsATokenAndATokenIsChecked() throws Exception {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new LiveReceiver.Options(InetAddress.getByName("0.0.0.0"), 0, null));
        assertTrue(e.getMessage().contains("requires a token"), e.getMessage());
        try (LiveReceiver receiver = LiveReceiver.start(new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, "s3cret"), collect());
             Session session = new Session("wrong-token")) {
            LiveSender bad = new LiveSender(LiveSender.Options.of("127.0.0.1", receiver.port(), "guess"));
            session.addSink(bad);
            await("refused", () -> bad.stats().lastError() != null && bad.stats().lastError().contains("bad token"));
            // the receiver marks the connection rejected after its answer went out: the sender can read the
            // answer first, so the receiver's side is waited for, not assumed
            await("the connection ended", () -> receiver.stats().getFirst().state().ended());
            assertEquals(ConnectionStats.State.REJECTED, receiver.stats().getFirst().state());
            assertTrue(sinks.isEmpty(), "no sink for a refused peer");
            session.removeSink(bad);
        }
        try (LiveReceiver receiver = LiveReceiver.start(new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, "s3cret"), collect());
             Session session = new Session("right-token")) {
            LiveSender good = new LiveSender(LiveSender.Options.of("127.0.0.1", receiver.port(), "s3cret"));
            session.addSink(good);
            int mem = session.registerMemory("m", MemoryKind.POOL, "virtual", 0, Map.of());
            session.publish(EventKind.ALLOC, 0, mem, 1, 2, 2, 2, 0, -1, -1);
            session.removeSink(good);
            assertEquals(1, good.stats().deliveredEvents());
            await("closed", () -> receiver.stats().getFirst().state().ended());
            assertEquals(ConnectionStats.State.CLOSED, receiver.stats().getFirst().state());
        }
    }

    @Test
    void theSenderDropsAndCountsWhileTheAppIsAwayAndReconnectsWhenItComesBack() throws Exception {
        int port;
        try (var probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        try (Session session = new Session("reconnecting")) {
            LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", port, null).withQueueEvents(1000)
                    .withMaxReconnectDelay(Duration.ofMillis(100)));
            session.addSink(sender);
            int mem = session.registerMemory("pool", MemoryKind.POOL, "virtual", 0, Map.of());
            // no receiver yet: 1000 events wait in the queue, the rest are dropped and counted
            for (int i = 0; i < 5000; i++) {
                session.publish(EventKind.ALLOC, 0, mem, i, 8, 8, 8L * (i + 1), 0, -1, -1);
            }
            session.flush();
            assertEquals(4000, sender.stats().droppedEvents(), sender.stats().toString());
            try (LiveReceiver first = LiveReceiver.start(LiveReceiver.Options.loopback(port), collect())) {
                await("first connection delivered the queue", () -> sender.stats().deliveredEvents() == 1000);
                ConnectionStats c = first.stats().getFirst();
                assertEquals(1000, c.events());
                assertEquals(4000, c.lostEvents(), "the drops are reported on the next link");
                assertEquals(4000, sinks.get(1).lost);
                assertEquals("pool", sinks.get(1).memories.getFirst().name());
            }
            sinks.clear();
            // the app went away; it comes back on the same port
            for (int i = 5000; i < 5100; i++) {
                session.publish(EventKind.ALLOC, 0, mem, i, 8, 8, 8L * (i + 1), 0, -1, -1);
            }
            session.flush();
            try (LiveReceiver second = LiveReceiver.start(LiveReceiver.Options.loopback(port), collect())) {
                await("reconnected", () -> !second.stats().isEmpty() && second.stats().getFirst().state() == ConnectionStats.State.STREAMING);
                for (int i = 5100; i < 5200; i++) {
                    session.publish(EventKind.ALLOC, 0, mem, i, 8, 8, 8L * (i + 1), 0, -1, -1);
                }
                session.flush();
                await("events after the reconnect arrive", () -> sinks.get(1) != null && !sinks.get(1).events.isEmpty()
                        && sinks.get(1).events.getLast().a() == 5199);
                ConnectionStats c = second.stats().getFirst();
                assertTrue(c.peer().senderConnection() >= 2, "the sender counts its reconnects: " + c.peer());
                CollectingSink s = sinks.get(1);
                assertEquals("pool", s.memories.getFirst().name(), "metadata is replayed on a new link");
                assertEquals("reconnecting", s.session.name());
                // every event published after the first link is accounted for: delivered, or lost and counted
                long accounted = s.events.size() + sender.stats().droppedEvents() - 4000;
                assertEquals(200, accounted, sender.stats() + " / " + c);
            }
        }
    }

    @Test
    void aStalledReceiverNeverBlocksTheRecordingSideAndDropsAreCounted() throws Exception {
        CountDownLatch testOver = new CountDownLatch(1);
        try (ServerSocket stalled = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
                try {
                    Socket s = stalled.accept();
                    LiveProtocol.readHello(s.getInputStream(), "stalled");
                    s.getOutputStream().write(LiveProtocol.encodeAck(LiveProtocol.ACCEPTED, "ok"));
                    s.getOutputStream().flush();
                    testOver.await(); // accepts, then never reads again while the test runs
                } catch (Exception ignored) {
                    // the test is over
                }
            });
            LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", stalled.getLocalPort(), null)
                    .withQueueEvents(100_000).withCloseTimeout(Duration.ofMillis(500)));
            sender.onSession(new SessionInfo("stalled", "h", 0, List.of(), Map.of()));
            sender.onMemory(new MemoryInfo(0, "m", MemoryKind.POOL, "virtual", 0, Map.of()));
            EventBatch b = new EventBatch(10_000);
            for (int i = 0; i < 10_000; i++) {
                b.add(new Event(i, EventKind.ALLOC, 0, 0, 1, i, 64, 64, 64L * (i + 1), 0, -1, -1));
            }
            await("connected", () -> sender.stats().connected());
            // the receiver reads nothing until the test is over (the latch): a call that waited for the network
            // would never return, so that every call returns is the proof, whatever the machine's speed
            long offered = 0;
            for (int round = 0; round < 500; round++) { // 5 M events, far more than the socket buffers hold
                sender.onEvents(b);
                offered += b.size();
            }
            LiveSender.Stats st = sender.stats();
            assertTrue(st.droppedEvents() > 0, "the stalled link made the sender drop: " + st);
            assertTrue(st.queuedEvents() <= 100_000, "the queue stays bounded: " + st);
            sender.onClose(); // returns while the receiver still reads nothing: closing gives up on it
            assertEquals(1, testOver.getCount(), "the receiver was stalled throughout");
            LiveSender.Stats end = sender.stats();
            assertEquals(offered, end.deliveredEvents() + end.droppedEvents(),
                    "every event is either delivered or counted as dropped: " + end);
            testOver.countDown();
            acceptor.interrupt();
        }
    }
}
