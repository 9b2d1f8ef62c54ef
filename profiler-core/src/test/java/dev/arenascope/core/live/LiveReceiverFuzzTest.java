package dev.arenascope.core.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

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
import dev.arenascope.core.trace.codec.ChunkCodec;
import dev.arenascope.testsupport.CollectingSink;

/**
 * Bounded fuzzing of the live receiver: mutated hellos and chunk streams (flipped bytes, truncations,
 * forged lengths) over real connections. Every connection must end in a reported state, the sinks
 * that were opened must be closed, and the receiver must still serve a well-behaved sender afterwards.
 */
@Timeout(60)
class LiveReceiverFuzzTest {
    /** Mutated connections sent: a fixed set (the seed's), the same on a fast machine and a loaded one. */
    static final int CONNECTIONS = 300;

    static byte[] validStream(String token) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(LiveProtocol.encodeHello(new LiveProtocol.Hello(LiveProtocol.VERSION, token, 1, 1, 99,
                new SessionInfo("fuzz", "h", 0, List.of(), Map.of("k", "v")))));
        EventBatch batch = new EventBatch();
        for (int i = 0; i < 300; i++) {
            batch.add(new Event(i * 7L, EventKind.ALLOC, 0, 0, 1, i * 64L, 64, 60, (i + 1) * 64L, 0, 0, -1));
        }
        try (ChunkCodec codec = new ChunkCodec()) {
            b.write(LiveProtocol.RECORD_CHUNK);
            codec.writeFrame(b, List.of(new MetaRecord.Memory(new MemoryInfo(0, "m", MemoryKind.POOL, "virtual", 0, Map.of())),
                    new MetaRecord.Str(0, "s"), new MetaRecord.Thread(1, "t")), batch, 0, 100);
            b.write(LiveProtocol.RECORD_CHUNK);
            codec.writeFrame(b, List.of(new MetaRecord.Loss(3)), batch, 100, 300);
        }
        b.write(LiveProtocol.RECORD_GOODBYE);
        return b.toByteArray();
    }

    @Test
    void mutatedStreamsEndInAReportedStateAndTheReceiverKeepsServing() throws Exception {
        AtomicLong opened = new AtomicLong();
        List<CollectingSink> sinks = new CopyOnWriteArrayList<>();
        try (LiveReceiver receiver = LiveReceiver.start(new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, "tok"), peer -> {
            opened.incrementAndGet();
            CollectingSink s = new CollectingSink();
            sinks.add(s);
            return s;
        })) {
            byte[] valid = validStream("tok");
            SplittableRandom rnd = new SplittableRandom(7);
            int sent = 0;
            while (sent < CONNECTIONS) {
                byte[] b = valid.clone();
                int edits = 1 + rnd.nextInt(4);
                for (int k = 0; k < edits; k++) {
                    switch (rnd.nextInt(3)) {
                        case 0 -> b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                        case 1 -> b = Arrays.copyOf(b, rnd.nextInt(b.length));
                        default -> {
                            int at = rnd.nextInt(Math.max(1, b.length - 4));
                            for (int i = 0; i < 4 && at + i < b.length; i++) {
                                b[at + i] = (byte) 0xff;
                            }
                        }
                    }
                    if (b.length == 0) {
                        break;
                    }
                }
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), receiver.port())) {
                    OutputStream o = s.getOutputStream();
                    o.write(b);
                    o.flush();
                    s.shutdownOutput();
                    s.getInputStream().readAllBytes(); // until the receiver is done with it
                } catch (IOException e) {
                    // the receiver may reset a connection it refused; that is fine
                }
                sent++;
            }
            LiveStreamingTest.await("every fuzzed connection ended", () -> receiver.stats().stream().allMatch(c -> c.state().ended()));
            assertEquals(sent, receiver.stats().size());
            assertEquals(opened.get(), sinks.size());
            assertTrue(sinks.stream().allMatch(s -> s.closed), "every opened sink was closed");
            for (ConnectionStats c : receiver.stats()) {
                assertTrue(c.detail() == null || !c.detail().contains("\n"), "one-line detail: " + c.detail());
            }

            // still serving
            try (Session session = new Session("after")) {
                LiveSender live = LiveSender.stream(session, "127.0.0.1:" + receiver.port(), "tok");
                int mem = session.registerMemory("m", MemoryKind.POOL, "virtual", 0, Map.of());
                session.publish(EventKind.ALLOC, 0, mem, 1, 8, 8, 8, 0, -1, -1);
                session.removeSink(live);
                assertEquals(1, live.stats().deliveredEvents());
            }
        }
    }
}
