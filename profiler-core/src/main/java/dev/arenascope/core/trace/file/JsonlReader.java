package dev.arenascope.core.trace.file;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.device.DeviceKind;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.MemoryKind;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.store.EventStore;

/**
 * Reads JSON Lines written by {@link JsonlWriter} (or by hand: fixtures) with Jackson's streaming
 * parser, delivering to any {@link EventSink}.
 *
 * <p>Bad input: a line that is not JSON, not an object, or not an event or metadata record (unknown
 * kind, a value out of range, a missing {@code t} or {@code kind}) is skipped and recorded in the
 * {@link ReadReport} as {@code file:LINE: what}; every sound line is kept. After a syntax error the
 * parser restarts at the next line, so one broken line never hides the rest. Jackson's stream limits
 * bound string and number lengths and nesting, so no line can exhaust memory.
 */
public final class JsonlReader {
    private static final JsonFactory FACTORY = JsonFactory.builder().disable(com.fasterxml.jackson.core.StreamReadFeature.AUTO_CLOSE_SOURCE).build();
    private static final Map<String, EventKind> KINDS = new HashMap<>();
    private static final int MAX_PROBLEMS = 8;
    private static final int BATCH = 1 << 16;

    static {
        for (EventKind k : EventKind.values()) {
            KINDS.put(k.name(), k);
        }
    }

    private final Path path;
    private final String source;
    private final EventSink sink;
    private final EventBatch batch = new EventBatch(BATCH);
    private final List<String> problems = new ArrayList<>();
    private int problemCount;
    private long events;
    private long lines;
    private long lost;
    private boolean sessionDelivered;

    private JsonlReader(Path path, EventSink sink) {
        this.path = path;
        this.source = path.toString();
        this.sink = sink;
    }

