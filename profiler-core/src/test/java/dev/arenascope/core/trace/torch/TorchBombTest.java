package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.testsupport.CollectingSink;

/**
 * Small pickles that ask for large work (issue 19 #5): each must be refused with one line, quickly,
 * without an OutOfMemoryError, and without anything reaching the sink. The timeouts are hang guards
 * far above what the refusals take, not speed measurements.
 */
class TorchBombTest {
    private static final Duration GUARD = Duration.ofSeconds(60);

    private interface Body {
        void write(PickleWriter w) throws IOException;
    }

    private static byte[] pickle(Body body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PickleWriter w = new PickleWriter(out);
        body.write(w);
        w.stop();
        return out.toByteArray();
    }

    /** A snapshot dict: {@code segments: []}, then what {@code traces} writes as the value of {@code device_traces}. */
    private static byte[] snapshot(Body traces) throws IOException {
        return pickle(w -> {
            w.dict().mark().str("segments").list().str("device_traces");
            traces.write(w);
            w.setItems();
        });
    }

    private static void entry(PickleWriter w, Body frames) throws IOException {
        w.dict().mark().str("action").str("alloc").str("addr").integer(4096).str("size").integer(512).str("time_us").integer(1);
        if (frames != null) {
            w.str("frames");
            frames.write(w);
        }
        w.setItems();
    }

