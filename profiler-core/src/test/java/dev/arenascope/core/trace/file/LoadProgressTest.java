package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

import dev.arenascope.core.trace.SyntheticTrace;
import dev.arenascope.core.trace.torch.SyntheticSnapshot;
import dev.arenascope.core.util.Progress;
import dev.arenascope.testsupport.Fixtures;

/**
 * What a load tells its {@link Progress}, whatever the format: the events read so far after each batch
 * or chunk, rising to the store's count; for a PyTorch snapshot also the bytes of the file parsed,
 * against its size; and a report that throws stops the load with nothing kept.
 */
class LoadProgressTest {
    @TempDir
    Path dir;

    private record Report(long done, long total, String stage) {}

    private static List<Report> load(Path f, List<Report> into) throws Exception {
        LoadedTrace t = TraceFormats.load(f, (done, total, stage) -> into.add(new Report(done, total, stage)));
        List<Report> events = into.stream().filter(r -> r.stage().equals(Progress.EVENTS_READ)).toList();
        assertFalse(events.isEmpty(), f + ": events reported");
        for (int i = 1; i < events.size(); i++) {
            assertTrue(events.get(i).done() > events.get(i - 1).done(), f + ": rising " + events);
        }
        assertEquals(t.store().eventCount(), events.getLast().done(), f + ": up to the store's count");
        assertTrue(events.stream().allMatch(r -> r.total() == -1), f + ": no total for events");
        return into;
    }

    @Test
    void everyFormatReportsTheEventsReadUpToTheStoresCount() throws Exception {
        Path astrace = dir.resolve("t.astrace");
        SyntheticTrace.write(1, 50_000, new AstraceWriter(astrace));
        Path jsonl = dir.resolve("t.jsonl");
        SyntheticTrace.write(1, 20_000, new JsonlWriter(jsonl));
        for (Path f : List.of(astrace, jsonl, Fixtures.torch("cs336-a2-bcrafton.pickle"), Fixtures.torch("cs336-a2-magma27.pickle"))) {
            load(f, new ArrayList<>());
        }
        // a snapshot of several MiB (the parse reports its bytes at most every 1% and at least 1 MiB apart)
        Path gen = dir.resolve("gen.pickle");
        SyntheticSnapshot.write(gen, SyntheticSnapshot.Spec.plain(2, 20_000));
        List<Report> pickle = load(gen, new ArrayList<>());
        long size = Files.size(gen);
        List<Report> bytes = pickle.stream().filter(r -> r.stage().equals(Progress.BYTES_READ)).toList();
        assertTrue(bytes.size() >= 2, "a snapshot's parse reports its bytes: " + bytes);
        assertTrue(bytes.stream().allMatch(r -> r.total() == size && r.done() <= size), bytes.toString());
    }

    @Test
    void aReportThatThrowsStopsTheLoad() throws Exception {
        Path astrace = dir.resolve("t.astrace");
        SyntheticTrace.write(1, 50_000, new AstraceWriter(astrace));
        CancellationException e = assertThrows(CancellationException.class, () -> TraceFormats.load(astrace, (done, total, stage) -> {
            throw new CancellationException("cancelled at " + done);
        }));
        assertTrue(e.getMessage().startsWith("cancelled at "), e.getMessage());
        assertNull(Progress.eventsRead(Progress.NONE), "nothing to tell: no counter on the inner loop");
    }
}
