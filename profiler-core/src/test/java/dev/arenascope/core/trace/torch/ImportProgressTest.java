package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.arenascope.testsupport.CollectingSink;

/** Progress while a snapshot file streams in, and cancelling it by interrupting the reading thread. */
class ImportProgressTest {

    @Test
    void progressCountsBytesUpToTheFileAndInterruptCancels(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gen.pickle");
        SyntheticSnapshot.Summary sum = SyntheticSnapshot.write(file, SyntheticSnapshot.Spec.plain(2, 20_000));
        assertTrue(sum.bytes() > 4 << 20, "a file of several MiB: " + sum.bytes());

        List<Long> seen = new ArrayList<>();
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.convert(file, sink, seen::add);
        assertTrue(seen.size() >= 2, seen.toString()); // reported as each 4 MiB window is read
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), seen.toString());
        }
        assertTrue(seen.getLast() <= Files.size(file), seen.toString());
        assertEquals(sum.peakDefault(), sink.peakUsed(0));

        // a cancel (the window interrupts its loading thread) ends the read: nothing reaches the sink
        CollectingSink untouched = new CollectingSink();
        CancellationException e = assertThrows(CancellationException.class,
                () -> TorchSnapshotToTrace.convert(file, untouched, bytes -> Thread.currentThread().interrupt()));
        assertTrue(Thread.interrupted(), "the interrupt status is kept for the caller");
        assertTrue(e.getMessage().startsWith(file + ": import cancelled after "), e.getMessage());
        assertNull(untouched.session);
    }
}
