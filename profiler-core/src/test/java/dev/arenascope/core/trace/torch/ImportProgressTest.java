package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.core.util.Progress;

/** Progress while a snapshot file streams in, and cancelling it by interrupting the reading thread. */
class ImportProgressTest {

    @Test
    void progressCountsBytesUpToTheFileAndInterruptCancels(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gen.pickle");
        SyntheticSnapshot.Summary sum = SyntheticSnapshot.write(file, SyntheticSnapshot.Spec.plain(2, 20_000));
        assertTrue(sum.bytes() > 4 << 20, "a file of several MiB: " + sum.bytes());

        List<Long> seen = new ArrayList<>();
        List<long[]> emitted = new ArrayList<>();
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result result = TorchSnapshotToTrace.convert(file, sink, (done, total, stage) -> {
            if (Progress.ENTRIES_EMITTED.equals(stage)) {
                emitted.add(new long[] {done, total});
                return;
            }
            assertEquals(Progress.BYTES_READ, stage);
            assertTrue(emitted.isEmpty(), "the file is read before any entry is emitted");
            assertEquals(sum.bytes(), total, "against the file's size");
            seen.add(done);
        });
        assertTrue(seen.size() >= 2, seen.toString()); // reported as each 4 MiB window is read
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), seen.toString());
        }
        assertEquals(Files.size(file), seen.getLast(), "the last report is the file's end: " + seen);
        assertEquals(sum.peakDefault(), sink.peakUsed(0));
        // the second phase, the entries made into events, has a share too: from none to all of them, never back
        assertTrue(emitted.size() >= 3, "reported after each batch of events: " + emitted.size());
        assertEquals(0, emitted.getFirst()[0]);
        for (int i = 0; i < emitted.size(); i++) {
            assertEquals(result.entries(), emitted.get(i)[1], "against all the snapshot's entries");
            assertTrue(i == 0 || emitted.get(i)[0] >= emitted.get(i - 1)[0], "never back");
        }
        assertEquals(result.entries(), emitted.getLast()[0], "all of them at the end");
        assertTrue(result.entries() >= 20_000, "the snapshot's entries: " + result.entries());

        // a cancel (the window interrupts its loading thread) ends the read: nothing reaches the sink
        CollectingSink untouched = new CollectingSink();
        CancellationException e = assertThrows(CancellationException.class,
                () -> TorchSnapshotToTrace.convert(file, untouched, (done, total, stage) -> Thread.currentThread().interrupt()));
        assertTrue(Thread.interrupted(), "the interrupt status is kept for the caller");
        assertTrue(e.getMessage().startsWith(file + ": import cancelled after "), e.getMessage());
        assertNull(untouched.session);
    }

    /** The events and session of an import from a file (streamed through the window) or from memory, or the refusal. */
    private static String outcome(Path file, byte[] inMemory) {
        CollectingSink sink = new CollectingSink(false);
        try {
            if (inMemory == null) {
                TorchSnapshotToTrace.convert(file, sink);
            } else {
                TorchSnapshotToTrace.convert(inMemory, file.toString(), sink);
            }
        } catch (IOException e) {
            return "refused: " + e.getMessage();
        }
        return sink.session + "\n" + sink.memories + "\n" + new TreeMap<>(sink.strings) + "\n" + sink.events;
    }

    @Test
    void aFileStreamedThroughTheWindowImportsAsFromMemory(@TempDir Path dir) throws Exception {
        // the window is topped up ahead of each opcode and the dict fast path stays clear of its end:
        // across several windows, and cut short in the middle of one, the file reads as the whole array does
        Path file = dir.resolve("gen.pickle");
        SyntheticSnapshot.write(file, SyntheticSnapshot.Spec.plain(5, 25_000));
        byte[] whole = Files.readAllBytes(file);
        assertTrue(whole.length > 2 * (4 << 20), "more than two windows: " + whole.length);
        String streamed = outcome(file, null);
        assertTrue(streamed.startsWith("SessionInfo"), streamed.substring(0, Math.min(200, streamed.length())));
        assertEquals(outcome(file, whole), streamed);
        for (int cut : new int[] {(4 << 20) + 1, (4 << 20) + 333, whole.length - 5}) {
            Path part = dir.resolve("cut" + cut + ".pickle");
            Files.write(part, Arrays.copyOf(whole, cut));
            String refused = outcome(part, null);
            assertTrue(refused.startsWith("refused: " + part + " at byte "), refused);
            assertEquals(outcome(part, Files.readAllBytes(part)), refused, "cut at " + cut);
        }
    }
}
