package dev.arenascope.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.arena.ArenaBuilder;
import dev.arenascope.core.arena.DType;
import dev.arenascope.core.arena.ManualMemory;
import dev.arenascope.core.device.VirtualDevice;
import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.pool.MemoryPool;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.file.AstraceWriter;
import dev.arenascope.core.trace.file.CsvWriter;
import dev.arenascope.core.trace.file.JsonlWriter;
import dev.arenascope.core.trace.file.TraceFormats;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;

/** The one-line recording API and sink ownership: every event delivered whatever the close order. */
@Timeout(60)
class RecordingTest {
    @TempDir
    Path dir;

    /** Counts what a receiver's connection delivered. */
    static final class Counting implements EventSink {
        volatile long events;
        volatile boolean closed;

        @Override
        public void onEvents(EventBatch batch) {
            events += batch.size();
        }

        @Override
        public void onClose() {
            closed = true;
        }
    }

    /** Allocates {@code n} tensors in an arena of {@code session}: n allocation events plus its creation. */
    private static void work(Session session, int n) {
        ArenaBuilder b = ManualMemory.builder().numBytes(1 << 20).device(new VirtualDevice(1 << 24)).name("a");
        if (session != null) {
            b.session(session);
        }
        try (ManualMemory arena = b.build()) {
            for (int i = 0; i < n; i++) {
                arena.getTensor(DType.FLOAT32, 16);
            }
        }
    }

    private static long fileEvents(Path file) throws Exception {
        return TraceFormats.load(file).store().eventCount();
    }

    @Test
    void everyCloseOrderOfSessionFileAndLiveDeliversEveryEvent() throws Exception {
        Map<Integer, Counting> received = new ConcurrentHashMap<>();
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), peer -> {
            Counting c = new Counting();
            received.put(peer.connection(), c);
            return c;
        })) {
            // the three closables in each of the six orders
            int[][] orders = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
            long expected = -1;
            for (int[] order : orders) {
                int before = received.size();
                Path file = dir.resolve("order-" + order[0] + order[1] + order[2] + ".astrace");
                Session session = new Session("order");
                AstraceWriter writer = new AstraceWriter(file);
                session.addSink(writer);
                LiveSender live = LiveSender.stream(session, "127.0.0.1:" + receiver.port(), null);
                work(session, 200);
                List<AutoCloseable> closables = List.of(session, writer, live);
                for (int i : order) {
                    closables.get(i).close();
                }
                long inFile = fileEvents(file);
                if (expected < 0) {
                    expected = inFile;
                    assertTrue(expected > 200, "the arena's events: " + expected);
                }
                String what = "closing " + List.of("session", "writer", "live").get(order[0]) + " first";
                assertEquals(expected, inFile, what + ": the file holds every event");
                assertEquals(expected, writer.events(), what + ": the writer counts what it took");
                assertEquals(0, writer.lostEvents(), what);
                LiveSender.Stats st = live.stats();
                assertEquals(expected, st.deliveredEvents(), what + ": " + st);
                assertEquals(0, st.droppedEvents(), what + ": " + st);
                LiveStreamingTestSupport.await(what + ": the receiver's sinks closed", () -> received.size() == before + 1
                        && received.values().stream().allMatch(c -> c.closed));
                long got = received.values().stream().mapToLong(c -> c.events).sum()
                        - (long) before * expected;
                assertEquals(expected, got, what + ": the receiver got every event");
            }
        }
    }

    @Test
    void jsonlAndCsvWritersClosedBeforeTheirSessionKeepEveryEvent() throws Exception {
        Path astrace = dir.resolve("ref.astrace");
        try (Session ref = new Session("ref"); AstraceWriter w = new AstraceWriter(astrace)) {
            ref.addSink(w);
            work(ref, 150);
        }
        long expected = fileEvents(astrace);
        Path jsonl = dir.resolve("w.jsonl");
        Path csv = dir.resolve("w.csv");
        Session session = new Session("text");
        JsonlWriter j = new JsonlWriter(jsonl);
        CsvWriter c = new CsvWriter(csv);
        session.addSink(j);
        session.addSink(c);
        work(session, 150);
        j.close(); // before the session: the session delivers first
        c.close();
        session.close();
        assertEquals(expected, fileEvents(jsonl));
        assertEquals(expected + 1, Files.readAllLines(csv).size(), "a header and one row an event");
        assertEquals(0, j.lostEvents());
        assertEquals(0, c.lostEvents());
    }

    @Test
    void eventsHandedToAClosedWriterAreCountedAsLost() throws Exception {
        AstraceWriter writer = new AstraceWriter(dir.resolve("closed.astrace"));
        writer.onClose();
        EventBatch b = new EventBatch(16);
        b.add(1, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        writer.onEvents(b);
        assertEquals(1, writer.lostEvents());
        assertEquals(0, writer.events());
    }

    @Test
    void allocatorsCreatedInsideARecordingReportToItAndCloseSaysWhatWasWritten() throws Exception {
        Path file = dir.resolve("run.astrace");
        Recording.Result result;
        try (Recording rec = ArenaScope.record(file).quiet()) {
            assertSame(rec.session(), Session.current());
            work(null, 100); // no .session(...): the recording's
            try (MemoryPool pool = new MemoryPool("p", new VirtualDevice(1 << 24))) {
                pool.allocate(1000).close();
            }
            rec.close();
            result = rec.result();
        }
        assertSame(Session.global(), Session.current(), "closed: back to the global session");
        long inFile = fileEvents(file);
        assertTrue(inFile > 100, "events in the file: " + inFile);
        assertEquals(inFile, result.events(), result.toString());
        assertEquals(inFile, result.fileEvents(), result.toString());
        assertEquals(0, result.fileLost());
        assertTrue(result.complete(), result.toString());
        assertTrue(result.toString().contains(inFile + " written, 0 lost"), result.toString());
        TraceStore store = TraceFormats.load(file).store();
        List<String> names = new ArrayList<>();
        store.memories().forEach(m -> names.add(m.name()));
        assertEquals(List.of("a", "p"), names);
    }

    @Test
    void aLiveRecordingWithNoReceiverCountsEveryEventAsLost() throws Exception {
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        Recording rec = ArenaScope.live("127.0.0.1:" + port).quiet();
        work(null, 815);
        rec.close();
        Recording.Result r = rec.result();
        assertTrue(r.events() > 815, r.toString());
        assertEquals(0, r.liveDelivered(), r.toString());
        assertEquals(r.events(), r.liveLost(), "every event not delivered is counted: " + r);
        assertTrue(!r.complete() && r.toString().contains("cannot reach"), r.toString());
    }
}
