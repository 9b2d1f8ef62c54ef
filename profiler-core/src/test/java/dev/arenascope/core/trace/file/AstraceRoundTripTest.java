package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.record.Session;
import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SitedTrace;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.Await;

class AstraceRoundTripTest {
    @TempDir
    Path dir;

    /** Records a session with two threads, late registrations and a loss-free stream into three sinks. */
    static EventStore record(Path astrace, Path jsonl) throws Exception {
        EventStore live = new EventStore();
        try (Session s = new Session("roundtrip", 1 << 18)) {
            s.addDevice(new DeviceInfo(DeviceKind.VIRTUAL, 0, "virtual", 1L << 30, 1L << 30));
            s.putAttribute("command", "test");
            int arena = s.registerMemory("frame", MemoryKind.ARENA, "virtual", 1 << 20, Map.of("align", "256"));
            s.addSink(live);
            s.addSink(new AstraceWriter(astrace));
            s.addSink(new JsonlWriter(jsonl));
            int name = s.intern("pass");
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int th = t;
                threads.add(Thread.ofPlatform().name("worker-" + t).start(() -> {
                    long used = 0;
                    for (int i = 0; i < 10_000; i++) {
                        int scope = s.nextScopeId();
                        s.publish(EventKind.SCOPE_ENTER, 0, arena, used, 0, -1, used, 0, name, scope);
                        s.publish(EventKind.ALLOC, th, arena, used, 256, 200 + i % 50, used + 256, th * 256L, s.intern("f32[" + (i % 7) + "]"), -1);
                        s.publish(EventKind.POINTER_RESTORE, 0, arena, used, 256, 0, used, 0, -1, -1);
                        s.publish(EventKind.SCOPE_EXIT, 0, arena, used, 0, 0, used, 0, name, scope);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            // registered after events were recorded: travels inside a chunk
            int pool = s.registerMemory("late pool", MemoryKind.POOL, "virtual", 0, Map.of());
            s.publish(EventKind.RESERVE, 0, pool, 1 << 20, 1 << 20, 0, 0, 1 << 20, -1, -1);
            s.publish(EventKind.POOL_REQUEST, Event.FLAG_HIT, pool, 4096, 512, 500, 512, 1 << 20, 3, 77);
            s.publish(EventKind.MARKER, 0, -1, 0, 0, 0, 0, 0, s.intern("done"), -1);
        }
        return live;
    }

    @Test
    void aRecordedSessionSurvivesAstraceAndJsonlLosslessly() throws Exception {
        Path a = dir.resolve("s.astrace");
        Path j = dir.resolve("s.jsonl");
        EventStore live = record(a, j);
        assertEquals(80_003, live.eventCount() + live.lostEvents()); // a slow drain may count losses: kept too
        LoadedTrace fromAstrace = AstraceReader.load(a);
        assertFalse(fromAstrace.report().damaged(), fromAstrace.report().summary());
        TraceAssertions.assertSameTrace(live, fromAstrace.store());
        LoadedTrace fromJsonl = JsonlReader.load(j);
        assertFalse(fromJsonl.report().damaged(), fromJsonl.report().summary());
        TraceAssertions.assertSameTrace(live, fromJsonl.store());
        assertEquals("late pool", fromAstrace.store().memory(1).name());
    }

    @Test
    void storeToFileToStoreIsLosslessAndSmall() throws Exception {
        EventStore src = new EventStore();
        SyntheticTrace.write(3, 500_000, src);
        src.onLoss(5);
        Path f = dir.resolve("big.astrace");
        src.replayTo(new AstraceWriter(f));
        double perEvent = Files.size(f) / 5e5;
        assertTrue(perEvent <= 8, perEvent + " bytes an event on disk");
        LoadedTrace back = AstraceReader.load(f);
        assertFalse(back.report().damaged(), back.report().summary());
        assertEquals(500_000, back.report().expectedEvents());
        TraceAssertions.assertSameTrace(src, back.store());
        // the pull reader sees the same events
        try (AstraceReader r = AstraceReader.open(f)) {
            for (long i = 0; i < 500_000; i += 1) {
                Event e = r.readEvent();
                if (i % 997 == 0) {
                    assertEquals(src.event(i), e);
                }
            }
            assertNull(r.readEvent());
            assertEquals(8, r.chunkOffsets().length);
            assertEquals("frame", r.memory(0).name());
            // seek by time with the footer index
            long t = src.event(300_000).timeNs();
            assertTrue(r.seek(t));
            Event first = r.readEvent();
            assertTrue(first.timeNs() <= t);
            long idx = 4 * 65536; // the chunk holding event 300000 starts at a chunk boundary
            assertEquals(src.event(idx), first);
        }
    }

    static Path synthetic(Path dir, String name, long events) throws Exception {
        Path f = dir.resolve(name);
        SyntheticTrace.write(5, events, new AstraceWriter(f));
        return f;
    }

    @Test
    void versionOneFilesStillLoad() throws Exception {
        // written by the version 1 writer (eleven columns a chunk) before the shape table came:
        // SyntheticTrace.write(42, 3000, new AstraceWriter(file)); this build reads it event for event
        Path v1 = dir.resolve("synthetic-v1.astrace");
        try (var in = AstraceRoundTripTest.class.getResourceAsStream("/astrace/synthetic-v1.astrace")) {
            Files.write(v1, in.readAllBytes());
        }
        assertEquals(1, Files.readAllBytes(v1)[8], "the fixture is a version 1 file");
        EventStore want = new EventStore();
        SyntheticTrace.write(42, 3000, want);
        LoadedTrace got = AstraceReader.load(v1);
        assertFalse(got.report().damaged(), got.report().summary());
        TraceAssertions.assertSameTrace(want, got.store());
        // and what this build writes of it is version 3, read back the same
        Path v3 = dir.resolve("again.astrace");
        got.store().replayTo(new AstraceWriter(v3));
        assertEquals(3, Files.readAllBytes(v3)[8]);
        TraceAssertions.assertSameTrace(want, AstraceReader.load(v3).store());
    }

    @Test
    void versionTwoFilesStillLoad() throws Exception {
        // written by the version 2 writer (shape table, nine columns, no sites) before sites came:
        // SyntheticTrace.write(42, 3000, new AstraceWriter(file)); this build reads it event for event
        Path v2 = dir.resolve("synthetic-v2.astrace");
        try (var in = AstraceRoundTripTest.class.getResourceAsStream("/astrace/synthetic-v2.astrace")) {
            Files.write(v2, in.readAllBytes());
        }
        assertEquals(2, Files.readAllBytes(v2)[8], "the fixture is a version 2 file");
        EventStore want = new EventStore();
        SyntheticTrace.write(42, 3000, want);
        LoadedTrace got = AstraceReader.load(v2);
        assertFalse(got.report().damaged(), got.report().summary());
        TraceAssertions.assertSameTrace(want, got.store());
    }

    @Test
    void allocationSitesFramesAndCategoriesSurviveTheFile() throws Exception {
        EventStore src = SitedTrace.store(3, 200_000); // several chunks
        assertTrue(src.hasSites());
        Path f = dir.resolve("sited.astrace");
        src.replayTo(new AstraceWriter(f));
        LoadedTrace back = AstraceReader.load(f);
        assertFalse(back.report().damaged(), back.report().summary());
        TraceAssertions.assertSameTrace(src, back.store()); // frames, stack nodes, every event's site and category
        assertTrue(back.store().hasSites());
        for (long i = 0; i < src.eventCount(); i += 13) {
            assertEquals(src.stack(src.event(i).site()), back.store().stack(back.store().event(i).site()));
        }
        // chunk by chunk too (what `trace cat` and the streaming readers use): each chunk's frames and
        // stack nodes come before the first event that names them
        long events = 0;
        try (AstraceReader r = AstraceReader.open(f)) {
            for (var c = r.nextChunk(); c != null; c = r.nextChunk()) {
                for (int i = 0; i < c.events().size(); i++, events++) {
                    assertTrue(c.events().site(i) < r.sites().nodeCount(), "event " + events + "'s site announced before it");
                }
            }
            assertEquals(src.stackNodeCount(), r.sites().nodeCount());
        }
        assertEquals(src.eventCount(), events);
    }

    @Test
    void siteRecordsThatBreakTheRulesAreReportedNotThrown() throws Exception {
        // a frame id that skips ahead and a node naming a frame never announced, as a forged or damaged
        // file may hold them: the file still loads, the problems are named, no site is left dangling
        Path f = dir.resolve("bad-sites.astrace");
        AstraceWriter w = new AstraceWriter(f);
        w.onSession(new SessionInfo("s", "h", 0, List.of(), Map.of()));
        w.onMemory(new MemoryInfo(0, "m", MemoryKind.SEGMENTED, "d", 0, Map.of()));
        w.onFrame(new StackFrame(0, "main", "a.py", 1, 0));
        w.onFrame(new StackFrame(5, "skips", "a.py", 2, 0));
        w.onStack(new StackNode(0, 0, -1));
        w.onStack(new StackNode(1, 9, 0));
        EventBatch b = new EventBatch();
        b.add(new Event(1, EventKind.ALLOC, 0, 0, 0, 0, 16, 16, 16, 0, -1, -1, 0, -1));
        b.add(new Event(2, EventKind.ALLOC, 0, 0, 0, 16, 16, 16, 32, 0, -1, -1, 1, -1));
        w.onEvents(b);
        w.onClose();
        LoadedTrace t = AstraceReader.load(f);
        String all = String.join("\n", t.report().problems());
        assertTrue(t.report().damaged(), all);
        assertTrue(all.contains("frame 5 announced before frame 1"), all);
        assertEquals(1, t.store().frameCount());
        for (long i = 0; i < t.store().eventCount(); i++) {
            t.store().stack(t.store().event(i).site()); // resolves (or -1)
        }
    }

    @Test
    void aFileWithoutSitesCostsWhatItDidBefore() throws Exception {
        // chunks in which no event has a site leave the two site columns out: the synthetic stream
        // written now is as small as the version 2 writer made it (within zstd's noise)
        Path f = dir.resolve("plain.astrace");
        Path v2 = dir.resolve("synthetic-v2.astrace");
        try (var in = AstraceRoundTripTest.class.getResourceAsStream("/astrace/synthetic-v2.astrace")) {
            Files.write(v2, in.readAllBytes());
        }
        SyntheticTrace.write(42, 3000, new AstraceWriter(f));
        long a = Files.size(f);
        long b = Files.size(v2);
        assertTrue(Math.abs(a - b) <= b / 50 + 64, "version 3 without sites " + a + " bytes, version 2 " + b);
    }

    @Test
    void aFileCutOffMidWriteLoadsUpToItsLastWholeChunk() throws Exception {
        Path f = synthetic(dir, "cut.astrace", 300_000); // chunks of 65536: 4 whole + 1 partial
        long[] offsets;
        try (AstraceReader r = AstraceReader.open(f)) {
            offsets = r.chunkOffsets();
        }
        assertEquals(5, offsets.length);
        byte[] all = Files.readAllBytes(f);
        for (int k = 1; k < 5; k++) {
            long cut = offsets[k] + 100; // inside chunk k
            Path c = dir.resolve("cut" + k + ".astrace");
            Files.write(c, Arrays.copyOf(all, (int) cut));
            LoadedTrace t = AstraceReader.load(c);
            assertEquals(k * 65536L, t.store().eventCount(), "cut inside chunk " + k);
            assertTrue(t.report().damaged());
            assertTrue(t.report().summary().contains(c.toString()), t.report().summary());
            assertTrue(t.report().summary().contains("recovered " + k * 65536L + " events in " + k + " chunks"), t.report().summary());
        }
        // cut exactly between chunks: whole chunks, and the missing footer is reported
        Path c = dir.resolve("between.astrace");
        Files.write(c, Arrays.copyOf(all, (int) offsets[3]));
        LoadedTrace t = AstraceReader.load(c);
        assertEquals(3 * 65536L, t.store().eventCount());
        assertTrue(t.report().summary().contains("no footer"), t.report().summary());
        // cut inside the header: nothing to trust
        Path h = dir.resolve("header.astrace");
        Files.write(h, Arrays.copyOf(all, 30));
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> AstraceReader.load(h));
        assertTrue(e.getMessage().startsWith(h.toString()), e.getMessage());
    }

    @Test
    void anIdleRecordingThatIsKilledLosesNothing() throws Exception {
        Path f = dir.resolve("idle.astrace");
        AstraceWriter w = new AstraceWriter(f);
        SyntheticTrace.announce(w);
        w.onEvents(new SyntheticTrace(9).next(500));
        // no more events and no close: the writer's ager writes the chunk once it is a second old (its own
        // clock: the test waits, woken by each write to the file, until the file holds the chunk)
        LoadedTrace[] t = {null};
        // what a killed process leaves, copied outside the watched folder (a copy there would wake the watch again)
        Path copy = Files.createDirectories(dir.resolve("copies")).resolve("killed.astrace");
        Await.untilFile("the idle chunk in the file", dir, () -> {
            try {
                if (Files.size(f) == 0) {
                    return false;
                }
                Files.copy(f, copy, StandardCopyOption.REPLACE_EXISTING);
                t[0] = AstraceReader.load(copy);
                return t[0].store().eventCount() == 500;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        LoadedTrace t0 = t[0];
        assertTrue(t0.report().summary().contains("no footer"), t0.report().summary());
        w.onClose();
    }

    @Test
    void aFlippedByteLosesOnlyItsChunk() throws Exception {
        Path f = synthetic(dir, "flip.astrace", 300_000);
        long[] offsets;
        try (AstraceReader r = AstraceReader.open(f)) {
            offsets = r.chunkOffsets();
        }
        byte[] all = Files.readAllBytes(f);
        all[(int) offsets[2] + 500] ^= 0x10;
        Path bad = dir.resolve("flipped.astrace");
        Files.write(bad, all);
        LoadedTrace t = AstraceReader.load(bad);
        assertEquals(300_000 - 65536L, t.store().eventCount());
        assertTrue(t.report().summary().contains("at byte " + offsets[2]), t.report().summary());
        assertTrue(t.report().summary().contains("checksum"), t.report().summary());
        // without its footer the reader finds the next chunk by scanning for a sound frame
        Path noFooter = dir.resolve("flipped-nofooter.astrace");
        Files.write(noFooter, Arrays.copyOf(all, all.length - 20));
        LoadedTrace u = AstraceReader.load(noFooter);
        assertEquals(300_000 - 65536L, u.store().eventCount());
    }

    @Test
    void forgedLengthsAreRefusedWithoutAllocating() throws Exception {
        Path f = synthetic(dir, "forged.astrace", 200_000);
        long[] offsets;
        try (AstraceReader r = AstraceReader.open(f)) {
            offsets = r.chunkOffsets();
        }
        byte[] all = Files.readAllBytes(f);
        int at = (int) offsets[1] + 4; // payload length
        all[at] = (byte) 0xff;
        all[at + 1] = (byte) 0xff;
        all[at + 2] = (byte) 0xff;
        all[at + 3] = (byte) 0x7f;
        Path bad = dir.resolve("forged2.astrace");
        Files.write(bad, all);
        LoadedTrace t = AstraceReader.load(bad);
        assertEquals(200_000 - 65536L, t.store().eventCount());
        assertTrue(t.report().summary().contains("out of range") || t.report().summary().contains("left in the file"), t.report().summary());
        // a header that claims more bytes than the file has
        byte[] h = Files.readAllBytes(f);
        h[12] = (byte) 0xff;
        h[13] = (byte) 0xff;
        h[14] = (byte) 0xff;
        Path bh = dir.resolve("forged-header.astrace");
        Files.write(bh, h);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> AstraceReader.load(bh));
        assertTrue(e.getMessage().contains("header claims"), e.getMessage());
    }

    @Test
    void wrongMagicAndVersionAreNamed() throws Exception {
        Path f = synthetic(dir, "v.astrace", 1000);
        byte[] all = Files.readAllBytes(f);
        byte[] magic = all.clone();
        magic[0] = 'X';
        Path m = dir.resolve("magic.astrace");
        Files.write(m, magic);
        TraceFormatException e = assertThrows(TraceFormatException.class, () -> AstraceReader.load(m));
        assertEquals(m + " at byte 0: not an .astrace file (wrong magic)", e.getMessage());
        byte[] version = all.clone();
        version[8] = 9;
        Path v = dir.resolve("version.astrace");
        Files.write(v, version);
        e = assertThrows(TraceFormatException.class, () -> AstraceReader.load(v));
        assertEquals(v + " at byte 8: unsupported .astrace version 9 (this build reads versions 1 to 3)", e.getMessage());
    }
}
