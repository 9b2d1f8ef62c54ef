package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;

/** A disk that fills mid-recording: exact counts, one message, a file readable to its last whole chunk. */
class AstraceWriterDiskFullTest {
    @TempDir
    Path dir;

    /** A file that refuses to grow past {@code limit} bytes, as a full disk does (what fits of a write is kept). */
    static final class FullDisk extends OutputStream {
        private final OutputStream to;
        private long left;

        FullDisk(Path file, long limit) throws IOException {
            this.to = new FileOutputStream(file.toFile());
            this.left = limit;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            int fits = (int) Math.min(len, left);
            to.write(b, off, fits);
            left -= fits;
            if (fits < len) {
                throw new IOException("No space left on device");
            }
        }

        @Override
        public void close() throws IOException {
            to.close();
        }
    }

    @Test
    void aFullDiskCountsWrittenAndLostAndTheFileReadsToItsLastWholeChunk() throws Exception {
        Path file = dir.resolve("full.astrace");
        AstraceWriter w = new AstraceWriter(file, new FullDisk(file, 3_000_000), 1);
        w.onSession(new SessionInfo("full", "host", 0, List.of(), Map.of()));
        w.onMemory(new MemoryInfo(0, "m", MemoryKind.POOL, "virtual", 0, Map.of()));
        long handed = 0;
        Random rnd = new Random(7);
        EventBatch b = new EventBatch(AstraceWriter.CHUNK_EVENTS);
        for (int round = 0; round < 12; round++) {
            b.clear();
            for (int i = 0; i < AstraceWriter.CHUNK_EVENTS; i++) {
                long t = handed + i;
                // random sizes: chunks that do not compress to nothing
                b.add(t, EventBatch.pack(EventKind.ALLOC.code(), 0, 0), 1, rnd.nextLong(), rnd.nextInt(1 << 20), 0, t, 0, 0, 0);
            }
            w.onEvents(b); // never throws: the failure is counted
            handed += b.size();
        }
        assertTrue(w.writeFailure() != null, "the disk filled");
        long written = w.eventsOnDisk();
        assertTrue(written > 0 && written < handed, "some chunks fit: " + written);
        assertEquals(handed, written + w.lostEvents(), "every event written or counted lost");
        AstraceWriter.WriteFailedException e = assertThrows(AstraceWriter.WriteFailedException.class, w::close);
        assertEquals(written, e.written());
        assertEquals(handed - written, e.lost());
        assertEquals("cannot write " + file + ": No space left on device; " + written + " events written, " + (handed - written)
                + " lost; the file is readable to its last whole chunk", e.getMessage());
        w.close(); // once only

        LoadedTrace t = TraceFormats.load(file);
        assertEquals(written, t.store().eventCount(), "the reader recovers every whole chunk: " + t.report().summary());
    }
}
