package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.store.OutOfCoreStore;
import dev.arenascope.core.trace.store.TraceStore;

/**
 * The index saved beside a trace ({@code run.astrace.idx}): used when it is current and sound, rebuilt
 * silently when stale (the trace rewritten), damaged (a flipped byte, truncated, garbage, another
 * version, a forged body with a valid checksum), and never trusted past the fingerprint either: a chunk
 * changed in the trace's middle fails at that chunk, by name.
 */
class AstraceIndexTest {
    @TempDir
    Path dir;

    private Path trace(String name, long events, long seed) throws IOException {
        return GeneratedTrace.write(dir.resolve(name), events, seed, null);
    }

    @Test
    void secondOpenReadsTheIndexAndAnswersTheSame() throws IOException {
        Path t = trace("run.astrace", 200_000, 1);
        AstraceIndex.Opened first = AstraceIndex.open(t, null);
        assertEquals(AstraceIndex.Origin.BUILT, first.origin());
        assertTrue(Files.isRegularFile(AstraceIndex.indexOf(t)), "the index is saved beside the trace");
        assertEquals("run.astrace.idx", AstraceIndex.indexOf(t).getFileName().toString());
        AstraceIndex.Opened second = AstraceIndex.open(t, null);
        assertEquals(AstraceIndex.Origin.INDEX, second.origin(), second.why());
        assertSameAnswers(first.store(), second.store());
        assertEquals(first.report(), second.report());
    }

    @Test
    void staleIndexIsRebuilt() throws IOException {
        Path t = trace("run.astrace", 150_000, 1);
        AstraceIndex.open(t, null);
        GeneratedTrace.write(t, 180_000, 2, null); // the trace rewritten: another run under the same name
        AstraceIndex.Opened o = AstraceIndex.open(t, null);
        assertEquals(AstraceIndex.Origin.BUILT, o.origin());
        assertTrue(o.why().contains("stale"), o.why());
        assertEquals(180_000, o.store().eventCount());
        assertSameAnswers((TraceStore) AstraceReader.loadInMemory(t, null).store(), o.store());
        assertEquals(AstraceIndex.Origin.INDEX, AstraceIndex.open(t, null).origin(), "the rebuilt index serves the next open");
    }

    @Test
    void damagedIndexesAreRebuiltNeverTrusted() throws IOException {
        Path t = trace("run.astrace", 150_000, 3);
        TraceStore truth = AstraceReader.loadInMemory(t, null).store();
        AstraceIndex.open(t, null);
        Path idx = AstraceIndex.indexOf(t);
        byte[] good = Files.readAllBytes(idx);
        SplittableRandom r = new SplittableRandom(9);
        record Damage(String name, UnaryOperator<byte[]> how, String why) {}
        Damage[] damages = {
            new Damage("a flipped byte in the body", b -> flip(b, 40 + r.nextInt(b.length - 40)), "checksum"),
            new Damage("truncated", b -> Arrays.copyOf(b, b.length / 2), "body"),
            new Damage("empty", b -> new byte[0], "index of 0 bytes"),
            new Damage("garbage", b -> randomBytes(r, b.length), "magic"),
            new Damage("another file version", b -> put(b, 8, 99), "version"),
            new Damage("a forged body with a sound checksum", b -> forge(b, r), "damaged"),
            new Damage("a forged count with a sound checksum", b -> forgeCount(b), "damaged"),
        };
        for (Damage d : damages) {
            Files.write(idx, d.how().apply(good.clone()));
            AstraceIndex.Opened o = AstraceIndex.open(t, null);
            assertEquals(AstraceIndex.Origin.BUILT, o.origin(), d.name());
            assertTrue(o.why().contains(d.why()), d.name() + ": " + o.why());
            assertSameAnswers(truth, o.store());
            assertEquals(AstraceIndex.Origin.INDEX, AstraceIndex.open(t, null).origin(), d.name() + ": rewritten sound");
        }
    }