    /** Reads a whole file into {@code sink} (ending with {@code onClose}). */
    public static ReadReport read(Path path, EventSink sink) throws IOException {
        JsonlReader r = new JsonlReader(path, sink);
        long size;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            size = ch.size();
            r.run(ch);
        }
        r.flushBatch();
        if (!r.sessionDelivered) {
            r.deliverDefaultSession();
        }
        sink.onClose();
        return new ReadReport(r.source, r.events, r.lines, "lines", size, -1, r.lost, r.problemCount, r.problems);
    }

    /** Reads a whole file into a new store. */
    public static LoadedTrace load(Path path) throws IOException {
        EventStore store = new EventStore(path.getFileName().toString());
        return new LoadedTrace(store, read(path, store));
    }

    private void problem(long line, String what) {
        problemCount++;
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(source + ":" + line + ": " + what);
        }
    }

    private void run(FileChannel ch) throws IOException {
        long start = 0;     // byte offset the current parser starts at
        long lineBase = 0;  // lines before it
        while (true) {
            ch.position(start);
            InputStream in = Channels.newInputStream(ch);
            try (JsonParser p = FACTORY.createParser(in)) {
                long objOffset = start;
                long objLine = lineBase + 1;
                boolean inValue = false;    // false: between values, where a syntax error is on a line of its own
                try {
                    while (true) {
                        JsonToken tok = p.nextToken();
                        if (tok == null) {
                            return;
                        }
                        objOffset = start + p.currentTokenLocation().getByteOffset();
                        objLine = lineBase + p.currentTokenLocation().getLineNr();
                        inValue = true;
                        if (tok != JsonToken.START_OBJECT) {
                            problem(objLine, "not a JSON object (" + tok.asString() + ")");
                            p.skipChildren();
                        } else {
                            record(p, objLine);
                        }
                        inValue = false;
                    }
                } catch (StreamReadException e) {
                    long next;
                    if (!inValue && e.getLocation() != null && e.getLocation().getLineNr() > 0) {
                        // the bad token starts a line (or follows a value on it): name that line and skip only it,
                        // not the last good object's line (Jackson's line number is exact; its offset may be past the newline)
                        objLine = lineBase + e.getLocation().getLineNr();
                        next = lineStart(ch, start, objLine - lineBase);
                    } else {
                        next = nextLineStart(ch, objOffset);
                    }
                    String msg = e.getOriginalMessage();
                    problem(objLine, "not valid JSON (" + (msg == null ? e.getClass().getSimpleName() : msg.lines().findFirst().orElse("")) + ")");
                    if (next < 0) {
                        return;
                    }
                    start = next;
                    lineBase = objLine;
                }
            }
        }
    }

    /** The offset just past the {@code lines}-th newline at or after {@code from}, or -1 when the file has fewer. */
    private static long lineStart(FileChannel ch, long from, long lines) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(1 << 14);
        long at = from;
        long left = lines;
        while (true) {
            buf.clear();
            int n = ch.read(buf, at);
            if (n <= 0) {
                return -1;
            }
            for (int i = 0; i < n; i++) {
                if (buf.get(i) == '\n' && --left == 0) {
                    return at + i + 1;
                }
            }
            at += n;
        }
    }

    /** The offset just past the first newline at or after {@code from}, or -1 at the end of the file. */
    private static long nextLineStart(FileChannel ch, long from) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(1 << 14);
        long at = from;
        while (true) {
            buf.clear();
            int n = ch.read(buf, at);
            if (n <= 0) {
                return -1;
            }
            for (int i = 0; i < n; i++) {
                if (buf.get(i) == '\n') {
                    return at + i + 1;
                }
            }
            at += n;
        }
    }

    /** Reads one object (the parser is on its START_OBJECT) and delivers it, or records why not. */
    private void record(JsonParser p, long line) throws IOException {
        long t = 0;
        String kind = null;
        boolean hasT = false;
        long mem = -1, thread = 0, flags = 0, a = 0, b = 0, c = 0, used = 0, aux = 0, ref = -1, ref2 = -1;
        String type = null;
        long id = 0, capacity = 0, count = 0, startNs = 0;
        String name = null, value = null, host = null, device = null, memKind = null;
        Map<String, String> attrs = Map.of();
        List<DeviceInfo> devices = List.of();
        String bad = null;
        for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
            JsonToken v = p.nextToken();
            int code = fieldCode(f);
            if (code < F_FIRST_TEXT && v != JsonToken.VALUE_NUMBER_INT) {
                bad = "'" + f + "' is not an integer";
                p.skipChildren();
                continue;
            }
            try {
                switch (code) {
                    case F_T -> {
                        t = p.getLongValue();
                        hasT = true;
                    }
                    case F_MEM -> mem = p.getLongValue();
                    case F_THREAD -> thread = p.getLongValue();
                    case F_FLAGS -> flags = p.getLongValue();
                    case F_A -> a = p.getLongValue();
                    case F_B -> b = p.getLongValue();
                    case F_C -> c = p.getLongValue();
                    case F_USED -> used = p.getLongValue();
                    case F_AUX -> aux = p.getLongValue();
                    case F_REF -> ref = p.getLongValue();
                    case F_REF2 -> ref2 = p.getLongValue();
                    case F_ID -> id = p.getLongValue();
                    case F_CAPACITY -> capacity = p.getLongValue();
                    case F_COUNT -> count = p.getLongValue();
                    case F_START -> startNs = p.getLongValue();
                    case F_KIND -> {
                        kind = p.getValueAsString();
                        memKind = kind;
                    }
                    case F_TYPE -> type = p.getValueAsString();
                    case F_NAME -> name = p.getValueAsString();
                    case F_VALUE -> value = p.getValueAsString();
                    case F_HOST -> host = p.getValueAsString();
                    case F_DEVICE -> device = p.getValueAsString();
                    case F_ATTRIBUTES -> attrs = readMap(p);
                    case F_DEVICES -> devices = readDevices(p);
                    default -> p.skipChildren();
                }
            } catch (InputCoercionException e) {
                bad = "'" + f + "' is out of range";
            } catch (BadValue e) {
                bad = e.getMessage();
                p.skipChildren();
            }
        }
        lines++;
        if (bad != null) {
            lines--;
            problem(line, bad);
            return;
        }
        if (type == null) {
            String err = event(hasT, t, kind, mem, thread, flags, a, b, c, used, aux, ref, ref2);
            if (err != null) {
                lines--;
                problem(line, err);
            }
            return;
        }
        String err = switch (type) {
            case "session" -> {
                if (sessionDelivered) {
                    yield "a second session line";
                }
                sessionDelivered = true;
                sink.onSession(new SessionInfo(name == null ? "" : name, host == null ? "" : host, startNs, devices, attrs));
                yield null;
            }
            case "memory" -> {
                MemoryKind mk = memKind == null ? null : memoryKind(memKind);
                if (mk == null) {
                    yield "memory line without a known kind (" + memKind + ")";
                }
                if (id < 0 || id > EventBatch.MAX_MEMORY_ID) {
                    yield "memory id " + id + " out of range";
                }
                meta();
                sink.onMemory(new MemoryInfo((int) id, name == null ? "" : name, mk, device == null ? "" : device, capacity, attrs));
                yield null;
            }
            case "string" -> {
                if (id != (int) id || value == null) {
                    yield "string line needs an int 'id' and a 'value'";
                }
                meta();
                sink.onString((int) id, value);
                yield null;
            }
            case "thread" -> {
                if (id != (int) id) {
                    yield "thread id " + id + " out of range";
                }
                meta();
                sink.onThread((int) id, name == null ? "" : name);
                yield null;
            }
            case "loss" -> {
                if (count < 0) {
                    yield "negative loss count";
                }
                meta();
                lost += count;
                sink.onLoss(count);
                yield null;
            }
            default -> "unknown record type '" + type + "'";
        };
        if (err != null) {
            lines--;
            problem(line, err);
        }
    }

    private static final int F_T = 0, F_MEM = 1, F_THREAD = 2, F_FLAGS = 3, F_A = 4, F_B = 5, F_C = 6, F_USED = 7,
            F_AUX = 8, F_REF = 9, F_REF2 = 10, F_ID = 11, F_CAPACITY = 12, F_COUNT = 13, F_START = 14,
            F_FIRST_TEXT = 15, F_KIND = 15, F_TYPE = 16, F_NAME = 17, F_VALUE = 18, F_HOST = 19, F_DEVICE = 20,
            F_ATTRIBUTES = 21, F_DEVICES = 22, F_OTHER = 23;

    /**
     * The field's code. Jackson interns field names, so the event fields are first matched by identity
     * with the literals (cheap); anything else falls back to comparing contents.
     */
    @SuppressWarnings("StringEquality")
    private static int fieldCode(String f) {
        if (f == "t") {
            return F_T;
        } else if (f == "kind") {
            return F_KIND;
        } else if (f == "mem") {
            return F_MEM;
        } else if (f == "thread") {
            return F_THREAD;
        } else if (f == "a") {
            return F_A;
        } else if (f == "b") {
            return F_B;
        } else if (f == "c") {
            return F_C;
        } else if (f == "used") {
            return F_USED;
        } else if (f == "aux") {
            return F_AUX;
        } else if (f == "ref") {
            return F_REF;
        } else if (f == "ref2") {
            return F_REF2;
        } else if (f == "flags") {
            return F_FLAGS;
        }
        return switch (f) {
            case "t" -> F_T;
            case "kind" -> F_KIND;
            case "mem" -> F_MEM;
            case "thread" -> F_THREAD;
            case "flags" -> F_FLAGS;
            case "a" -> F_A;
            case "b" -> F_B;
            case "c" -> F_C;
            case "used" -> F_USED;
            case "aux" -> F_AUX;
            case "ref" -> F_REF;
            case "ref2" -> F_REF2;
            case "id" -> F_ID;
            case "capacity" -> F_CAPACITY;
            case "count" -> F_COUNT;
            case "start_epoch_ns" -> F_START;
            case "type" -> F_TYPE;
            case "name" -> F_NAME;
            case "value" -> F_VALUE;
            case "host" -> F_HOST;
            case "device" -> F_DEVICE;
            case "attributes" -> F_ATTRIBUTES;
            case "devices" -> F_DEVICES;
            default -> F_OTHER;
        };
    }

    private static MemoryKind memoryKind(String s) {
        try {
            return MemoryKind.valueOf(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Metadata must reach the sink after the events before it and before the ones after it. */
    private void meta() {
        if (!sessionDelivered) {
            deliverDefaultSession();
        }
        flushBatch();
    }

    private void deliverDefaultSession() {
        sessionDelivered = true;
        sink.onSession(new SessionInfo(path.getFileName().toString(), "", 0, List.of(), Map.of()));
    }

    private String event(boolean hasT, long t, String kindName, long mem, long thread, long flags, long a, long b, long c,
                         long used, long aux, long ref, long ref2) {
        if (!hasT) {
            return "not an event: no 't' (and no 'type')";
        }
        EventKind k = kindName == null ? null : KINDS.get(kindName);
        if (k == null) {
            return kindName == null ? "event without 'kind'" : "unknown event kind '" + kindName + "'";
        }
        if (mem < -1 || mem > EventBatch.MAX_MEMORY_ID) {
            return "memory id " + mem + " out of range";
        }
        if (flags < 0 || flags > 0xff) {
            return "flags " + flags + " out of range";
        }
        if (thread != (int) thread || ref != (int) ref || ref2 != (int) ref2) {
            return "thread, ref or ref2 out of 32-bit range";
        }
        if (!sessionDelivered) {
            deliverDefaultSession();
        }
        batch.add(t, EventBatch.pack(k.code(), (int) flags, (int) mem), (int) thread, a, b, c, used, aux, (int) ref, (int) ref2);
        events++;
        if (batch.size() == BATCH) {
            flushBatch();
        }
        return null;
    }

    private void flushBatch() {
        if (!batch.isEmpty()) {
            sink.onEvents(batch);
            batch.clear();
        }
    }

    private static final class BadValue extends Exception {
        BadValue(String m) {
            super(m, null, false, false);
        }
    }

    private static Map<String, String> readMap(JsonParser p) throws IOException, BadValue {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new BadValue("'attributes' is not an object");
        }
        Map<String, String> m = new LinkedHashMap<>();
        String bad = null;
        for (String k = p.nextFieldName(); k != null; k = p.nextFieldName()) {
            JsonToken v = p.nextToken();
            if (v.isStructStart()) {
                p.skipChildren();
                bad = "attribute '" + k + "' is not a string";
            } else {
                m.put(k, p.getValueAsString(""));
            }
        }
        if (bad != null) {
            throw new BadValue(bad); // the map is consumed: the caller's skipChildren does nothing
        }
        return m;
    }

    private static List<DeviceInfo> readDevices(JsonParser p) throws IOException, BadValue {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new BadValue("'devices' is not an array");
        }
        List<DeviceInfo> out = new ArrayList<>();
        for (JsonToken tok = p.nextToken(); tok != JsonToken.END_ARRAY; tok = p.nextToken()) {
            if (tok != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            String kind = null;
            String name = "";
            long index = 0, total = 0, free = 0;
            for (String f = p.nextFieldName(); f != null; f = p.nextFieldName()) {
                p.nextToken();
                switch (f) {
                    case "kind" -> kind = p.getValueAsString();
                    case "name" -> name = p.getValueAsString("");
                    case "index" -> index = p.getValueAsLong();
                    case "total_bytes" -> total = p.getValueAsLong();
                    case "free_bytes" -> free = p.getValueAsLong();
                    default -> p.skipChildren();
                }
            }
            DeviceKind dk;
            try {
                dk = DeviceKind.valueOf(String.valueOf(kind));
            } catch (IllegalArgumentException e) {
                continue;
            }
            out.add(new DeviceInfo(dk, (int) index, name, total, free));
        }
        return out;
    }

}
