package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.SitedTrace;
import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.TraceFormatException;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * Random mutations of valid files (flipped bits, overwritten runs, forged lengths, cuts, insertions,
 * deletions) for a bounded time per reader: every read must end, recover or refuse with a
 * {@link TraceFormatException}, and never throw anything else or run out of memory.
 */
class TraceReaderFuzzTest {
    /** Mutants read per file: a fixed set (the seed's), the same on a fast machine and a loaded one. */
    private static final int RUNS = Integer.getInteger("arenascope.fuzz.runs", 20);

    @TempDir
    Path dir;

    static byte[] mutate(byte[] valid, SplittableRandom r) {
        byte[] b = valid.clone();
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits; e++) {
            if (b.length == 0) {
                break;
            }
            int at = r.nextInt(b.length);
            switch (r.nextInt(7)) {
                case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[at] = (byte) r.nextInt(256);
                case 2 -> { // a run of 0xff: forged lengths and varints
                    int n = Math.min(b.length - at, 1 + r.nextInt(12));
                    Arrays.fill(b, at, at + n, (byte) 0xff);
                }
                case 3 -> b = Arrays.copyOf(b, at); // cut
                case 4 -> { // delete a span
                    int n = Math.min(b.length - at, 1 + r.nextInt(64));
                    byte[] c = new byte[b.length - n];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + n, c, at, b.length - at - n);
                    b = c;
                }
                case 5 -> { // insert junk
                    int n = 1 + r.nextInt(64);
                    byte[] c = new byte[b.length + n];
                    System.arraycopy(b, 0, c, 0, at);
                    for (int i = 0; i < n; i++) {
                        c[at + i] = (byte) r.nextInt(256);
                    }
                    System.arraycopy(b, at, c, at + n, b.length - at);
                    b = c;
                }
                default -> { // a 32-bit little-endian value: a plausible forged length
                    if (at + 4 <= b.length) {
                        int v = r.nextBoolean() ? r.nextInt() : Integer.MAX_VALUE - r.nextInt(16);
                        b[at] = (byte) v;
                        b[at + 1] = (byte) (v >>> 8);
                        b[at + 2] = (byte) (v >>> 16);
                        b[at + 3] = (byte) (v >>> 24);
                    }
                }
            }
        }
        return b;
    }

    interface Reader {
        void read(Path p) throws Exception;
    }

    private int fuzz(Path valid, Reader reader) throws Exception {
        byte[] bytes = Files.readAllBytes(valid);
        SplittableRandom r = new SplittableRandom(bytes.length);
        int runs = 0;
        Path m = dir.resolve("mutant" + valid.getFileName());
        while (runs < RUNS) {
            Files.write(m, mutate(bytes, r));
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                try {
                    reader.read(m);
                } catch (TraceFormatException expected) {
                    assertTrue(expected.getMessage().startsWith(m.toString()), expected.getMessage());
                }
            });
            runs++;
        }
        return runs;
    }

    @Test
    void astraceReaderSurvivesMutations() throws Exception {
        Path f = dir.resolve("f.astrace");
        EventStore src = new EventStore();
        SyntheticTrace.write(1, 6000, src);
        // small chunks, so mutations hit headers, chunk frames, metadata and the footer alike
        AstraceWriter w = new AstraceWriter(f);
        SyntheticTrace.announce(w);
        EventBatch b = new EventBatch();
        src.copyEvents(0, src.eventCount(), b);
        for (int i = 0; i < b.size(); i += 1000) {
            EventBatch part = new EventBatch();
            for (int k = i; k < Math.min(b.size(), i + 1000); k++) {
                part.addFrom(b, k);
            }
            w.onEvents(part);
            w.flush();
        }
        w.onClose();
        int runs = fuzz(f, p -> {
            LoadedTrace t = AstraceReader.load(p);
            t.store().gauges(0, t.store().startNs(), t.store().endNs() + 1, 50);
            try (AstraceReader r = AstraceReader.open(p)) {
                while (r.readEvent() != null) {
                    // drain
                }
            }
        });
        assertEquals(RUNS, runs);
    }

    @Test
    void astraceReaderSurvivesMutationsOfSiteRecords() throws Exception {
        // format 3: frame and stack-node records (in the header and in chunks) and the site columns
        Path f = dir.resolve("sites.astrace");
        EventStore src = SitedTrace.store(5, 6000);
        AstraceWriter w = new AstraceWriter(f);
        w.onSession(src.session());
        src.memories().forEach(w::onMemory);
        src.strings().forEach(w::onString);
        src.threads().forEach(w::onThread);
        w.flush(); // the header holds no sites: they travel in the first chunk's metadata
        for (int i = 0; i < src.frameCount(); i++) {
            w.onFrame(src.frame(i));
        }
        for (int i = 0; i < src.stackNodeCount(); i++) {
            w.onStack(src.stackNode(i));
        }
        EventBatch b = new EventBatch();
        src.copyEvents(0, src.eventCount(), b);
        for (int i = 0; i < b.size(); i += 1000) {
            EventBatch part = new EventBatch();
            for (int k = i; k < Math.min(b.size(), i + 1000); k++) {
                part.addFrom(b, k);
            }
            w.onEvents(part);
            w.flush();
        }
        w.onClose();
        assertEquals(src.stackNodeCount(), AstraceReader.load(f).store().stackNodeCount(), "the valid file reads whole");
        int runs = fuzz(f, p -> {
            LoadedTrace t = AstraceReader.load(p);
            TraceStore got = t.store();
            for (long i = 0; i < got.eventCount(); i++) {
                got.stack(got.event(i).site()); // every site the store kept resolves
            }
            try (AstraceReader r = AstraceReader.open(p)) {
                while (r.readEvent() != null) {
                    // drain
                }
            }
        });
        assertEquals(RUNS, runs);
    }

    @Test
    void jsonlReaderSurvivesMutationsOfSiteRecords() throws Exception {
        Path f = dir.resolve("sites.jsonl");
        SitedTrace.store(5, 1500).replayTo(new JsonlWriter(f));
        int runs = fuzz(f, p -> {
            EventStore into = new EventStore(); // the store refuses what breaks the site rules: the reader must not pass it on
            ReadReport whole = JsonlReader.read(p, into);
            assertEquals(whole, JsonlReader.read(p, new EventStore(), 4093, 2));
            for (long i = 0; i < into.eventCount(); i++) {
                into.stack(into.event(i).site()); // every site the store kept resolves
            }
        });
        assertEquals(RUNS, runs);
    }

    @Test
    void jsonlReaderSurvivesMutations() throws Exception {
        Path f = dir.resolve("f.jsonl");
        EventStore src = new EventStore();
        SyntheticTrace.write(1, 3000, src);
        src.replayTo(new JsonlWriter(f));
        EventSink nothing = new EventSink() {
            @Override
            public void onEvents(EventBatch batch) {
            }
        };
        int runs = fuzz(f, p -> {
            ReadReport whole = JsonlReader.read(p, nothing);
            // the same file cut into small chunks parsed on threads reads the same, line for line
            assertEquals(whole, JsonlReader.read(p, nothing, 4093, 2));
        });
        assertEquals(RUNS, runs);
    }
}
