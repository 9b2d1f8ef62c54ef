package dev.arenascope.core.trace.perfetto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import dev.arenascope.core.trace.Event;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.GaugeSeries;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.ScopeInterval;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.TraceView;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.core.trace.torch.TorchSnapshotToTrace;
import dev.arenascope.testsupport.Fixtures;

/** The Perfetto export parsed back and checked against the Trace Event Format, field by field. */
class PerfettoJsonWriterTest {

    /** Checks every rule of the format this exporter relies on and returns the events. */
    static List<JsonNode> validate(byte[] json) throws Exception {
        JsonNode root = new ObjectMapper().readTree(json);
        assertTrue(root.isObject(), "JSON object form");
        JsonNode events = root.get("traceEvents");
        assertTrue(events != null && events.isArray(), "traceEvents array");
        Set<Integer> namedPids = new HashSet<>();
        Set<Long> namedThreads = new HashSet<>();
        Map<String, Double> lastTs = new HashMap<>();
        Map<Long, ArrayDeque<String>> open = new HashMap<>();
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : events) {
            out.add(e);
            assertTrue(e.get("name").isTextual(), "name is a string: " + e);
            String ph = e.get("ph").asText();
            assertTrue(e.get("pid").isInt(), "pid is an integer: " + e);
            int pid = e.get("pid").asInt();
            if (ph.equals("M")) {
                assertTrue(Set.of("process_name", "process_sort_index", "thread_name").contains(e.get("name").asText()), e.toString());
                JsonNode args = e.get("args");
                assertTrue(args.isObject());
                switch (e.get("name").asText()) {
                    case "process_name" -> {
                        assertTrue(args.get("name").isTextual());
                        namedPids.add(pid);
                    }
                    case "thread_name" -> {
                        assertTrue(args.get("name").isTextual());
                        assertTrue(e.get("tid").isInt());
                        namedThreads.add((long) pid << 32 | e.get("tid").asInt());
                    }
                    default -> assertTrue(args.get("sort_index").isInt());
                }
                continue;
            }
            assertTrue(namedPids.contains(pid), "process " + pid + " is named before its events: " + e);
            assertTrue(e.get("ts").isNumber(), "ts is a number: " + e);
            assertTrue(e.get("tid").isInt(), "tid is an integer: " + e);
            double ts = e.get("ts").asDouble();
            int tid = e.get("tid").asInt();
            String track = switch (ph) {
                case "C" -> pid + "/C/" + e.get("name").asText();
                case "B", "E" -> pid + "/" + tid;
                case "i" -> pid + "/i/" + tid;
                default -> fail("unexpected phase " + ph + ": " + e);
            };
            Double prev = lastTs.put(track, ts);
            assertTrue(prev == null || prev <= ts, "ts never decreases on track " + track + ": " + prev + " then " + ts);
            switch (ph) {
                case "C" -> {
                    JsonNode args = e.get("args");
                    assertTrue(args.isObject() && args.size() > 0, "counter has args: " + e);
                    args.fields().forEachRemaining(f -> assertTrue(f.getValue().isNumber(), "counter args are numbers: " + e));
                }
                case "i" -> assertTrue(Set.of("g", "p", "t").contains(e.get("s").asText()), "instant scope: " + e);
                case "B" -> {
                    assertTrue(namedThreads.contains((long) pid << 32 | tid), "thread named before its slices: " + e);
                    open.computeIfAbsent((long) pid << 32 | tid, k -> new ArrayDeque<>()).push(e.get("name").asText());
                }
                case "E" -> {
                    ArrayDeque<String> st = open.get((long) pid << 32 | tid);
                    assertTrue(st != null && !st.isEmpty(), "E without B: " + e);
                    assertEquals(st.pop(), e.get("name").asText(), "E closes the innermost B");
                }
                default -> { }
            }
        }
        open.values().forEach(st -> assertTrue(st.isEmpty(), "every B has its E"));
        return out;
    }

    private static final MemoryInfo ARENA = new MemoryInfo(0, "frame", MemoryKind.ARENA, "host", 1 << 20, Map.of());
    private static final MemoryInfo POOL = new MemoryInfo(1, "pool", MemoryKind.POOL, "virtual", 0, Map.of());

    private static void add(EventBatch b, long t, EventKind k, int mem, int thread, long a, long bb, long c, long used, long aux, int ref, int ref2) {
        b.add(t, EventBatch.pack(k.code(), 0, mem), thread, a, bb, c, used, aux, ref, ref2);
    }

    @Test
    void writesCountersSlicesInstantsAndMetadataByTheFormat() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PerfettoJsonWriter w = new PerfettoJsonWriter(bytes);
        w.onSession(new SessionInfo("demo", "host", 0, List.of(), Map.of()));
        w.onMemory(ARENA);
        w.onMemory(POOL);
        w.onThread(1, "main");
        w.onThread(2, "worker \"2\"");
        w.onString(0, "frame");
        w.onString(1, "attention");
        w.onString(2, "tokens");
        w.onString(3, "checkpoint");
        w.onString(4, "arena full");
        EventBatch b = new EventBatch();
        add(b, 1_000, EventKind.SCOPE_ENTER, 0, 1, 0, 0, -1, 0, 0, 0, 10);
        add(b, 2_000, EventKind.ALLOC, 0, 1, 0, 256, 256, 256, 0, -1, -1);
        add(b, 2_500, EventKind.SCOPE_ENTER, 0, 1, 256, 0, 10, 256, 0, 1, 11);
        add(b, 2_600, EventKind.SCOPE_PARAM, 0, 1, 4096, 0, 0, 256, 0, 2, 11);
        add(b, 3_000, EventKind.ALLOC, 0, 1, 256, 1024, 1000, 1280, 0, -1, -1);
        add(b, 3_001, EventKind.RESERVE, 1, 2, 77, 4096, 0, 0, 4096, -1, -1);
        add(b, 3_002, EventKind.POOL_REQUEST, 1, 2, 77, 512, 500, 512, 4096, 3, 5);
        add(b, 2_900, EventKind.POOL_RELEASE, 1, 2, 77, 512, 0, 0, 4096, 3, 0); // arrives late: clamped
        add(b, 3_500, EventKind.OUT_OF_MEMORY, 0, 1, 0, 1 << 30, 0, 1280, 0, 4, -1);
        add(b, 4_000, EventKind.POINTER_RESTORE, 0, 1, 256, 1024, 0, 256, 0, -1, -1);
        add(b, 4_000, EventKind.SCOPE_EXIT, 0, 1, 256, 0, 0, 256, 0, 1, 11);
        add(b, 4_100, EventKind.MARKER, -1, 1, 0, 0, 0, 0, 0, 3, -1);
        add(b, 4_200, EventKind.SCOPE_ENTER, 0, 2, 256, 0, -1, 256, 0, 1, 12); // never exits
        w.onEvents(b);
        b.clear();
        add(b, 5_000, EventKind.SCOPE_EXIT, 0, 1, 0, 0, 0, 0, 0, 0, 10);
        w.onEvents(b);
        w.onLoss(3);
        w.onClose();

        List<JsonNode> ev = validate(bytes.toByteArray());
        JsonNode root = new ObjectMapper().readTree(bytes.toByteArray());
        assertEquals(3, root.get("otherData").get("lost_events").asInt());
        // processes: the session and one per memory
        assertEquals(List.of("session demo", "frame (arena, host)", "pool (pool, virtual)"), ev.stream()
                .filter(e -> e.get("name").asText().equals("process_name")).map(e -> e.get("args").get("name").asText()).toList());
        assertTrue(ev.stream().anyMatch(e -> e.get("name").asText().equals("thread_name") && e.get("args").get("name").asText().equals("worker \"2\"")));
        // the arena's bytes in use, changes only, microseconds
        List<String> used = ev.stream().filter(e -> e.get("ph").asText().equals("C") && e.get("pid").asInt() == 2
                && e.get("name").asText().equals("bytes in use")).map(e -> e.get("ts").asText() + "=" + e.get("args").get("bytes").asLong()).toList();
        assertEquals(List.of("1.0=0", "2.0=256", "3.0=1280", "4.0=256", "5.0=0"), used);
        // the pool's reserved bytes, and the late release written at the track's last time
        List<String> pool = ev.stream().filter(e -> e.get("ph").asText().equals("C") && e.get("pid").asInt() == 3)
                .map(e -> e.get("name").asText() + "@" + e.get("ts").asText() + "=" + e.get("args").get("bytes").asLong()).toList();
        assertEquals(List.of("bytes in use@3.001=0", "bytes reserved@3.001=4096", "bytes in use@3.002=512", "bytes in use@3.002=0"), pool);
        // slices: frame > attention with its parameter at its end, and the unclosed one closed at the end
        List<String> slices = ev.stream().filter(e -> Set.of("B", "E").contains(e.get("ph").asText()))
                .map(e -> e.get("ph").asText() + " " + e.get("name").asText() + " " + e.get("tid").asInt() + " " + e.get("ts").asText()).toList();
        assertEquals(List.of("B frame 1 1.0", "B attention 1 2.5", "E attention 1 4.0", "B attention 2 4.2", "E frame 1 5.0", "E attention 2 5.0"), slices);
        JsonNode attentionEnd = ev.stream().filter(e -> e.get("ph").asText().equals("E") && e.get("tid").asInt() == 1
                && e.get("name").asText().equals("attention")).findFirst().orElseThrow();
        assertEquals(4096, attentionEnd.get("args").get("tokens").asLong());
        // instants
        JsonNode oom = ev.stream().filter(e -> e.get("name").asText().equals("out of memory")).findFirst().orElseThrow();
        assertEquals("p", oom.get("s").asText());
        assertEquals(2, oom.get("pid").asInt());
        assertEquals("arena full", oom.get("args").get("message").asText());
        assertEquals(1 << 30, oom.get("args").get("requested_bytes").asLong());
        assertTrue(ev.stream().anyMatch(e -> e.get("name").asText().equals("checkpoint") && e.get("s").asText().equals("g")));
        assertTrue(ev.stream().anyMatch(e -> e.get("name").asText().equals("events lost") && e.get("args").get("count").asInt() == 3));
    }

    @Test
    void timestampsKeepNanosecondsAsMicrosecondDecimals() {
        assertEquals("0.000", PerfettoJsonWriter.micros(0));
        assertEquals("0.001", PerfettoJsonWriter.micros(1));
        assertEquals("1.050", PerfettoJsonWriter.micros(1050));
        assertEquals("123456789.012", PerfettoJsonWriter.micros(123_456_789_012L));
    }

    @Test
    void aRealPyTorchImportExportsByTheFormat() throws Exception {
        Path in = Fixtures.torchDir().resolve("cs336-a2-magma27.pickle");
        assertTrue(Files.exists(in), "fixture missing: " + in);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TorchSnapshotToTrace.convert(in, new PerfettoJsonWriter(bytes));
        List<JsonNode> ev = validate(bytes.toByteArray());
        long peak = ev.stream().filter(e -> e.get("ph").asText().equals("C") && e.get("name").asText().equals("bytes in use"))
                .mapToLong(e -> e.get("args").get("bytes").asLong()).max().orElseThrow();
        assertEquals(13_927_831_556L, peak, "the counter track reaches the fixture's peak");
        List<Long> reserved = ev.stream().filter(e -> e.get("ph").asText().equals("C") && e.get("name").asText().equals("bytes reserved"))
                .map(e -> e.get("args").get("bytes").asLong()).toList();
        assertEquals(14_180_941_824L, reserved.getLast(), "the segments reserved before the trace, all at its start");
        assertEquals(14_180_941_824L, reserved.stream().mapToLong(Long::longValue).max().orElseThrow());
        // each allocation with a stack is an instant whose args hold it, innermost frame first
        List<JsonNode> allocs = ev.stream().filter(e -> e.get("name").asText().equals("alloc")).toList();
        assertTrue(allocs.size() >= 655, "the trace's 655 allocations with frames (and blocks live at its start that have some): "
                + allocs.size());
        JsonNode a = allocs.getLast().get("args");
        assertTrue(a.get("bytes").asLong() > 0);
        assertTrue(a.get("stack").asText().lines().findFirst().orElseThrow().contains(".py:"), a.toString());
    }

    @Test
    void aStoreExportsTheSameAsTheStreamItHeld() throws Exception {
        Path in = Fixtures.torchDir().resolve("cs336-a2-bcrafton.pickle");
        ByteArrayOutputStream direct = new ByteArrayOutputStream();
        TorchSnapshotToTrace.convert(in, new PerfettoJsonWriter(direct));
        EventStore store = new EventStore();
        TorchSnapshotToTrace.convert(in, store);
        ByteArrayOutputStream viaStore = new ByteArrayOutputStream();
        TraceViewToPerfetto.convert(store, viaStore);
        ByteArrayOutputStream viaView = new ByteArrayOutputStream();
        TraceViewToPerfetto.convert(onlyTheView(store), viaView);
        List<JsonNode> a = validate(direct.toByteArray());
        List<JsonNode> b = validate(viaStore.toByteArray());
        assertEquals(b.stream().filter(e -> e.get("ph").asText().equals("C")).toList(),
                validate(viaView.toByteArray()).stream().filter(e -> e.get("ph").asText().equals("C")).toList(),
                "a plain TraceView exports the same counters as the store's replay");
        List<JsonNode> countersA = a.stream().filter(e -> e.get("ph").asText().equals("C")).toList();
        List<JsonNode> countersB = b.stream().filter(e -> e.get("ph").asText().equals("C")).toList();
        assertEquals(countersA, countersB, "the same counter tracks, value for value");
        long peak = countersB.stream().filter(e -> e.get("name").asText().equals("bytes in use"))
                .mapToLong(e -> e.get("args").get("bytes").asLong()).max().orElseThrow();
        assertEquals(3_853_700_352L, peak);
    }

    /** The store seen only through the TraceView contract (no replay fast path). */
    static TraceView onlyTheView(TraceView v) {
        return new TraceView() {
            public SessionInfo session() { return v.session(); }
            public List<MemoryInfo> memories() { return v.memories(); }
            public String string(int id) { return v.string(id); }
            public String threadName(int id) { return v.threadName(id); }
            public long eventCount() { return v.eventCount(); }
            public long startNs() { return v.startNs(); }
            public long endNs() { return v.endNs(); }
            public long lostEvents() { return v.lostEvents(); }
            public Event event(long index) { return v.event(index); }
            public long firstIndexAtOrAfter(long timeNs) { return v.firstIndexAtOrAfter(timeNs); }
            public GaugeSeries gauges(int memory, long fromNs, long toNs, int buckets) {
                return v.gauges(memory, fromNs, toNs, buckets);
            }
            public List<ScopeInterval> scopes(int memory, long fromNs, long toNs, long minDurationNs) {
                return v.scopes(memory, fromNs, toNs, minDurationNs);
            }
            public long peakUsed(int memory) { return v.peakUsed(memory); }
            public long peakAux(int memory) { return v.peakAux(memory); }
        };
    }
}
