package dev.arenascope.core.trace.file;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;

import dev.arenascope.core.device.DeviceInfo;
import dev.arenascope.core.trace.EventBatch;
import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.EventSink;
import dev.arenascope.core.trace.MemoryInfo;
import dev.arenascope.core.trace.SessionInfo;
import dev.arenascope.core.trace.StackFrame;
import dev.arenascope.core.trace.StackNode;

/**
 * Writes a session as JSON Lines: one object a line, metadata lines ({@code "type"}: session, memory,
 * string, thread, loss, frame, stack) before the events that need them, and one line per event with the keys
 * {@code t kind mem thread flags a b c used aux ref ref2 site cat}, where a key equal to its default
 * ({@code mem}, {@code ref}, {@code ref2}, {@code site}, {@code cat}: -1; the rest 0; {@code t} and {@code kind} always written)
 * is left out. {@code docs/astrace-format.md} lists the keys. One writer thread ({@link EventSink} contract).
 */
public final class JsonlWriter extends ClosingTextWriter {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final String[] KIND_NAMES = new String[256];

    static {
        for (EventKind k : EventKind.values()) {
            KIND_NAMES[k.code()] = k.name();
        }
    }

    private final Path path;
    private final JsonGenerator g;
    private long events;

    public JsonlWriter(Path path) throws IOException {
        this.path = path;
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(path), 1 << 16);
        g = FACTORY.createGenerator(out, JsonEncoding.UTF8);
        g.setRootValueSeparator(new SerializedString("\n"));
    }

    public long events() {
        return events;
    }

    private UncheckedIOException fail(IOException e) {
        return new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
    }

    @Override
    public void onSession(SessionInfo s) {
        try {
            g.writeStartObject();
            g.writeStringField("type", "session");
            g.writeStringField("name", s.name());
            g.writeStringField("host", s.host());
            g.writeNumberField("start_epoch_ns", s.startEpochNs());
            g.writeArrayFieldStart("devices");
            for (DeviceInfo d : s.devices()) {
                g.writeStartObject();
                g.writeStringField("kind", d.kind().name());
                g.writeNumberField("index", d.index());
                g.writeStringField("name", d.name());
                g.writeNumberField("total_bytes", d.totalBytes());
                g.writeNumberField("free_bytes", d.freeBytes());
                g.writeEndObject();
            }
            g.writeEndArray();
            writeMap("attributes", s.attributes());
            g.writeEndObject();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    private void writeMap(String field, Map<String, String> m) throws IOException {
        g.writeObjectFieldStart(field);
        for (var e : new TreeMap<>(m).entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }

    @Override
    public void onMemory(MemoryInfo m) {
        try {
            g.writeStartObject();
            g.writeStringField("type", "memory");
            g.writeNumberField("id", m.id());
            g.writeStringField("name", m.name());
            g.writeStringField("kind", m.kind().name());
            g.writeStringField("device", m.device());
            g.writeNumberField("capacity", m.capacity());
            writeMap("attributes", m.attributes());
            g.writeEndObject();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public void onString(int id, String value) {
        try {
            g.writeStartObject();
            g.writeStringField("type", "string");
            g.writeNumberField("id", id);
            g.writeStringField("value", value);
            g.writeEndObject();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public void onThread(int id, String name) {
        try {
            g.writeStartObject();
            g.writeStringField("type", "thread");
            g.writeNumberField("id", id);
            g.writeStringField("name", name);
            g.writeEndObject();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public void onFrame(StackFrame f) {
        try {
            g.writeStartObject();
            g.writeStringField("type", "frame");
            g.writeNumberField("id", f.id());
            g.writeStringField("function", f.function());
            g.writeStringField("file", f.file());
            g.writeNumberField("line", f.line());
            if (f.flags() != 0) {
                g.writeNumberField("flags", f.flags());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public void onStack(StackNode n) {
        try {
            g.writeStartObject();
            g.writeStringField("type", "stack");
            g.writeNumberField("id", n.id());
            g.writeNumberField("frame", n.frame());
            g.writeNumberField("parent", n.parent());
            g.writeEndObject();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    public void onLoss(long count) {
        try {
            g.writeStartObject();
            g.writeStringField("type", "loss");
            g.writeNumberField("count", count);
            g.writeEndObject();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    @Override
    void write(EventBatch b) {
        try {
            boolean sites = b.hasSites();
            for (int i = 0; i < b.size(); i++) {
                g.writeStartObject();
                g.writeNumberField("t", b.time(i));
                g.writeStringField("kind", KIND_NAMES[b.kindCode(i)]);
                int mem = b.memory(i);
                if (mem != -1) {
                    g.writeNumberField("mem", mem);
                }
                if (b.thread(i) != 0) {
                    g.writeNumberField("thread", b.thread(i));
                }
                if (b.flags(i) != 0) {
                    g.writeNumberField("flags", b.flags(i));
                }
                field("a", b.a(i));
                field("b", b.b(i));
                field("c", b.c(i));
                field("used", b.used(i));
                field("aux", b.aux(i));
                if (b.ref(i) != -1) {
                    g.writeNumberField("ref", b.ref(i));
                }
                if (b.ref2(i) != -1) {
                    g.writeNumberField("ref2", b.ref2(i));
                }
                if (sites) {
                    if (b.site(i) != -1) {
                        g.writeNumberField("site", b.site(i));
                    }
                    if (b.category(i) != -1) {
                        g.writeNumberField("cat", b.category(i));
                    }
                }
                g.writeEndObject();
            }
            events += b.size();
        } catch (IOException e) {
            throw fail(e);
        }
    }

    private void field(String name, long v) throws IOException {
        if (v != 0) {
            g.writeNumberField(name, v);
        }
    }

    @Override
    void finish() {
        try {
            g.writeRaw('\n');
            g.close();
        } catch (IOException e) {
            throw fail(e);
        }
    }
}
