package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.CollectingSink;
import dev.arenascope.testsupport.Fixtures;

/** PyTorch snapshot import: the real fixtures' stated peaks, and every mapping on a small snapshot. */
class TorchSnapshotToTraceTest {
    static final Path FIXTURES = Fixtures.torchDir();

    /**
     * The small snapshot {@code small-snapshot-pN.pickle}, written by CPython's {@code pickle.dumps(small, protocol=N)} for N = 2, 4, 5:
     * device 0 has a 4096-byte segment at 1000 whose blocks at 1000 (512 bytes, active_allocated, frame
     * {@code f a.py:3}) and 2536 (256, active_pending_free) are live, and a trace (time_us from 1000010,
     * 10 us apart) of alloc 1512/1024, alloc 3000/100, free_requested 1512, free_completed 1512,
     * free_completed 3000, oom of 2^40 bytes with device_free 77, segment_alloc 5000/8192, alloc 5000/4096,
     * free_completed 1000, segment_free 5000; device 1 has a 2048-byte segment at 9000 (stream 7) and a
     * trace without time_us: alloc 9000/64 and an unknown action 'mystery'.
     */
    static byte[] small(int protocol) {
        return PickleReaderTest.resource("small-snapshot-p" + protocol + ".pickle");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"cs336-a2-magma27.pickle,13927831556,14180941824,5163", "cs336-a2-bcrafton.pickle,3853700352,4238344192,6486"})
    void realSnapshotsImportWithTheirStatedPeaks(String file, long peakLive, long reserved, long entries) throws Exception {
        Path in = FIXTURES.resolve(file);
        assertTrue(Files.exists(in), "fixture missing: " + in + "");
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(in, sink);
        MemoryInfo m = sink.memory("cuda:0");
        assertEquals(MemoryKind.SEGMENTED, m.kind());
        assertEquals("cuda:0", m.device());
        assertEquals(1, sink.memories.size());
        assertEquals(peakLive, sink.peakUsed(m.id()), "peak live bytes on device 0");
        assertEquals(reserved, sink.peakAux(m.id()), "reserved bytes (no segment entries in these traces)");
        assertEquals(entries, r.entries());
        assertTrue(sink.closed);
        // live from alloc until free_completed: every trace alloc has its free, so the end equals the start
        List<Event> ev = sink.eventsOf(m.id());
        int initial = (int) (countReserves(ev) + r.initialBlocks());
        assertTrue(r.initialBlocks() > 0);
        assertTrue(ev.subList(0, initial).stream().allMatch(e -> e.timeNs() == 0), "the state before the trace comes first");
        assertEquals(ev.get(initial - 1).used(), ev.getLast().used(), "every alloc of the trace has its free_completed");
        long prev = 0;
        for (Event e : ev) {
            assertTrue(e.timeNs() >= prev, "time never goes back");
            prev = e.timeNs();
        }
        // stack frames kept per allocation of the trace (magma27 has 655 allocations with frames, 1066 without)
        long withFrames = ev.subList(initial, ev.size()).stream().filter(e -> e.kind() == EventKind.ALLOC && e.site() >= 0).count();
        assertEquals(file.contains("magma27") ? 655 : 2162, withFrames);
        assertTrue(ev.stream().filter(e -> e.site() >= 0).flatMap(e -> sink.sites.frames(e.site()).stream())
                .anyMatch(f -> f.file().endsWith("benchmarking_script.py") && f.line() > 0 && !f.internal()));
        assertTrue(prev > 1_000_000, "times come from time_us: the trace spans " + prev + " ns");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"cs336-a2-magma27.pickle,13927831556,14180941824", "cs336-a2-bcrafton.pickle,3853700352,4238344192"})
    void theStoreAnswersTheStatedPeaks(String file, long peakLive, long reserved) throws Exception {
        EventStore store = new EventStore();
        TorchSnapshotToTrace.convert(FIXTURES.resolve(file), store);
        int id = store.memories().stream().filter(m -> m.name().equals("cuda:0")).findFirst().orElseThrow().id();
        assertEquals(peakLive, store.peakUsed(id));
        assertEquals(reserved, store.peakAux(id));
    }

    private static long countReserves(List<Event> ev) {
        return ev.stream().filter(e -> e.kind() == EventKind.RESERVE).count();
    }

    @ParameterizedTest(name = "protocol {0}")
    @ValueSource(ints = {2, 4, 5})
    void mapsEveryActionOfASmallSnapshot(int protocol) throws Exception {
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(small(protocol), "dir/small.pickle", sink);
        assertEquals(new TorchSnapshotToTrace.Result(2, 11, 16, 2, 1), r);
        assertEquals("small.pickle", sink.session.name());
        assertEquals("1", sink.session.attributes().get("skipped_entries"));
        assertEquals(1_000_010_000L, sink.session.startEpochNs());
        assertEquals(List.of("cuda:0", "cuda:1"), sink.memories.stream().map(MemoryInfo::name).toList());
        assertEquals("false", sink.memories.get(0).attributes().get("allocator_settings.expandable_segments"));

        List<String> dev0 = sink.eventsOf(0).stream().map(TorchSnapshotToTraceTest::brief).toList();
        assertEquals(List.of(
                "0 RESERVE 1000 4096 used=0 aux=4096",
                "0 ALLOC 1000 512 used=512 aux=4096",
                "0 ALLOC 2536 256 used=768 aux=4096",
                "0 FREE_REQUESTED 2536 256 used=768 aux=4096", // active_pending_free at the end, no request in the trace
                "0 ALLOC 1512 1024 used=1792 aux=4096",
                "10000 ALLOC 3000 100 used=1892 aux=4096",
                "20000 FREE_REQUESTED 1512 1024 used=1892 aux=4096",
                "30000 FREE 1512 1024 used=868 aux=4096",
                "40000 FREE 3000 100 used=768 aux=4096",
                "50000 OUT_OF_MEMORY 0 1099511627776 used=768 aux=4096",
                "60000 RESERVE 5000 8192 used=768 aux=12288",
                "70000 ALLOC 5000 4096 used=4864 aux=12288",
                "80000 FREE 1000 512 used=4352 aux=12288",
                "90000 UNRESERVE 5000 8192 used=4352 aux=4096"), dev0);
        List<String> dev1 = sink.eventsOf(1).stream().map(TorchSnapshotToTraceTest::brief).toList();
        assertEquals(List.of("0 RESERVE 9000 2048 used=0 aux=2048", "0 ALLOC 9000 64 used=64 aux=2048"), dev1);

        Event oom = sink.eventsOf(0).get(9);
        assertEquals(77, oom.c());
        assertTrue(sink.strings.get(oom.ref()).contains("1099511627776 bytes requested"));
        // the block at 1000 is live at the end yet freed in the trace: before the trace it is the freed block
        assertEquals(-1, sink.eventsOf(0).get(1).site());
        assertEquals(List.of(new StackFrame(sink.sites.frames(sink.eventsOf(0).get(4).site()).getFirst().id(), "g", "b.py", 9, 0)),
                sink.sites.frames(sink.eventsOf(0).get(4).site()));
        assertEquals(-1, sink.eventsOf(0).get(5).site(), "no frames, no site");
        assertEquals("stream 7", sink.threads.get(sink.eventsOf(1).get(0).thread()));
        assertEquals("default stream", sink.threads.get(sink.eventsOf(0).get(0).thread()));
    }

    static String brief(Event e) {
        return e.timeNs() + " " + e.kind() + " " + e.a() + " " + e.b() + " used=" + e.used() + " aux=" + e.aux();
    }

    @Test
    void somethingThatIsNotASnapshotIsNamed() {
        // pickle.dumps([1]) of protocol 2: a list of ints is not a list of segments
        byte[] listOfInt = {(byte) 0x80, 2, ']', 'K', 1, 'a', '.'};
        var e = assertThrows(SnapshotFormatException.class, () -> TorchSnapshotToTrace.convert(listOfInt, "x.pickle", new CollectingSink()));
        assertEquals("x.pickle: segments[0]: expected a dict, found a int", e.getMessage());
        byte[] none = {'N', '.'};
        e = assertThrows(SnapshotFormatException.class, () -> TorchSnapshotToTrace.convert(none, "x.pickle", new CollectingSink()));
        assertEquals("x.pickle: not a PyTorch memory snapshot: the pickle holds a None, not a dict", e.getMessage());
        CollectingSink untouched = new CollectingSink();
        byte[] truncated = Arrays.copyOf(small(4), 700);
        var p = assertThrows(PickleFormatException.class, () -> TorchSnapshotToTrace.convert(truncated, "x.pickle", untouched));
        assertTrue(p.getMessage().startsWith("x.pickle at byte "), p.getMessage());
        assertEquals(null, untouched.session, "nothing reaches the sink before the whole file is checked");
    }
}
