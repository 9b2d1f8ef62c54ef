package dev.arenascope.core.trace.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.CollectingSink;

/**
 * Everything a snapshot holds beyond blocks and segments, on snapshots built by the project's own
 * generator ({@link SyntheticSnapshot}): user_metadata scopes, external_annotations markers, private
 * pools as their own memories, allocator_settings, time without {@code time_us}, older {@code history}
 * blocks; and the generator's peaks, which the import must find exactly.
 */
class SnapshotContentsTest {

    private static byte[] generate(SyntheticSnapshot.Spec spec, SyntheticSnapshot.Summary[] summary) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        summary[0] = SyntheticSnapshot.write(out, spec);
        return out.toByteArray();
    }

    @Test
    void scopesMarkersAndPrivatePools() throws Exception {
        SyntheticSnapshot.Summary[] sum = new SyntheticSnapshot.Summary[1];
        byte[] pickle = generate(new SyntheticSnapshot.Spec(11, 3000, 200, 500, 4, 2, true, false), sum);
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(pickle, "gen.pickle", sink);
        assertEquals(sum[0].entries(), r.entries());
        assertEquals(List.of("cuda:0", "cuda:0 pool 1.0", "cuda:0 pool 2.0"), sink.memories.stream().map(MemoryInfo::name).toList());
        assertEquals("1.0", sink.memories.get(1).attributes().get("segment_pool_id"));
        for (int m = 0; m < 3; m++) {
            assertEquals(m == 0 ? sum[0].peakDefault() : sum[0].peakPools()[m - 1], sink.peakUsed(m), "peak of " + sink.memories.get(m).name());
        }
        assertTrue(sum[0].peakPools()[0] > 0 && sum[0].peakPools()[1] > 0);

        // user_metadata: one scope per run of the same phase name, entered and exited in pairs
        List<Event> enters = sink.events.stream().filter(e -> e.kind() == EventKind.SCOPE_ENTER).toList();
        List<Event> exits = sink.events.stream().filter(e -> e.kind() == EventKind.SCOPE_EXIT).toList();
        assertEquals(enters.size(), exits.size());
        assertEquals((sum[0].entries() + 499) / 500, enters.size(), "a phase every 500 entries");
        assertEquals("train/phase0", sink.strings.get(enters.getFirst().ref()));
        assertEquals("train/phase1", sink.strings.get(enters.get(1).ref()));
        // allocations inside a scope carry it in ref2
        Event alloc = sink.events.stream().filter(e -> e.kind() == EventKind.ALLOC && e.timeNs() > enters.get(1).timeNs()).findFirst().orElseThrow();
        assertEquals(enters.get(1).ref2(), alloc.ref2());

        // external_annotations: ProfilerStep START / END markers at their times
        List<String> markers = sink.events.stream().filter(e -> e.kind() == EventKind.MARKER).map(e -> sink.strings.get(e.ref())).toList();
        assertEquals(8, markers.size());
        assertEquals("ProfilerStep#0 START", markers.getFirst());
        assertEquals("ProfilerStep#3 END", markers.getLast());
        assertEquals("8", sink.session.attributes().get("external_annotations"));

        // allocator_settings on the session; stacks and frames counted; time from time_us
        assertEquals("false", sink.session.attributes().get("allocator_settings.expandable_segments"));
        assertEquals("time", sink.session.attributes().get("time_axis"));
        assertEquals("time", sink.memories.getFirst().attributes().get("time_axis"));
        // the stack is the allocation's site, never a text (it would cost a string per distinct stack)
        assertEquals(-1, alloc.ref());
        String stack = sink.sites.frames(alloc.site()).stream().map(f -> f.function() + " at " + f.file() + ":" + f.line() + "\n")
                .collect(Collectors.joining());
        assertTrue(stack.matches("(fn_\\d+_\\d+ at /work/project/src/module_\\d+\\.py:\\d+\\n?){3,12}"), stack);

        // the store agrees (what stats prints)
        EventStore store = new EventStore();
        TorchSnapshotToTrace.convert(pickle, "gen.pickle", store);
        assertEquals(sum[0].peakDefault(), store.peakUsed(0));

        // allocation sites: every allocation has one, its frames (innermost first) as the collecting sink
        // saw them; its category is the user_metadata phase
        assertTrue(store.frameCount() > 0 && store.frameCount() <= SyntheticSnapshot.FILES * 25);
        for (long i = 0; i < store.eventCount(); i++) {
            Event e = store.event(i);
            if (e.kind() == EventKind.ALLOC && e.timeNs() > enters.get(1).timeNs()) {
                assertTrue(e.site() >= 0);
                List<String> lines = store.stack(e.site()).stream().map(f -> f.function() + " at " + f.file() + ":" + f.line()).toList();
                assertTrue(lines.size() >= 3 && lines.size() <= 12, lines.toString());
                assertTrue(store.strings().get(e.category()).startsWith("train/phase"), store.strings().get(e.category()));
                break;
            }
        }
    }

    @Test
    void withoutTimeTheAxisIsEntryOrderAndOlderHistoryBlocksKeepTheirFrames() throws Exception {
        SyntheticSnapshot.Summary[] sum = new SyntheticSnapshot.Summary[1];
        byte[] pickle = generate(new SyntheticSnapshot.Spec(5, 2000, 100, 0, 0, 0, false, true), sum);
        CollectingSink sink = new CollectingSink();
        TorchSnapshotToTrace.Result r = TorchSnapshotToTrace.convert(pickle, "old.pickle", sink);
        assertEquals("entry_order", sink.session.attributes().get("time_axis"));
        assertEquals("entry_order", sink.memories.getFirst().attributes().get("time_axis"));
        assertEquals("entry order (1 us per entry)", sink.session.attributes().get("time"));
        assertEquals(sum[0].peakDefault(), sink.peakUsed(0));
        assertEquals(sum[0].initial(), r.initialBlocks(), "the blocks live before the trace, from the backwards replay");
        // the last event is at entry position (entries - 1) microseconds
        assertEquals((sum[0].entries() - 1) * 1000, sink.events.getLast().timeNs());
        // blocks still live at the end take their frames from history: every allocation has a stack
        Map<Boolean, Long> withFrames = sink.events.stream().filter(e -> e.kind() == EventKind.ALLOC)
                .collect(Collectors.partitioningBy(e -> e.site() >= 0, Collectors.counting()));
        assertEquals(0L, withFrames.get(false));
    }

    @Test
    void theGeneratorIsDeterministic() throws Exception {
        SyntheticSnapshot.Summary[] a = new SyntheticSnapshot.Summary[1];
        SyntheticSnapshot.Summary[] b = new SyntheticSnapshot.Summary[1];
        byte[] x = generate(SyntheticSnapshot.Spec.plain(3, 500), a);
        byte[] y = generate(SyntheticSnapshot.Spec.plain(3, 500), b);
        assertEquals(Arrays.hashCode(x), Arrays.hashCode(y));
        assertEquals(x.length, a[0].bytes());
    }
}
