package dev.arenascope.core.trace.perfetto;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.Saturating;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.SiteTable;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;

/**
 * Writes an event stream as Chrome Trace Event Format JSON (the JSON object form), which
 * ui.perfetto.dev and chrome://tracing open.
 *
 * <p>Layout: process 1 is the session (its name, and its recording threads named by {@code thread_name}
 * metadata); each memory is a process of its own ({@code pid = 2 + memory id}, named
 * {@code "NAME (KIND, DEVICE)"}) holding
 * <ul>
 *   <li>counter tracks ({@code "ph":"C"}, numeric args only): {@code "bytes in use"} with arg
 *       {@code bytes} = the memory's {@code used} gauge, and where the memory has a second gauge,
 *       {@code "bytes reserved"} (pools, PyTorch segments) or {@code "backward end bytes"} (arenas);
 *       a counter event is written only when its value changes;</li>
 *   <li>scopes as duration slices ({@code "B"} / {@code "E"}) on the thread that opened them, with the
 *       scope's parameters as args of its {@code E} event;</li>
 *   <li>out-of-memory events as process-scoped instants ({@code "ph":"i","s":"p"});</li>
 *   <li>allocations that carry a site or a category as thread-scoped instants named {@code "alloc"} with
 *       args {@code bytes}, {@code address}, {@code category} and {@code stack} (frames innermost first,
 *       one a line, as memory_viz shows them); allocations without either are only counted.</li>
 * </ul>
 * Markers and losses are global instants ({@code "s":"g"}). Timestamps are microseconds since the
 * session start with nanosecond precision (three decimals). Within every track timestamps never
 * decrease (an event that arrives earlier than its track's last one is written at the last time);
 * scopes that close out of order close the ones opened inside them first, and scopes still open at the
 * end are closed at the last timestamp.
 *
 * <p>Strings and threads must be announced before events use them (the {@link EventSink} contract).
 * Not thread-safe; {@link #onClose()} finishes the JSON document and closes the stream. An
 * {@link IOException} from the stream surfaces as {@link UncheckedIOException}.
 */
public final class PerfettoJsonWriter implements EventSink {
    static final int SESSION_PID = 1;

    private final JsonGenerator json;
    private final Map<Integer, String> strings = new HashMap<>();
    private final Map<Integer, String> threads = new HashMap<>();
    private final Map<Integer, MemoryInfo> memories = new HashMap<>();
    private final Map<Integer, long[]> gauges = new HashMap<>(); // memory -> {used, aux, lastTs}
    private final Map<Long, Deque> openScopes = new LinkedHashMap<>(); // (pid, tid) -> open scopes
    private final Set<Long> namedThreads = new HashSet<>();
    private long lastTs;
    private long lost;
    private boolean closed;

    /** One thread's stack of open scopes on one memory, and its last timestamp. */
    private static final class Deque {
        final ArrayDeque<OpenScope> stack = new ArrayDeque<>();
        long lastTs;
    }

    private record OpenScope(int scopeId, String name, List<Object[]> params) {}