    private static TraceFormatException refused(byte[] pickle) {
        CollectingSink sink = new CollectingSink();
        TraceFormatException e = assertTimeoutPreemptively(GUARD,
                () -> assertThrows(TraceFormatException.class, () -> TorchSnapshotToTrace.convert(pickle, "bomb.pickle", sink)));
        assertTrue(e.getMessage().startsWith("bomb.pickle"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertTrue(e.getMessage().length() < 300, "a short line: " + e.getMessage());
        assertEquals(null, sink.session, "nothing reaches the sink");
        return e;
    }

    @Test
    void memoReferencesCountWhatTheyExpandTo() throws IOException {
        // device_traces = [E] * 4000 with E = [entry] * 4000: 16 M entries from a few tens of KB
        byte[] bomb = snapshot(w -> {
            w.list().mark();
            int e = w.nextMemo();
            w.list().mark();
            int entry = w.nextMemo();
            entry(w, null);
            for (int i = 1; i < 4000; i++) {
                w.get(entry);
            }
            w.appends();
            for (int i = 1; i < 4000; i++) {
                w.get(e);
            }
            w.appends();
        });
        assertTrue(bomb.length < 64 * 1024, bomb.length + " bytes");
        TraceFormatException e = refused(bomb);
        assertTrue(e.getMessage().contains("memo references"), e.getMessage());
        assertTrue(e.getMessage().contains(bomb.length + " bytes"), e.getMessage());
    }

    @Test
    void aRepeatedEntryWithinWhatTheInputHoldsStillImports() throws IOException {
        // 100 references to one entry in one device's trace: honest (2 bytes each), imported as 100 entries
        byte[] ok = snapshot(w -> {
            w.list().list().mark();
            int entry = w.nextMemo();
            entry(w, null);
            for (int i = 1; i < 100; i++) {
                w.get(entry);
            }
            w.appends().append();
        });
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(ok, "ok.pickle", sink);
        assertEquals(100, r.entries());
    }

    @Test
    void aHugeFrameNameIsRefused() throws IOException {
        String name = "x".repeat(1 << 20);
        byte[] bomb = snapshot(w -> {
            w.list().list().mark();
            int frame = -1;
            for (int i = 0; i < 1000; i++) {
                final int[] f = {frame};
                entry(w, fw -> {
                    fw.list().mark();
                    for (int k = 0; k < 50; k++) {
                        if (f[0] < 0) {
                            f[0] = fw.nextMemo();
                            fw.dict().mark().str("name").str(name).str("filename").str("a.py").str("line").integer(1).setItems();
                        } else {
                            fw.get(f[0]);
                        }
                    }
                    fw.appends();
                });
                frame = f[0];
            }
            w.appends().append();
        });
        TraceFormatException e = refused(bomb);
        assertTrue(e.getMessage().contains("'name' of 1048576 characters is longer than the 4096"), e.getMessage());
        assertTrue(e.getMessage().startsWith("bomb.pickle at byte "), e.getMessage());
    }

    @Test
    void aHugeIntegerAsAFrameLineIsRefusedWithoutBecomingText() throws IOException {
        byte[] bomb = snapshot(w -> {
            w.list().list().mark();
            entry(w, fw -> {
                fw.list().mark().dict().mark().str("name").str("f").str("filename").str("a.py").str("line");
                fw.hugeInteger(16 << 20, 0x7f);
                fw.setItems().appends();
            });
            w.appends().append();
        });
        TraceFormatException e = refused(bomb);
        assertTrue(e.getMessage().contains("integer of 16777216 bytes is longer than the " + PickleReader.MAX_INT_BYTES), e.getMessage());
        // a line of a few hundred bits is read as an integer, then refused as a line
        byte[] wide = snapshot(w -> {
            w.list().list().mark();
            entry(w, fw -> {
                fw.list().mark().dict().mark().str("name").str("f").str("filename").str("a.py").str("line");
                fw.hugeInteger(100, 0x11);
                fw.setItems().appends();
            });
            w.appends().append();
        });
        e = refused(wide);
        assertTrue(e.getMessage().contains("'line' is a integer of 797 bits, not a 64-bit integer"), e.getMessage());
    }

    @Test
    void dictKeysSharingOneHashCodeStayFast() throws IOException {
        // keys (i, 31N - 31i): every tuple has the same List.hashCode; 200,000 of them
        int n = 200_000;
        byte[] bomb = pickle(w -> {
            w.dict();
            for (int i = 0; i < n; i++) {
                if (i % 1000 == 0) {
                    if (i > 0) {
                        w.setItems();
                    }
                    w.mark();
                }
                w.integer(i).integer(31L * n - 31L * i).tuple2().integer(i);
            }
            w.setItems();
        });
        Map<?, ?> d = assertTimeoutPreemptively(GUARD, () -> (Map<?, ?>) PickleReader.read(bomb, "keys.pickle"));
        assertEquals(n, d.size());
        assertEquals(12345L, d.get(List.of(12345L, 31L * n - 31L * 12345)));
        // the same keys as a snapshot's allocator_settings: read, then the dict is flattened
        byte[] snap = pickle(w -> {
            w.dict().mark().str("segments").list().str("allocator_settings").dict();
            for (int i = 0; i < n; i++) {
                if (i % 1000 == 0) {
                    if (i > 0) {
                        w.setItems();
                    }
                    w.mark();
                }
                w.integer(i).integer(31L * n - 31L * i).tuple2().integer(i);
            }
            w.setItems().setItems();
        });
        assertTimeoutPreemptively(GUARD, () -> TorchSnapshotToTrace.convert(snap, "keys.pickle", new CollectingSink()));
    }

    @Test
    void stacksOfLongFramesCostTheirDistinctFramesAndNodesNotTheirText() throws IOException {
        // 4000-character frames shared through the memo, every stack a different sequence of 200 of them:
        // as text it would be 4.8 G characters from 0.4 MB; as frames and stack nodes it is 64 frames and
        // at most 1.2 M nodes, and it is read (it was refused while stacks became text)
        String[] names = new String[64];
        for (int i = 0; i < names.length; i++) {
            names[i] = ("f" + i).repeat(2000).substring(0, 4000);
        }
        byte[] bomb = snapshot(w -> {
            int[] memo = new int[names.length];
            SplittableRandom rnd = new SplittableRandom(7);
            w.list().list().mark();
            for (int s = 0; s < 6000; s++) {
                entry(w, fw -> {
                    fw.list().mark();
                    for (int k = 0; k < 200; k++) {
                        int f = rnd.nextInt(names.length);
                        if (memo[f] == 0) {
                            memo[f] = fw.nextMemo() + 1;
                            fw.dict().mark().str("name").str(names[f]).str("filename").str("a.py").str("line").integer(f).setItems();
                        } else {
                            fw.get(memo[f] - 1);
                        }
                    }
                    fw.appends();
                });
                if (s % 500 == 499) {
                    w.appends().mark();
                }
            }
            w.appends().append();
        });
        CollectingSink sink = new CollectingSink();
        assertTimeoutPreemptively(GUARD, () -> TorchSnapshotToTrace.convert(bomb, "text.pickle", sink));
        assertEquals(names.length, sink.sites.frameCount());
        assertTrue(sink.sites.nodeCount() <= 6000 * 200, "nodes " + sink.sites.nodeCount());
        assertEquals(6000, sink.events.stream().filter(e -> e.kind() == EventKind.ALLOC).count());
    }
}
