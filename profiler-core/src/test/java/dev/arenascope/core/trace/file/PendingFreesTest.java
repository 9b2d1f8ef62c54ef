package dev.arenascope.core.trace.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.store.TraceStore;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;
import dev.arenascope.testsupport.Fixtures;

/**
 * PyTorch's pending frees ({@code free_requested} before {@code free_completed}) as
 * {@link EventKind#FREE_REQUESTED} events: the count and the bytes pending at each instant are the
 * snapshot's (figures computed from the pickles independently, in {@code fixtures/torch/README.md}),
 * the gauges do not move, and the events survive {@code .astrace} and {@code .jsonl}.
 */
class PendingFreesTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"cs336-a2-magma27.pickle,1721,271,8157364400,1492000,100663296,13927831556",
            "cs336-a2-bcrafton.pickle,2162,160,807703040,37660000,154389504,3853700352"})
    void pendingFreesAreTheSnapshotsAndSurviveTheFormats(String file, long requested, long instants, long bytesOverInstants,
                                                         long largestAtNs, long largestBytes, long peak) throws Exception {
        EventStore store = new EventStore();
        TorchSnapshotToTrace.convert(Fixtures.torchDir().resolve(file), store);
        check(store, requested, instants, bytesOverInstants, largestAtNs, largestBytes, peak);

        Path a = dir.resolve("t.astrace");
        store.replayTo(new AstraceWriter(a));
        LoadedTrace fromAstrace = AstraceReader.load(a);
        assertFalse(fromAstrace.report().damaged(), fromAstrace.report().summary());
        TraceAssertions.assertSameTrace(store, fromAstrace.store());
        check(fromAstrace.store(), requested, instants, bytesOverInstants, largestAtNs, largestBytes, peak);

        Path j = dir.resolve("t.jsonl");
        store.replayTo(new JsonlWriter(j));
        LoadedTrace fromJsonl = JsonlReader.load(j);
        assertFalse(fromJsonl.report().damaged(), fromJsonl.report().summary());
        TraceAssertions.assertSameTrace(store, fromJsonl.store());
        check(fromJsonl.store(), requested, instants, bytesOverInstants, largestAtNs, largestBytes, peak);
    }

    /** Replays the events: blocks whose free was requested and not completed, after every event of each instant. */
    private static void check(TraceStore s, long requested, long instants, long bytesOverInstants, long largestAtNs, long largestBytes,
                              long peak) {
        int memory = s.memories().stream().filter(m -> m.name().equals("cuda:0")).findFirst().orElseThrow().id();
        assertEquals(peak, s.peakUsed(memory), "the peak is unchanged: a pending block is still in use");
        Map<Long, Long> live = new HashMap<>();
        Map<Long, Long> pending = new HashMap<>();
        long seen = 0;
        long pendingInstants = 0;
        long pendingSum = 0;
        long largest = 0;
        long largestAt = -1;
        long n = s.eventCount();
        for (long i = 0; i < n; i++) {
            Event e = s.event(i);
            if (i > 0) {
                assertEquals(s.event(i - 1).used(), e.kind() == EventKind.FREE_REQUESTED ? e.used() : s.event(i - 1).used(),
                        "a requested free moves no gauge (event " + i + ")");
            }
            switch (e.kind()) {
                case ALLOC -> live.put(e.a(), e.b());
                case FREE_REQUESTED -> {
                    seen++;
                    assertEquals(live.get(e.a()), e.b(), "the free is requested for a live block of its size (event " + i + ")");
                    pending.put(e.a(), e.b());
                }
                case FREE -> {
                    live.remove(e.a());
                    pending.remove(e.a());
                }
                default -> { }
            }
            boolean lastOfInstant = i + 1 == n || s.event(i + 1).timeNs() != e.timeNs();
            if (lastOfInstant && !pending.isEmpty()) {
                long bytes = pending.values().stream().mapToLong(Long::longValue).sum();
                pendingInstants++;
                pendingSum += bytes;
                if (bytes > largest) {
                    largest = bytes;
                    largestAt = e.timeNs();
                }
            }
        }
        assertEquals(requested, seen, "free_requested entries");
        assertEquals(instants, pendingInstants, "instants with a pending free");
        assertEquals(bytesOverInstants, pendingSum, "pending bytes summed over those instants");
        assertEquals(largestBytes, largest, "the most bytes pending at once");
        assertEquals(largestAtNs, largestAt, "when");
        assertTrue(pending.isEmpty(), "every requested free completes in these traces");
    }
}