    /** Writes to {@code out} (buffered here; closed by {@link #onClose()}). */
    public PerfettoJsonWriter(OutputStream out) {
        try {
            json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
            json.writeStartObject();
            json.writeStringField("displayTimeUnit", "ns");
            json.writeArrayFieldStart("traceEvents");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void onSession(SessionInfo info) {
        io(() -> {
            metadata("process_name", SESSION_PID, -1, "session " + info.name());
            metadata("process_sort_index", SESSION_PID, -1, 0);
        });
    }

    @Override
    public void onMemory(MemoryInfo memory) {
        memories.put(memory.id(), memory);
        io(() -> {
            int pid = pid(memory.id());
            metadata("process_name", pid, -1, memory.name() + " (" + memory.kind().name().toLowerCase(Locale.ROOT)
                    + ", " + memory.device() + ")");
            metadata("process_sort_index", pid, -1, pid);
        });
    }

    private final SiteTable sites = new SiteTable();
    private final Map<Integer, String> stacks = new HashMap<>();

    @Override
    public void onFrame(StackFrame frame) {
        sites.add(frame);
    }

    @Override
    public void onStack(StackNode node) {
        sites.add(node);
    }

    private String stackText(int site) {
        return stacks.computeIfAbsent(site, s -> String.join("\n",
                sites.frames(s).stream().map(StackFrame::label).toList()));
    }

    @Override
    public void onString(int id, String value) {
        strings.put(id, value);
    }

    @Override
    public void onThread(int id, String name) {
        threads.put(id, name);
        io(() -> nameThread(SESSION_PID, id));
    }

    @Override
    public void onEvents(EventBatch b) {
        io(() -> {
            for (int i = 0; i < b.size(); i++) {
                write(b, i);
            }
        });
    }

    /** Adds {@code count} to the lost events reported in {@code otherData} without drawing an instant. */
    void countLost(long count) {
        lost = Saturating.add(lost, count);
    }

    @Override
    public void onLoss(long count) {
        lost = Saturating.add(lost, count);
        io(() -> {
            begin("events lost", "i", SESSION_PID, 0, lastTs);
            json.writeStringField("s", "g");
            json.writeObjectFieldStart("args");
            json.writeNumberField("count", count);
            json.writeEndObject();
            json.writeEndObject();
        });
    }

    @Override
    public void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        io(() -> {
            for (Map.Entry<Long, Deque> e : openScopes.entrySet()) {
                int pid = (int) (e.getKey() >>> 32);
                int tid = (int) (long) e.getKey();
                while (!e.getValue().stack.isEmpty()) {
                    end(pid, tid, e.getValue(), Math.max(lastTs, e.getValue().lastTs), e.getValue().stack.pop(), true);
                }
            }
            json.writeEndArray();
            json.writeObjectFieldStart("otherData");
            json.writeStringField("producer", "ArenaScope");
            json.writeNumberField("lost_events", lost);
            json.writeEndObject();
            json.writeEndObject();
            json.close();
        });
    }

    // ---------------------------------------------------------------- events

    private void write(EventBatch b, int i) throws IOException {
        long t = b.time(i);
        lastTs = Math.max(lastTs, t);
        EventKind kind = b.kind(i);
        if (kind == null) {
            return;
        }
        int memory = b.memory(i);
        int thread = b.thread(i);
        switch (kind) {
            case SCOPE_ENTER -> {
                Deque d = scopes(pid(memory), thread);
                long ts = Math.max(t, d.lastTs);
                d.lastTs = ts;
                String name = text(b.ref(i), "scope");
                begin(name, "B", pid(memory), thread, ts);
                json.writeObjectFieldStart("args");
                json.writeNumberField("scope_id", b.ref2(i));
                json.writeNumberField("forward", b.a(i));
                json.writeNumberField("backward", b.b(i));
                json.writeEndObject();
                json.writeEndObject();
                d.stack.push(new OpenScope(b.ref2(i), name, new ArrayList<>()));
            }
            case SCOPE_PARAM -> {
                Deque d = openScopes.get(key(pid(memory), thread));
                if (d != null) {
                    for (OpenScope s : d.stack) {
                        if (s.scopeId == b.ref2(i)) {
                            s.params.add(new Object[] {text(b.ref(i), "param"), b.a(i)});
                            break;
                        }
                    }
                }
            }
            case SCOPE_EXIT -> {
                Deque d = openScopes.get(key(pid(memory), thread));
                if (d != null && d.stack.stream().anyMatch(s -> s.scopeId == b.ref2(i))) {
                    long ts = Math.max(t, d.lastTs);
                    OpenScope s;
                    do {
                        s = d.stack.pop();
                        end(pid(memory), thread, d, ts, s, s.scopeId != b.ref2(i));
                    } while (s.scopeId != b.ref2(i));
                }
            }
            case OUT_OF_MEMORY -> {
                begin("out of memory", "i", memory >= 0 ? pid(memory) : SESSION_PID, thread, t);
                json.writeStringField("s", memory >= 0 ? "p" : "g");
                json.writeObjectFieldStart("args");
                json.writeNumberField("requested_bytes", b.b(i));
                json.writeNumberField("remaining_bytes", b.c(i));
                String msg = strings.get(b.ref(i));
                if (msg != null) {
                    json.writeStringField("message", msg);
                }
                json.writeEndObject();
                json.writeEndObject();
            }
            case ALLOC, POOL_REQUEST, TENSOR_LIVE -> {
                int site = b.site(i);
                int cat = b.category(i);
                if (site >= 0 || cat >= 0) {
                    begin("alloc", "i", memory >= 0 ? pid(memory) : SESSION_PID, thread, t);
                    json.writeStringField("s", "t");
                    json.writeObjectFieldStart("args");
                    json.writeNumberField("bytes", b.b(i));
                    json.writeNumberField("address", b.a(i));
                    if (cat >= 0 && strings.get(cat) != null) {
                        json.writeStringField("category", strings.get(cat));
                    }
                    if (site >= 0) {
                        json.writeStringField("stack", stackText(site));
                    }
                    json.writeEndObject();
                    json.writeEndObject();
                }
            }
            case MARKER -> {
                begin(text(b.ref(i), "marker"), "i", SESSION_PID, thread, t);
                json.writeStringField("s", "g");
                json.writeEndObject();
            }
            case LOSS -> {
                begin("events lost", "i", SESSION_PID, thread, t);
                json.writeStringField("s", "g");
                json.writeObjectFieldStart("args");
                json.writeNumberField("count", b.a(i));
                json.writeEndObject();
                json.writeEndObject();
            }
            default -> { }
        }
        if (memory >= 0 && memories.containsKey(memory)) {
            counters(memory, t, b.used(i), b.aux(i));
        }
    }

    private void counters(int memory, long t, long used, long aux) throws IOException {
        long[] g = gauges.get(memory);
        boolean first = g == null;
        if (first) {
            g = new long[] {0, 0, 0};
            gauges.put(memory, g);
        }
        long ts = Math.max(t, g[2]);
        String auxName = auxName(memories.get(memory).kind());
        if (first || g[0] != used) {
            counter(pid(memory), "bytes in use", ts, used);
            g[0] = used;
        }
        if (auxName != null && (first || g[1] != aux)) {
            counter(pid(memory), auxName, ts, aux);
            g[1] = aux;
        }
        g[2] = ts;
    }

    /** The counter name of a memory kind's second gauge, or null when it has none. */
    static String auxName(MemoryKind kind) {
        return switch (kind) {
            case POOL, SEGMENTED -> "bytes reserved";
            case ARENA -> "backward end bytes";
            default -> null;
        };
    }

    private void counter(int pid, String name, long ts, long value) throws IOException {
        begin(name, "C", pid, 0, ts);
        json.writeObjectFieldStart("args");
        json.writeNumberField("bytes", value);
        json.writeEndObject();
        json.writeEndObject();
    }

    private void end(int pid, int tid, Deque d, long ts, OpenScope s, boolean forced) throws IOException {
        d.lastTs = ts;
        begin(s.name, "E", pid, tid, ts);
        if (!s.params.isEmpty() || forced) {
            json.writeObjectFieldStart("args");
            for (Object[] p : s.params) {
                json.writeNumberField((String) p[0], (Long) p[1]);
            }
            if (forced) {
                json.writeBooleanField("closed_without_exit", true);
            }
            json.writeEndObject();
        }
        json.writeEndObject();
    }

    private Deque scopes(int pid, int tid) throws IOException {
        long k = key(pid, tid);
        Deque d = openScopes.get(k);
        if (d == null) {
            d = new Deque();
            openScopes.put(k, d);
            nameThread(pid, tid);
        }
        return d;
    }

    private void nameThread(int pid, int tid) throws IOException {
        if (namedThreads.add(key(pid, tid))) {
            String n = threads.get(tid);
            metadata("thread_name", pid, tid, n == null ? "thread " + tid : n);
        }
    }

    private static long key(int pid, int tid) {
        return (long) pid << 32 | (tid & 0xffffffffL);
    }

    private static int pid(int memory) {
        return memory + 2;
    }

    private String text(int ref, String fallback) {
        String s = strings.get(ref);
        return s == null ? fallback : s;
    }

    // ---------------------------------------------------------------- JSON pieces

    /** Starts an event object with name, ph, pid, tid and ts; the caller adds fields and ends it. */
    private void begin(String name, String ph, int pid, int tid, long tsNs) throws IOException {
        json.writeStartObject();
        json.writeStringField("name", name);
        json.writeStringField("ph", ph);
        json.writeNumberField("pid", pid);
        json.writeNumberField("tid", tid);
        json.writeFieldName("ts");
        json.writeNumber(micros(tsNs));
    }

    /** Nanoseconds as a decimal number of microseconds with three decimals, e.g. {@code 1234.567}. */
    static String micros(long ns) {
        long us = ns / 1000;
        long frac = Math.abs(ns % 1000);
        String sign = ns < 0 && us == 0 ? "-" : "";
        return sign + us + "." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + frac;
    }

    private void metadata(String name, int pid, int tid, Object value) throws IOException {
        json.writeStartObject();
        json.writeStringField("name", name);
        json.writeStringField("ph", "M");
        json.writeNumberField("pid", pid);
        if (tid >= 0) {
            json.writeNumberField("tid", tid);
        }
        json.writeObjectFieldStart("args");
        if (value instanceof Integer n) {
            json.writeNumberField("sort_index", n);
        } else {
            json.writeStringField("name", (String) value);
        }
        json.writeEndObject();
        json.writeEndObject();
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private void io(IoAction a) {
        if (closed && json.isClosed()) {
            throw new IllegalStateException("Perfetto writer is closed");
        }
        try {
            a.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