    @Test
    void aChunkChangedUnderTheIndexFailsAtThatChunk() throws IOException {
        Path t = trace("run.astrace", 300_000, 4);
        OutOfCoreStore built = AstraceIndex.open(t, null).store();
        OutOfCoreStore.ChunkRef mid = built.chunks().get(built.chunkCount() / 2);
        byte[] bytes = Files.readAllBytes(t);
        assertTrue(mid.offset() > 64 << 10 && mid.offset() + mid.frameBytes() < bytes.length - (64 << 10),
                "the middle chunk lies outside the fingerprinted head and tail");
        flip(bytes, (int) (mid.offset() + mid.frameBytes() / 2));
        Files.write(t, bytes);
        AstraceIndex.Opened o = AstraceIndex.open(t, null);
        assertEquals(AstraceIndex.Origin.INDEX, o.origin(), "length and fingerprint still hold");
        long firstEvent = 0;
        for (int i = 0; i < built.chunkCount() / 2; i++) {
            firstEvent += built.chunks().get(i).events();
        }
        long at = firstEvent;
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> o.store().event(at));
        assertTrue(e.getMessage().contains("byte " + mid.offset()), e.getMessage());
        assertEquals(built.event(0), o.store().event(0), "the sound chunks still read");
    }

    @Test
    void aDirectoryThatCannotHoldTheIndexOnlyCostsARebuild() throws IOException {
        Path t = trace("run.astrace", 100_000, 5);
        Files.createDirectory(AstraceIndex.indexOf(t)); // a directory where the index would go: it cannot be written
        AstraceIndex.Opened a = AstraceIndex.open(t, null);
        AstraceIndex.Opened b = AstraceIndex.open(t, null);
        assertEquals(AstraceIndex.Origin.BUILT, a.origin());
        assertEquals(AstraceIndex.Origin.BUILT, b.origin());
        assertEquals(100_000, b.store().eventCount());
        try (var left = Files.list(dir)) {
            assertEquals(2, left.count(), "no temporary file is left behind");
        }
    }

    private static void assertSameAnswers(TraceStore a, TraceStore b) {
        assertEquals(a.eventCount(), b.eventCount());
        assertEquals(a.memories(), b.memories());
        assertEquals(a.lostEvents(), b.lostEvents());
        assertEquals(a.stackNodeCount(), b.stackNodeCount());
        long n = a.eventCount();
        for (long i = 0; i < n; i += 997) {
            assertEquals(a.event(i), b.event(i), "event " + i);
        }
        for (MemoryInfo m : a.memories()) {
            assertEquals(a.peakUsed(m.id()), b.peakUsed(m.id()));
            assertEquals(a.eventCount(m.id()), b.eventCount(m.id()));
            assertEquals(a.scopes(m.id(), a.startNs(), a.endNs() + 1, 0), b.scopes(m.id(), b.startNs(), b.endNs() + 1, 0));
            long mid = a.startNs() + (a.endNs() - a.startNs()) / 2;
            GaugeSeries ga = a.gauges(m.id(), mid, mid + 100_000, 300);
            GaugeSeries gb = b.gauges(m.id(), mid, mid + 100_000, 300);
            assertTrue(Arrays.equals(ga.usedMax(), gb.usedMax()) && Arrays.equals(ga.count(), gb.count()), m.name());
        }
    }

    private static byte[] flip(byte[] b, int at) {
        b[at] ^= 0x5A;
        return b;
    }

    private static byte[] put(byte[] b, int at, int v) {
        ByteBuffer.wrap(b).putInt(at, v);
        return b;
    }

    private static byte[] randomBytes(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        return b;
    }

    /** Scrambles the body's second half and restores a sound checksum over it. */
    private static byte[] forge(byte[] b, SplittableRandom r) {
        for (int i = b.length / 2; i < b.length; i++) {
            b[i] = (byte) r.nextInt(256);
        }
        return reseal(b);
    }

    /** Claims a huge event count in the saved report (the body's first long) with a sound checksum. */
    private static byte[] forgeCount(byte[] b) {
        ByteBuffer.wrap(b).putLong(40, Long.MAX_VALUE / 3);
        return reseal(b);
    }

    private static byte[] reseal(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b, 40, b.length - 40);
        ByteBuffer.wrap(b).putInt(36, (int) c.getValue());
        return b;
    }
}
