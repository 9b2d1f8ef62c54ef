package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.live.ConnectionStats;
import dev.arenascope.core.live.LiveReceiver;
import dev.arenascope.core.live.LiveSender;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackBounds;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.Await;

/**
 * The JSONL reader's site bounds hold for {@code .astrace} files and the binary live protocol too (issue
 * 29 #7): a stack chain deeper than {@value StackBounds#MAX_STACK_DEPTH} frames, or a frame name longer
 * than {@value StackBounds#MAX_FRAME_TEXT} characters, is refused where it is, and what came before kept.
 */
@Timeout(60)
class SiteBoundsTest {
    @TempDir
    Path dir;

    private static final int CHAIN = StackBounds.MAX_STACK_DEPTH + 200;

    /** A session whose sites are one frame and a chain of {@link #CHAIN} nodes, then a frame named {@code longName}. */
    private static void forged(EventSink sink, String longName) {
        sink.onSession(new SessionInfo("forged", "h", 0, List.of(), Map.of()));
        sink.onMemory(new MemoryInfo(0, "m", MemoryKind.POOL, "virtual", 0, Map.of()));
        sink.onFrame(new StackFrame(0, "f", "f.py", 1, 0));
        for (int i = 0; i < CHAIN; i++) {
            sink.onStack(new StackNode(i, 0, i - 1));
        }
        if (longName != null) {
            sink.onFrame(new StackFrame(1, longName, "g.py", 2, 0));
        }
        oneAllocation(sink);
        sink.onClose();
    }

    /** An event, so that a sender closed at once still connects (a session of metadata alone it may drop). */
    private static void oneAllocation(EventSink sink) {
        EventBatch b = new EventBatch();
        b.add(new Event(1, EventKind.ALLOC, 0, 0, 0, 0, 64, 64, 64, 0, -1, -1));
        sink.onEvents(b);
    }

    @Test
    void anAstraceStackChainDeeperThanTheBoundIsCutThereAndSaid() throws Exception {
        Path p = dir.resolve("deep.astrace");
        forged(new AstraceWriter(p), null);
        EventStore store = new EventStore("deep");
        ReadReport r = AstraceReader.read(p, store);
        assertTrue(r.damaged(), r.summary());
        assertTrue(r.summary().contains("stack node " + StackBounds.MAX_STACK_DEPTH + " is " + (StackBounds.MAX_STACK_DEPTH + 1)
                + " frames deep, more than the " + StackBounds.MAX_STACK_DEPTH), r.summary());
        assertEquals(StackBounds.MAX_STACK_DEPTH, store.sites().nodeCount(), "the nodes within the bound are kept");
    }

    @Test
    void anAstraceFrameNameLongerThanTheBoundIsLeftOutAndSaid() throws Exception {
        Path p = dir.resolve("long.astrace");
        EventSink w = new AstraceWriter(p);
        w.onSession(new SessionInfo("long", "h", 0, List.of(), Map.of()));
        w.onFrame(new StackFrame(0, "f", "f.py", 1, 0));
        w.onFrame(new StackFrame(1, "x".repeat(StackBounds.MAX_FRAME_TEXT + 1), "g.py", 2, 0));
        w.onClose();
        EventStore store = new EventStore("long");
        ReadReport r = AstraceReader.read(p, store);
        assertTrue(r.damaged() && r.summary().contains("frame 1: a function or file name of " + (StackBounds.MAX_FRAME_TEXT + 1)
                + " characters, more than the " + StackBounds.MAX_FRAME_TEXT), r.summary());
        assertEquals(1, store.sites().frameCount());
    }

    @Test
    void aLiveStackChainDeeperThanTheBoundEndsTheConnectionThere() throws Exception {
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), peer -> new EventStore("live"))) {
            LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", receiver.port(), null).withCloseTimeout(Duration.ofSeconds(5)));
            forged(sender, null);
            Await.until("the connection ended", () -> receiver.stats().stream().anyMatch(c -> c.state().ended()));
            ConnectionStats c = receiver.stats().getFirst();
            assertEquals(ConnectionStats.State.CUT, c.state(), c.detail());
            assertTrue(c.detail().contains("at byte ") && c.detail().contains("frames deep, more than the " + StackBounds.MAX_STACK_DEPTH), c.detail());
        }
    }

    @Test
    void aLiveFrameNameLongerThanTheBoundEndsTheConnectionThere() throws Exception {
        try (LiveReceiver receiver = LiveReceiver.start(LiveReceiver.Options.loopback(0), peer -> new EventStore("live"))) {
            LiveSender sender = new LiveSender(LiveSender.Options.of("127.0.0.1", receiver.port(), null).withCloseTimeout(Duration.ofSeconds(5)));
            sender.onSession(new SessionInfo("long", "h", 0, List.of(), Map.of()));
            sender.onMemory(new MemoryInfo(0, "m", MemoryKind.POOL, "virtual", 0, Map.of()));
            sender.onFrame(new StackFrame(0, "y".repeat(StackBounds.MAX_FRAME_TEXT + 1), "f.py", 1, 0));
            oneAllocation(sender);
            sender.onClose();
            Await.until("the connection ended", () -> receiver.stats().stream().anyMatch(c -> c.state().ended()));
            ConnectionStats c = receiver.stats().getFirst();
            assertEquals(ConnectionStats.State.CUT, c.state(), c.detail());
            assertTrue(c.detail().contains("more than the " + StackBounds.MAX_FRAME_TEXT + " a frame may have"), c.detail());
        }
    }
}
